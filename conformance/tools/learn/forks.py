# policy learn (conformance/suites/learn.sh): a job that runs /bin/sh through subprocess, so the
# run forks, executes a second binary (dash, through the /bin -> usr/bin link) and has two tasks.
import subprocess

out = subprocess.run(["/bin/sh", "-c", "echo from-sh"], capture_output=True, text=True, check=True)
print("child said", out.stdout.strip())
