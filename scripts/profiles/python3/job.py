# The run `policy learn` records for policies/python3.json (scripts/learn-profiles.sh): what a
# batch job in Python does with the standard library. It reads its input from /srv (read-only),
# works in /tmp (the only writable place) and prints a summary. No subprocess, no network.
import base64, collections, csv, dataclasses, datetime, decimal, fractions, functools, gzip
import hashlib, io, itertools, json, math, os, pathlib, random, re, shutil, statistics
import string, struct, sys, tempfile, textwrap, time, unicodedata, zlib


@dataclasses.dataclass
class Row:
    name: str
    value: float


rows = []
with open("/srv/input.csv", newline="") as f:
    for rec in csv.DictReader(f):
        rows.append(Row(rec["name"], float(rec["value"])))
by_name = collections.Counter(r.name for r in rows)
values = [r.value for r in rows]
summary = {
    "rows": len(rows), "names": sorted(by_name), "mean": statistics.mean(values),
    "total": str(decimal.Decimal(sum(values)).quantize(decimal.Decimal("0.01"))),
    "ratio": str(fractions.Fraction(3, 9)), "sqrt2": math.sqrt(2),
    "when": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc).isoformat(),
    "sha256": hashlib.sha256(open("/srv/input.csv", "rb").read()).hexdigest(),
    "words": re.findall(r"[a-z]+", "alpha beta gamma"), "listing": sorted(os.listdir("/srv")),
    "b64": base64.b64encode(struct.pack("<I", 7)).decode(), "crc": zlib.crc32(b"x"),
    "title": string.capwords("a job"), "wrapped": textwrap.shorten("a b c d e f", 7),
    "norm": unicodedata.normalize("NFC", "e\u0301"), "rand": random.Random(1).randint(1, 9),
    "perms": len(list(itertools.permutations("abc"))), "sum": functools.reduce(lambda a, b: a + b, range(5)),
}
work = pathlib.Path(tempfile.mkdtemp(dir="/tmp"))
(work / "summary.json").write_text(json.dumps(summary, sort_keys=True))
with gzip.open(work / "summary.json.gz", "wt") as z:
    z.write((work / "summary.json").read_text())
shutil.copy(work / "summary.json", work / "copy.json")
os.rename(work / "copy.json", work / "renamed.json")
os.remove(work / "renamed.json")
buf = io.StringIO()
print(json.dumps(summary, sort_keys=True), file=buf)
sys.stdout.write(buf.getvalue())
time.sleep(0.01)
shutil.rmtree(work)
