// Interop with real Iceberg data files: every *.parquet under the directory (the
// reference tables Spark and pyiceberg wrote at test time when FLOE_REFERENCE_TABLES names
// them, else the shared fixtures, ../shared/fixtures/iceberg/ from the repository root,
// written by Spark/parquet-mr, Trino, pyiceberg/Arrow and DuckDB) must be read by
// `floe parquet cat --format jsonl` without error, with DuckDB's row count and equal
// per-column checksums of the normalised values. Each file is also copied with
// `floe parquet copy` and DuckDB must read the copy as it reads the original (EXCEPT ALL
// both ways, equal counts).
//
// usage: [FLOE_REFERENCE_TABLES=DIR] node test/interop/fixtures.mjs PATH_TO_FLOE [FILTER]

import fs from 'node:fs';
import path from 'node:path';

import { floeFromArgs, makeTempDir, openDuckDB, readParquet, repoRoot, Reporter, runFloe } from './lib/common.mjs';
import { compareChecksums } from './lib/compare.mjs';

const floe = floeFromArgs('test/interop/fixtures.mjs');
const filter = process.argv[3] || '';
const report = new Reporter('interop fixtures');
const root = process.env.FLOE_REFERENCE_TABLES ||
  path.resolve(repoRoot, '..', 'shared', 'fixtures', 'iceberg');
if (!fs.existsSync(root)) {
  console.error(`the directory ${root} does not exist`);
  process.exit(2);
}

function findParquet(d, out = []) {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) findParquet(p, out);
    else if (e.isFile() && e.name.endsWith('.parquet')) out.push(p);
  }
  return out;
}

const { dir, cleanup } = makeTempDir('fixtures');
process.on('exit', cleanup);
const db = await openDuckDB();
const files = findParquet(root).filter((f) => !filter || f.includes(filter));

let k = 0;
for (const file of files) {
  const label = path.relative(root, file);
  let duckOk = true;
  try {
    await db.query(`SELECT count(*) FROM ${readParquet(file)}`);
  } catch (e) {
    duckOk = false;
    report.skip(label, `DuckDB cannot read it either: ${e.message.split('\n')[0]}`);
  }
  if (!duckOk) continue;
  const diff = await compareChecksums(db, floe, file);
  if (diff) {
    report.fail(label, diff);
    continue;
  }
  const copy = path.join(dir, `copy${k++}.parquet`);
  const r = runFloe(floe, ['parquet', 'copy', file, copy]);
  if (r.status !== 0) {
    report.fail(`${label} (copy)`, `floe parquet copy exited with ${r.status}: ${r.stderr.trim()}`);
    continue;
  }
  const problems = [];
  try {
    const q = (x, y) => `SELECT count(*)::BIGINT AS n FROM (SELECT * FROM ${readParquet(x)}
                         EXCEPT ALL SELECT * FROM ${readParquet(y)})`;
    const n1 = (await db.query(q(file, copy))).getRowObjectsJson()[0].n;
    const n2 = (await db.query(q(copy, file))).getRowObjectsJson()[0].n;
    const c1 = (await db.query(`SELECT count(*)::BIGINT AS n FROM ${readParquet(file)}`)).getRowObjectsJson()[0].n;
    const c2 = (await db.query(`SELECT count(*)::BIGINT AS n FROM ${readParquet(copy)}`)).getRowObjectsJson()[0].n;
    if (n1 !== '0' || n2 !== '0' || c1 !== c2) {
      problems.push(`copy differs: ${n1} rows only in the original, ${n2} only in floe's copy, counts ${c1} vs ${c2}`);
    }
    const t1 = (await db.query(`DESCRIBE SELECT * FROM ${readParquet(file)}`)).getRowObjectsJson();
    const t2 = (await db.query(`DESCRIBE SELECT * FROM ${readParquet(copy)}`)).getRowObjectsJson();
    // floe, like Iceberg, has one time type: a UTC-adjusted Parquet TIME (DuckDB's
    // TIME WITH TIME ZONE) is read as time and written as TIME(MICROS, false).
    const s1 = t1.map((x) => `${x.column_name} ${x.column_type}`).join(', ')
                   .replaceAll('TIME WITH TIME ZONE', 'TIME');
    const s2 = t2.map((x) => `${x.column_name} ${x.column_type}`).join(', ');
    if (s1 !== s2) problems.push(`copy types differ:\n  original: ${s1}\n  copy:     ${s2}`);
  } catch (e) {
    problems.push(`DuckDB cannot compare floe's copy: ${e.message.split('\n')[0]}`);
  }
  if (problems.length) report.fail(`${label} (copy)`, problems.join('\n'));
  else report.pass(label);
}
if (!files.length) report.fail('files', `no .parquet files under ${root}`);
report.finish();
