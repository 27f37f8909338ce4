# policy learn's proof (conformance/suites/learn.sh): a benign job. It lists its input directory,
# reads its input, computes, writes the result under /tmp and prints it.
import hashlib
import json
import os

names = sorted(os.listdir("/srv"))
with open("/srv/input.txt") as f:
    nums = [int(x) for x in f.read().split()]
res = {"files": names, "n": len(nums), "sum": sum(nums),
       "sha256": hashlib.sha256(" ".join(map(str, nums)).encode()).hexdigest()}
os.makedirs("/tmp/out", exist_ok=True)
with open("/tmp/out/result.json", "w") as f:
    json.dump(res, f, sort_keys=True)
with open("/tmp/out/result.json") as f:
    print(f.read())
