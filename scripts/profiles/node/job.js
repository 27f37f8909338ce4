// The run `policy learn` records for policies/node.json (scripts/learn-profiles.sh): what a batch
// job in Node does with its standard library. It reads its input from /srv (read-only), works in
// /tmp (the only writable place) and prints a summary. No child process, no network.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const zlib = require('zlib');
const os = require('os');
const util = require('util');

const lines = fs.readFileSync('/srv/input.csv', 'utf8').trim().split('\n').slice(1);
const rows = lines.map((l) => { const [name, value] = l.split(','); return { name, value: Number(value) }; });
const summary = {
  rows: rows.length,
  names: [...new Set(rows.map((r) => r.name))].sort(),
  total: rows.reduce((a, r) => a + r.value, 0),
  sha256: crypto.createHash('sha256').update(fs.readFileSync('/srv/input.csv')).digest('hex'),
  listing: fs.readdirSync('/srv').sort(),
  when: new Date(Date.UTC(2026, 0, 1)).toISOString(),
  words: 'alpha beta gamma'.match(/[a-z]+/g),
  cpus: os.cpus().length > 0,
  fmt: util.format('%s=%d', 'n', 3),
};
const work = fs.mkdtempSync(path.join('/tmp', 'job-'));
fs.writeFileSync(path.join(work, 'summary.json'), JSON.stringify(summary));
fs.writeFileSync(path.join(work, 'summary.json.gz'), zlib.gzipSync(JSON.stringify(summary)));
fs.copyFileSync(path.join(work, 'summary.json'), path.join(work, 'copy.json'));
fs.renameSync(path.join(work, 'copy.json'), path.join(work, 'renamed.json'));
fs.unlinkSync(path.join(work, 'renamed.json'));
setTimeout(() => {
  fs.rmSync(work, { recursive: true });
  console.log(JSON.stringify(summary));
}, 10);
