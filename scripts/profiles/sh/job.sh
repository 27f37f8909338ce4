# The run `policy learn` records for policies/sh.json (scripts/learn-profiles.sh): what a shell
# job does with coreutils (and sed and grep). It reads its input from /srv (read-only), works in
# /tmp (the only writable place) and prints a summary. No network.
set -eu
work=$(mktemp -d /tmp/job.XXXXXX)
cut -d, -f1 /srv/input.csv | tail -n +2 | sort | uniq -c | sort -rn > "$work/names"
tr a-z A-Z < "$work/names" | head -n 5 > "$work/upper"
cp "$work/upper" "$work/copy" && mv "$work/copy" "$work/moved" && rm "$work/moved"
mkdir "$work/sub" && touch "$work/sub/f" && ln -s f "$work/sub/link" && ls -la "$work/sub" > /dev/null
grep -c alpha /srv/input.csv > "$work/alpha"
sed -e 's/,/ /' /srv/input.csv | wc -l > "$work/lines"
printf '%s\n' "$(date -u -d @0 +%Y)" "$(basename /srv/input.csv)" "$(dirname /srv/input.csv)" > "$work/misc"
sha256sum /srv/input.csv | cut -c1-16 >> "$work/misc"
stat -c %s /srv/input.csv >> "$work/misc"; du -s "$work" > /dev/null; df /tmp > /dev/null
seq 3 | paste -sd+ >> "$work/misc"; expr 2 + 3 >> "$work/misc"; id -u > /dev/null; env > /dev/null
cat "$work/names" "$work/upper" "$work/alpha" "$work/lines" "$work/misc"
rm -r "$work"
