// The Iceberg append benchmark: `floe iceberg append` of a 10M-row Parquet file (the Parquet
// benchmark's columns plus a timestamptz spread over 365 days) into a table partitioned by
// day(ts), against DuckDB writing the same rows as Parquet partitioned by day with
// `COPY ... TO (FORMAT parquet, PARTITION_BY (...))`, on the same thread count and codec
// (zstd). Both read the same input file. Best of RUNS for both; floe's time includes the
// Iceberg commit (manifests, manifest list, metadata, catalog swap). Prints a markdown table
// with rows/s and the ratio floe/DuckDB (< 1 means floe is faster).
//
// With --sql, floe writes through SQL instead: `INSERT INTO bench.events SELECT * FROM
// read_parquet(...)` into a table made by CREATE TABLE (the parallel write pipeline, rows
// hash-distributed by the partition tuple). With --lineitem SF the input is the TPC-H-shaped
// lineitem of scale factor SF (bench/queries.sh generates it) partitioned by
// day(l_shipdate), always through SQL.
//
// usage: node bench/iceberg_append.mjs FLOE DATA_DIR [--rows N] [--threads T] [--runs R]
//                                      [--sql] [--lineitem SF]
// bench/iceberg_append.sh wraps it with defaults.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { openDuckDB } from '../test/interop/lib/common.mjs';

const [floe, dataDir, ...rest] = process.argv.slice(2);
if (!floe || !dataDir) {
  console.error('usage: node bench/iceberg_append.mjs FLOE DATA_DIR [--rows N] [--threads T] [--runs R]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = rest.indexOf(name);
  return i >= 0 ? Number(rest[i + 1]) : dflt;
};
let rows = opt('--rows', 10_000_000);
const threads = opt('--threads', 1);
const runs = opt('--runs', 3);
const lineitemSf = opt('--lineitem', 0);
const viaSql = rest.includes('--sql') || lineitemSf > 0;

const db = await openDuckDB(threads);
await db.conn.run(`SET threads = ${threads}`);
await db.conn.run('SET preserve_insertion_order = false');
await db.conn.run("SET TimeZone = 'UTC'");
fs.mkdirSync(dataDir, { recursive: true });

const input = lineitemSf > 0 ? path.join(dataDir, `tpch-sf${lineitemSf}`, 'lineitem.parquet')
                            : path.join(dataDir, `append_${rows}.parquet`);
if (lineitemSf > 0) {
  if (!fs.existsSync(input)) {
    console.error(`${input} is missing: run bench/queries.sh --sf ${lineitemSf} first`);
    process.exit(2);
  }
  const reader = await db.conn.runAndReadAll(`SELECT count(*)::BIGINT FROM read_parquet('${input}')`);
  rows = Number(reader.getRows()[0][0]);
} else if (!fs.existsSync(input)) {
  const t0 = Date.now();
  // Deterministic values from hashes of the row number; ts covers 365 days of 2025.
  await db.conn.run(`COPY (
      SELECT (hash(i) % 1000000000000)::BIGINT AS c_bigint,
             (hash(i + 1) % 100000000) / 1000.0 AS c_double,
             'str_' || (hash(i + 2) % 100000)::VARCHAR AS c_varchar,
             DATE '2000-01-01' + (hash(i + 3) % 10000)::INTEGER AS c_date,
             ((hash(i + 5) % 10000000000)::DECIMAL(18,0) / 100)::DECIMAL(18,2) AS c_decimal,
             hash(i + 6) % 2 = 0 AS c_boolean,
             TIMESTAMPTZ '2025-01-01 00:00:00+00'
               + INTERVAL (hash(i + 4) % (365 * 86400000000)) MICROSECONDS AS ts
      FROM range(${rows}) t(i))
    TO '${input}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`);
  console.error(`generated ${input} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

const schema = 'c_bigint bigint, c_double double, c_varchar string, c_date date, ' +
               'c_decimal decimal(18, 2), c_boolean boolean, ts timestamptz';
const sqlSchema = 'c_bigint bigint, c_double double precision, c_varchar text, c_date date, ' +
                  'c_decimal decimal(18, 2), c_boolean boolean, ts timestamptz';
const partitionColumn = lineitemSf > 0 ? 'l_shipdate' : 'ts';

function run(args) {
  const res = spawnSync(floe, args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`floe ${args.join(' ')} failed: ${res.stderr.trim()}`);
  return res.stdout;
}

function floeInsert() {
  let best = Infinity;
  let files = 0;
  for (let r = 0; r < runs; r++) {
    const wh = path.join(dataDir, 'floe-warehouse');
    fs.rmSync(wh, { recursive: true, force: true });
    fs.mkdirSync(wh, { recursive: true });
    const sql = (...statements) =>
      run(['sql', '--warehouse', wh, '--threads', String(threads),
           ...statements.flatMap((st) => ['-c', st])]);
    const props = `partitioning = 'day(${partitionColumn})', ` +
                  `"write.parquet.compression-codec" = 'zstd'`;
    if (lineitemSf > 0) {
      // The table takes the file's columns: CREATE TABLE AS of no rows.
      sql('CREATE SCHEMA bench',
          `CREATE TABLE bench.events WITH (${props}) AS SELECT * FROM read_parquet('${input}') LIMIT 0`);
    } else {
      sql('CREATE SCHEMA bench', `CREATE TABLE bench.events (${sqlSchema}) WITH (${props})`);
    }
    const t0 = process.hrtime.bigint();
    const out = sql(`INSERT INTO bench.events SELECT * FROM read_parquet('${input}')`);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    if (!out.includes(`INSERT 0 ${rows}`)) throw new Error(`unexpected floe output: ${out}`);
    files = 0;
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else if (e.name.endsWith('.parquet')) files++;
      }
    };
    walk(wh);
  }
  return { seconds: best, files };
}

function floeAppend() {
  let best = Infinity;
  let files = 0;
  for (let r = 0; r < runs; r++) {
    const wh = path.join(dataDir, 'floe-warehouse');
    fs.rmSync(wh, { recursive: true, force: true });
    fs.mkdirSync(wh, { recursive: true });
    const catalog = ['--catalog', `sqlite:///${path.resolve(wh, 'catalog.db')}`, '--warehouse', wh];
    run(['iceberg', 'create-namespace', ...catalog, 'bench']);
    run(['iceberg', 'create', ...catalog, 'bench.events', '--schema', schema, '--partition', 'day(ts)',
         '--property', 'write.parquet.compression-codec=zstd']);
    const t0 = process.hrtime.bigint();
    const out = run(['iceberg', 'append', ...catalog, 'bench.events', input]);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    const m = /appended (\d+) rows in (\d+) files/.exec(out);
    if (!m || Number(m[1]) !== rows) throw new Error(`unexpected floe output: ${out}`);
    files = Number(m[2]);
  }
  return { seconds: best, files };
}

async function duckCopy() {
  let best = Infinity;
  const out = path.join(dataDir, 'duckdb-partitioned');
  for (let r = 0; r < runs; r++) {
    fs.rmSync(out, { recursive: true, force: true });
    const t0 = process.hrtime.bigint();
    await db.conn.run(`COPY (SELECT *, CAST(${partitionColumn} AS DATE) AS ts_day FROM read_parquet('${input}'))
      TO '${out}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (ts_day))`);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  let files = 0;
  for (const d of fs.readdirSync(out)) files += fs.readdirSync(path.join(out, d)).length;
  fs.rmSync(out, { recursive: true, force: true });
  return { seconds: best, files };
}

const f = viaSql ? floeInsert() : floeAppend();
const d = await duckCopy();
fs.rmSync(path.join(dataDir, 'floe-warehouse'), { recursive: true, force: true });
const rate = (s) => `${(rows / s / 1e6).toFixed(2)}M`;
console.log(`floe ${viaSql ? 'INSERT INTO ... SELECT (SQL)' : 'iceberg append'}, input ${path.basename(input)}`);
console.log(`| rows | threads | floe s | floe rows/s | floe files | DuckDB s | DuckDB rows/s | DuckDB files | floe/DuckDB |`);
console.log(`|---|---|---|---|---|---|---|---|---|`);
console.log(`| ${rows} | ${threads} | ${f.seconds.toFixed(2)} | ${rate(f.seconds)} | ${f.files} | ` +
            `${d.seconds.toFixed(2)} | ${rate(d.seconds)} | ${d.files} | ${(f.seconds / d.seconds).toFixed(2)} |`);

