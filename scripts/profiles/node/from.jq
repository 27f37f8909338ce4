.memory.addressSpace = 17179869184
