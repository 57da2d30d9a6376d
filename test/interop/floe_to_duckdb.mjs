// Interop, direction 2: files floe writes, DuckDB reads back equal.
//
// usage: node test/interop/floe_to_duckdb.mjs PATH_TO_FLOE [FILTER]
//
// Every dataset of lib/datasets.mjs is written by DuckDB, then copied with
// `floe parquet copy` (floe's reader, then floe's writer) with every codec and with
// v2 data pages, without dictionaries, and with small row groups and pages. For each
// copy DuckDB must find the same rows (EXCEPT ALL both ways empty, equal counts), the
// same column types (DESCRIBE), the requested codec in every column chunk, no
// dictionary pages with --no-dictionary, and the requested row-group split. floe then
// reads its own file back and must print what DuckDB reads from it.

import path from 'node:path';

import { floeFromArgs, makeTempDir, openDuckDB, readParquet, Reporter, runFloe, sqlStr } from './lib/common.mjs';
import { compareFile } from './lib/compare.mjs';
import { datasetSql, kFloeCodecs, writeWithDuckDB } from './lib/datasets.mjs';

const floe = floeFromArgs('test/interop/floe_to_duckdb.mjs');
const filter = process.argv[3] || '';
const report = new Reporter('interop floe->duckdb');
const { dir, cleanup } = makeTempDir('floe-to-duckdb');
process.on('exit', cleanup);

const db = await openDuckDB();
const sql = datasetSql();
for (const s of Object.values(sql)) await db.conn.run(s);

const rows = async (q) => (await db.query(q)).getRowObjectsJson();
const src = readParquet;

/// Returns a list of problems (empty when DuckDB reads `b` as it reads `a`).
async function checkCopy(a, b, expect) {
  const problems = [];
  const da = await rows(`DESCRIBE SELECT * FROM ${src(a)}`);
  const dbb = await rows(`DESCRIBE SELECT * FROM ${src(b)}`);
  const ta = da.map((r) => `${r.column_name} ${r.column_type}`);
  const tb = dbb.map((r) => `${r.column_name} ${r.column_type}`);
  if (ta.join('\n') !== tb.join('\n')) {
    for (let k = 0; k < Math.max(ta.length, tb.length); k++) {
      if (ta[k] !== tb[k]) problems.push(`DESCRIBE column ${k}: source ${ta[k]}, floe's file ${tb[k]}`);
    }
    return problems;  // EXCEPT would fail to bind or compare unlike types.
  }
  const [ca] = await rows(`SELECT count(*)::BIGINT AS n FROM ${src(a)}`);
  const [cb] = await rows(`SELECT count(*)::BIGINT AS n FROM ${src(b)}`);
  if (ca.n !== cb.n) problems.push(`count: source ${ca.n}, floe's file ${cb.n}`);
  for (const [x, y, what] of [[a, b, 'rows only in the source'], [b, a, "rows only in floe's file"]]) {
    const q = `SELECT * FROM (SELECT * FROM ${src(x)} EXCEPT ALL SELECT * FROM ${src(y)}) ORDER BY id LIMIT 3`;
    const extra = await db.query(q);
    const r = extra.getRowObjectsJson();
    if (r.length) {
      const n = (await rows(`SELECT count(*)::BIGINT AS n FROM (SELECT * FROM ${src(x)} EXCEPT ALL SELECT * FROM ${src(y)})`))[0].n;
      problems.push(`${n} ${what}, e.g.\n${r.map((o) => `  ${JSON.stringify(o).slice(0, 400)}`).join('\n')}`);
    }
  }
  const meta = await rows(`SELECT row_group_id, compression, encodings, path_in_schema
                           FROM parquet_metadata(${sqlStr(b)})`);
  if (expect.codec) {
    const bad = meta.filter((m) => m.compression !== expect.codec);
    if (bad.length) problems.push(`codec: expected ${expect.codec}, column ${bad[0].path_in_schema} has ${bad[0].compression}`);
  }
  if (expect.noDictionary) {
    const bad = meta.filter((m) => /DICTIONARY/.test(m.encodings));
    if (bad.length) problems.push(`--no-dictionary: column ${bad[0].path_in_schema} uses ${bad[0].encodings}`);
  }
  if (expect.rowGroups !== undefined) {
    const [g] = await rows(`SELECT count(*)::BIGINT AS n FROM parquet_metadata(${sqlStr(b)}) WHERE column_id = 0`);
    if (Number(g.n) !== expect.rowGroups) problems.push(`row groups: expected ${expect.rowGroups}, found ${g.n}`);
  }
  return problems;
}

const duckCodecName = {
  uncompressed: 'UNCOMPRESSED', snappy: 'SNAPPY', gzip: 'GZIP', zstd: 'ZSTD', lz4_raw: 'LZ4_RAW',
  brotli: 'BROTLI',
};

const variants = [];
for (const codec of kFloeCodecs) variants.push({ label: codec, args: ['--compression', codec], expect: { codec: duckCodecName[codec] } });
variants.push({ label: 'zstd+v2pages', args: ['--compression', 'zstd', '--data-page-version', '2'], expect: { codec: 'ZSTD' } });
variants.push({ label: 'snappy+v2pages+nodict', args: ['--compression', 'snappy', '--data-page-version', '2', '--no-dictionary'], expect: { codec: 'SNAPPY', noDictionary: true } });
variants.push({ label: 'uncompressed+nodict', args: ['--compression', 'uncompressed', '--no-dictionary'], expect: { codec: 'UNCOMPRESSED', noDictionary: true } });
variants.push({ label: 'small-row-groups+pages', args: ['--row-group-rows', '1000', '--page-size', '4096'], small: true });

for (const name of Object.keys(sql)) {
  for (const version of ['V1', 'V2']) {
    const source = path.join(dir, `${name}.duckdb.${version}.parquet`);
    await writeWithDuckDB(db, name, source, { codec: 'zstd', version });
    for (const v of variants) {
      const label = `${name}/${version}-source/${v.label}`;
      if (filter && !label.includes(filter)) continue;
      const out = path.join(dir, `${name}.${version}.${v.label}.floe.parquet`);
      const r = runFloe(floe, ['parquet', 'copy', source, out, ...v.args]);
      if (r.status !== 0) {
        report.fail(label, `floe parquet copy ${v.args.join(' ')} exited with ${r.status}: ${r.stderr.trim()}`);
        continue;
      }
      const expect = { ...(v.expect || {}) };
      if (v.small) {
        const [n] = await rows(`SELECT count(*)::BIGINT AS n FROM ${name}`);
        expect.rowGroups = Math.ceil(Number(n.n) / 1000);
      }
      let problems;
      try {
        problems = await checkCopy(source, out, expect);
      } catch (e) {
        problems = [`DuckDB cannot read floe's file: ${e.message}`];
      }
      // floe reads its own file back like DuckDB does.
      if (!problems.length) {
        const diff = await compareFile(db, floe, out);
        if (diff) problems.push(`floe reading its own file:\n${diff}`);
      }
      if (problems.length) report.fail(label, problems.join('\n'));
      else report.pass(label, `${r.seconds.toFixed(2)} s`);
    }
  }
}
report.finish();
