# policy learn --seconds (conformance/suites/learn.sh): a job that never ends on its own, as a
# server does; it says it started, then waits.
import time

print("serving", flush=True)
while True:
    time.sleep(60)
