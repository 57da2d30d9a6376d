// The Parquet scan benchmark: floe's `parquet scan` against DuckDB reading the same
// columns of the same files with an aggregate that needs every value (min, max and
// count of each column), on the same thread count. Best of RUNS for both. Prints a
// markdown table with the ratio floe/DuckDB (< 1 means floe is faster).
//
// usage: node bench/parquet_scan.mjs FLOE DATA_DIR [--rows N] [--threads T] [--runs R]
// bench/parquet_scan.sh wraps it with defaults.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { openDuckDB, readParquet } from '../test/interop/lib/common.mjs';

const [floe, dataDir, ...rest] = process.argv.slice(2);
if (!floe || !dataDir) {
  console.error('usage: node bench/parquet_scan.mjs FLOE DATA_DIR [--rows N] [--threads T] [--runs R]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = rest.indexOf(name);
  return i >= 0 ? Number(rest[i + 1]) : dflt;
};
const rows = opt('--rows', 10_000_000);
const threads = opt('--threads', 1);
const runs = opt('--runs', 3);

const columns = ['c_bigint', 'c_double', 'c_varchar', 'c_date', 'c_timestamp', 'c_decimal', 'c_boolean'];
const codecs = ['zstd', 'snappy'];

const db = await openDuckDB(threads);
await db.conn.run(`SET threads = ${threads}`);
// Without this DuckDB answers min/max/count from the row-group statistics in the footer
// (a few milliseconds, no page read); with it the aggregate reads every value.
await db.conn.run("SET disabled_optimizers = 'statistics_propagation'");
fs.mkdirSync(dataDir, { recursive: true });

function fileFor(codec) {
  return path.join(dataDir, `scan_${rows}_${codec}.parquet`);
}

for (const codec of codecs) {
  const f = fileFor(codec);
  if (fs.existsSync(f)) continue;
  const t0 = Date.now();
  // Deterministic values: hashes of the row number. 100k distinct strings.
  await db.conn.run(`COPY (
      SELECT (hash(i) % 1000000000000)::BIGINT AS c_bigint,
             (hash(i + 1) % 100000000) / 1000.0 AS c_double,
             'str_' || (hash(i + 2) % 100000)::VARCHAR AS c_varchar,
             DATE '2000-01-01' + (hash(i + 3) % 10000)::INTEGER AS c_date,
             TIMESTAMP '2000-01-01' + INTERVAL (hash(i + 4) % 1000000000000) MICROSECONDS AS c_timestamp,
             ((hash(i + 5) % 10000000000)::DECIMAL(18,0) / 100)::DECIMAL(18,2) AS c_decimal,
             hash(i + 6) % 2 = 0 AS c_boolean
      FROM range(${rows}) t(i))
    TO '${f}' (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE 1000000)`);
  console.error(`generated ${f} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function floeScan(file, cols) {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const res = spawnSync(floe, ['parquet', 'scan', file, '--columns', cols.join(','), '--threads', String(threads)],
                          { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`floe parquet scan failed: ${res.stderr.trim()}`);
    const m = /seconds=([0-9.]+)/.exec(res.stdout);
    const rowsSeen = /rows=([0-9]+)/.exec(res.stdout);
    if (!m || !rowsSeen || Number(rowsSeen[1]) !== rows) throw new Error(`unexpected floe output: ${res.stdout}`);
    best = Math.min(best, Number(m[1]));
  }
  return best;
}

async function duckScan(file, cols) {
  const aggs = cols.map((c) => `min(${c}), max(${c}), count(${c})`).join(', ');
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    await db.conn.runAndReadAll(`SELECT ${aggs} FROM ${readParquet(file)}`);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return best;
}

console.log(`Parquet scan, ${rows} rows, 1M-row row groups, threads=${threads}, best of ${runs}`);
console.log('floe: `floe parquet scan --columns COL --threads T` (its own timing: open, footer, decode)');
console.log('DuckDB: `SELECT min(COL), max(COL), count(COL) FROM read_parquet(...)` (query time,');
console.log('        statistics_propagation disabled so that every value is read)\n');
console.log('| column | codec | floe s | duckdb s | ratio floe/duckdb |');
console.log('|---|---|---:|---:|---:|');
const worst = { ratio: 0 };
for (const codec of codecs) {
  const file = fileFor(codec);
  for (const cols of [...columns.map((c) => [c]), columns]) {
    const label = cols.length === 1 ? cols[0] : 'all columns';
    let f;
    let d;
    try {
      f = floeScan(file, cols);
    } catch (e) {
      console.log(`| ${label} | ${codec} | error | | ${e.message.split('\n')[0]} |`);
      continue;
    }
    d = await duckScan(file, cols);
    const ratio = f / d;
    if (ratio > worst.ratio) Object.assign(worst, { ratio, label, codec });
    console.log(`| ${label} | ${codec} | ${f.toFixed(3)} | ${d.toFixed(3)} | ${ratio.toFixed(2)}x |`);
  }
}
if (worst.label) {
  console.log(`\nworst ratio: ${worst.ratio.toFixed(2)}x (${worst.label}, ${worst.codec}); target <= 1.0x single-threaded`);
}
