// Interop, direction 1: files DuckDB writes, floe reads back equal.
//
// usage: node test/interop/duckdb_to_floe.mjs PATH_TO_FLOE [FILTER]
//
// Every dataset of lib/datasets.mjs (all types, NULLs, extremes, nested values, 1 MiB
// strings, all-null columns, empty results) is written by DuckDB with every codec, as
// Parquet v1 (PLAIN/dictionary, v1 data pages) and v2 (v2 data pages, DELTA_* and
// BYTE_STREAM_SPLIT encodings), in several row groups. `floe parquet cat --format jsonl`
// must print exactly the rows DuckDB reads, value by value. Projection (--columns) and
// --limit are checked on the larger files. FILTER (a substring) selects cases.

import path from 'node:path';

import { floeFromArgs, makeTempDir, openDuckDB, Reporter } from './lib/common.mjs';
import { compareFile } from './lib/compare.mjs';
import { datasetSql, kDuckCodecs, writeWithDuckDB } from './lib/datasets.mjs';

const floe = floeFromArgs('test/interop/duckdb_to_floe.mjs');
const filter = process.argv[3] || '';
const report = new Reporter('interop duckdb->floe');
const { dir, cleanup } = makeTempDir('duckdb-to-floe');
process.on('exit', cleanup);

const db = await openDuckDB();
const sql = datasetSql();
for (const s of Object.values(sql)) await db.conn.run(s);

const projections = {
  scalars: [['c_str', 'id'], ['c_dec38'], ['c_tstz', 'c_uuid', 'c_blob']],
  nested: [['c_nested', 'id'], ['c_map'], ['c_struct2', 'c_list_list']],
};

for (const name of Object.keys(sql)) {
  for (const version of ['V1', 'V2']) {
    for (const codec of kDuckCodecs) {
      const label = `${name}/${codec}/${version}`;
      if (filter && !label.includes(filter)) continue;
      const file = path.join(dir, `${name}.${codec}.${version}.parquet`);
      try {
        await writeWithDuckDB(db, name, file, { codec, version });
      } catch (e) {
        report.fail(label, `DuckDB cannot write the file: ${e.message}`);
        continue;
      }
      const diff = await compareFile(db, floe, file);
      if (diff) report.fail(label, diff);
      else report.pass(label);
      // Projection and early stop, on one codec per version to keep the run short.
      if (codec === 'zstd' && projections[name]) {
        for (const columns of projections[name]) {
          const l = `${label} --columns ${columns.join(',')}`;
          const d = await compareFile(db, floe, file, { columns });
          if (d) report.fail(l, d);
          else report.pass(l);
        }
        for (const limit of [0, 1, 2049]) {
          const l = `${label} --limit ${limit}`;
          const d = await compareFile(db, floe, file, { limit, columns: projections[name][0] });
          if (d) report.fail(l, d);
          else report.pass(l);
        }
      }
    }
  }
}
report.finish();
