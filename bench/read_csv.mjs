// The CSV read benchmark: floe's read_csv against DuckDB's on the same generated file
// (bigint, double, text with quoted commas and quotes, date, timestamp, boolean; a header),
// each sniffing the file and reading every value (min, max and count of every column), on
// the same thread count. Best of RUNS for both; floe's time is the whole `floe sql`
// process (start-up, the planning pass that splits the file, the scan). Prints a markdown
// table with the ratio floe/DuckDB (< 1 means floe is faster).
//
// usage: node bench/read_csv.mjs FLOE DATA_DIR [--rows N] [--threads T] [--runs R]
// bench/read_csv.sh wraps it with defaults.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { openDuckDB, sqlStr } from '../test/interop/lib/common.mjs';

const [floe, dataDir, ...rest] = process.argv.slice(2);
if (!floe || !dataDir) {
  console.error('usage: node bench/read_csv.mjs FLOE DATA_DIR [--rows N] [--threads T] [--runs R]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = rest.indexOf(name);
  return i >= 0 ? Number(rest[i + 1]) : dflt;
};
const rows = opt('--rows', 12_000_000);
const threads = opt('--threads', 2);
const runs = opt('--runs', 3);

const db = await openDuckDB(threads);
await db.conn.run(`SET threads = ${threads}`);
fs.mkdirSync(dataDir, { recursive: true });
const file = path.join(dataDir, `read_csv_${rows}.csv`);
if (!fs.existsSync(file)) {
  const t0 = Date.now();
  await db.conn.run(`COPY (
      SELECT (hash(i) % 1000000000000)::BIGINT AS c_bigint,
             (hash(i + 1) % 100000000) / 1000.0 AS c_double,
             CASE WHEN i % 10 = 0 THEN 'say "x", ' ELSE 'str_' END || (hash(i + 2) % 100000)::VARCHAR AS c_text,
             DATE '2000-01-01' + (hash(i + 3) % 10000)::INTEGER AS c_date,
             TIMESTAMP '2000-01-01' + INTERVAL (hash(i + 4) % 1000000000000) MICROSECONDS AS c_timestamp,
             hash(i + 6) % 2 = 0 AS c_boolean
      FROM range(${rows}) t(i)) TO ${sqlStr(file)} (HEADER)`);
  console.error(`generated ${file} (${(fs.statSync(file).size / 1e9).toFixed(2)} GB) in ` +
                `${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
const bytes = fs.statSync(file).size;
const columns = ['c_bigint', 'c_double', 'c_text', 'c_date', 'c_timestamp', 'c_boolean'];
const aggs = columns.map((c) => `min(${c}), max(${c}), count(${c})`).join(', ');
const query = `SELECT count(*), ${aggs} FROM read_csv(${sqlStr(file)})`;

function floeRun() {
  let best = Infinity;
  let out = '';
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    const res = spawnSync(floe, ['sql', '--threads', String(threads), '--format', 'csv', '-c', query],
                          { encoding: 'utf8' });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (res.status !== 0) throw new Error(`floe failed: ${res.stderr.trim()}`);
    out = res.stdout.trim().split('\n')[1];
    best = Math.min(best, seconds);
  }
  return { best, out };
}

async function duckRun() {
  let best = Infinity;
  let out = '';
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    const res = await db.conn.runAndReadAll(query);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    out = String(res.getRows()[0][0]);
  }
  return { best, out };
}

const f = floeRun();
const d = await duckRun();
if (!f.out.startsWith(`${d.out},`)) throw new Error(`row counts differ: floe ${f.out}, DuckDB ${d.out}`);
const mbps = (s) => (bytes / 1e6 / s).toFixed(0);
console.log(`| file | threads | floe s (MB/s) | DuckDB s (MB/s) | floe/DuckDB |`);
console.log(`|---|---|---|---|---|`);
console.log(`| ${(bytes / 1e9).toFixed(2)} GB, ${rows} rows | ${threads} | ${f.best.toFixed(2)} (${mbps(f.best)}) | ` +
            `${d.best.toFixed(2)} (${mbps(d.best)}) | ${(f.best / d.best).toFixed(2)} |`);
