// The real Iceberg tables in ../shared/fixtures/iceberg (written by Spark, Trino, pyiceberg
// and the Java API; see its INDEX.md) read through `floe iceberg scan`:
//   1. every snapshot that expected.json lists with expected_live_rows scans to exactly
//      that many rows (deletes, schema evolution, partition evolution, name mapping,
//      moved and relative paths); a snapshot whose manifest list is missing from the
//      fixtures fails with an error naming that file, and only that snapshot;
//   2. the values INDEX.md lists come back exactly (as CSV lines, compared as sets);
//   3. generated_spec1/2 (Spark copy-on-write and merge-on-read histories): the current
//      snapshot equals the committed expected_results rows, read by DuckDB, value by
//      value through the normaliser in lib/common.mjs;
//   4. `floe iceberg plan` prints the same plan as text as it does as JSON.
//
// usage: node iceberg_fixtures.mjs PATH_TO_FLOE

import fs from 'node:fs';
import path from 'node:path';

import {
  canonDuck, canonEqual, canonFloe, floeFromArgs, openDuckDB, parseJson, Reporter, repoRoot,
  runFloe, show, sqlStr,
} from './lib/common.mjs';

const floe = floeFromArgs('iceberg_fixtures.mjs');
const fixtures = path.resolve(repoRoot, '..', 'shared', 'fixtures', 'iceberg');
const report = new Reporter('iceberg fixtures');

if (!fs.existsSync(path.join(fixtures, 'expected.json'))) {
  console.error(`fixtures not found at ${fixtures}`);
  process.exit(2);
}

const cxxTables = path.join(fixtures, 'iceberg-cxx', 'tests', 'tables');
const cxxMap = ['s3a://warehouse/', 's3://warehouse/', 's3a://dl-test-maintenance/check/tea-partitioned/']
  .flatMap((from) => ['--path-map', `${from}=${cxxTables}/`]);

/// The path options a group's tables need (INDEX.md, "How paths are written").
function pathArgs(group, metadata) {
  if (group === 'iceberg-cxx') return cxxMap;
  let base = path.join(fixtures, group);
  // lineitem_iceberg* name their files relative to data/persistent/iceberg.
  if (metadata.includes('/iceberg/lineitem_iceberg')) base = path.join(base, 'data', 'persistent', 'iceberg');
  return ['--base', base];
}

function scan(table, args) {
  const r = runFloe(floe, ['iceberg', 'scan', table, ...args]);
  if (r.status !== 0) return { error: `exit ${r.status}: ${r.stderr.trim()}`, stderr: r.stderr };
  const lines = r.stdout.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return { lines };
}

// ---------------------------------------------------------------------------------------
// 1. Row counts of every listed snapshot.

// parseJson keeps 64-bit snapshot ids exact (as JsonNumber text).
const expected = parseJson(fs.readFileSync(path.join(fixtures, 'expected.json'), 'utf8'));
let snapshots = 0;
for (const t of expected) {
  const table = path.join(fixtures, t.group, t.metadata);
  const short = t.metadata.replace(/\/metadata\/.*$/, '').split('/').slice(-3).join('/');
  for (const s of t.snapshots) {
    if (s.expected_live_rows === undefined || s.expected_live_rows === null) continue;
    const expectedRows = Number(String(s.expected_live_rows));
    snapshots++;
    const name = `rows ${short} @${s.snapshot_id}`;
    // Ids above INT64_MAX (hand-made metadata) are passed as written.
    const id = String(s.snapshot_id);
    const r = scan(table, ['--snapshot', id, '--format', 'jsonl', ...pathArgs(t.group, t.metadata)]);
    const missing = s.note && String(s.note).includes('NOT in the repo');
    if (missing) {
      if (r.error && /snap-7342794868382145167-1-34f7dec7.*\.avro/.test(r.stderr) &&
          r.stderr.split('\n').filter((l) => l).length === 1) {
        report.pass(name, 'missing manifest list is a one-line error naming it');
      } else {
        report.fail(name, r.error ?? `expected an error naming the missing manifest list, got ${r.lines.length} rows`);
      }
      continue;
    }
    if (r.error) {
      report.fail(name, r.error);
    } else if (r.lines.length !== expectedRows) {
      report.fail(name, `${r.lines.length} rows, expected ${expectedRows}`);
    } else {
      report.pass(name, `${r.lines.length} rows`);
    }
  }
}
console.log(`(${snapshots} snapshots checked)`);

// ---------------------------------------------------------------------------------------
// 2. Values listed in INDEX.md.

const duck = (p) => path.join(fixtures, 'duckdb-iceberg', 'data', 'persistent', p);
const duckBase = ['--base', path.join(fixtures, 'duckdb-iceberg')];
const cxx = (p) => path.join(cxxTables, p);

const valueCases = [
  ['equality_deletes/mytable', duck('equality_deletes/warehouse/mydb/mytable'), duckBase,
   ['4,d,2025-01-04', '5,e,2025-01-05']],
  ['equality_deletes/mytable_partitioned', duck('equality_deletes/warehouse/mydb/mytable_partitioned'),
   duckBase, ['1,a,2025-01-01', '4,d,2025-01-04', '5,e,2025-01-05']],
  ['equality_delete_cross_partition', duck('equality_delete_cross_partition/warehouse/ns/t/metadata/vfinal.metadata.json'),
   duckBase, ['0,999,p0-k999', '1,100,p1-k100', '1,888,p1-k888']],
  ['equality_delete_extra_column', duck('equality_delete_extra_column/warehouse/ns/t/metadata/vfinal.metadata.json'),
   duckBase, ['1,a', '3,c']],
  ['iceberg_v1_deprecated legacy_v1', duck('iceberg_v1_deprecated/default/legacy_v1/metadata/v2.metadata.json'),
   duckBase, ['1,alpha,10', '2,beta,20', '3,alpha,']],
  ['hive_partitioned_table', duck('hive_partitioned_table'), duckBase,
   ['2024-01-01,12345,click', '2024-01-02,67890,purchase', '2024-01-03,24680,click',
    '2024-01-03,13579,view', '2024-01-04,97531,purchase', '2024-01-04,86420,view']],
  ['partition_time', duck('partition_time/default.db/partition_time'), duckBase,
   ['12:34:56,12345,click', '08:21:09,67890,purchase']],
  ['partition_bigint', duck('partition_bigint'), duckBase,
   ['-9223372036854775808,67890,purchase', '9223372036854775807,12345,click']],
  ['partition_binary', duck('partition_binary'), duckBase,
   ['\\xaabbcc,67890,purchase', '\\x010203,12345,click']],
  ['map_stats', duck('map_stats/default.db/map_stats'), duckBase,
   ['2026-01-01 00:00:00+00,hello,world,{key=>value1}', '2026-01-02 00:00:00+00,hello,world,{key=>value1}']],
  ['column_mapping', duck('column_mapping/warehouse/default.db/my_table'), duckBase,
   ['1,Alice,25,"{height=>5.5,weight=>130}","{85,90}","(alice@example.com,t)"',
    '2,Bob,30,"{height=>6.0,weight=>180}","{78,82,88}","(bob@example.com,f)"',
    '3,Charlie,35,"{height=>5.8,weight=>160}",{92},"(charlie@example.com,t)"']],
  ['deletion_vectors', cxx('deletion_vectors'), cxxMap,
   ['2,2314', '5,12831', '8,12318231', '9,999', '11,11', '12,1212', '14,91121', '15,182222']],
  ['identity_partitioning', cxx('identity_partitioning'), cxxMap,
   ['f,1,2,2.25,2.375,3.00,2025-03-03,17:00:00,2025-03-03 00:00:00,2025-03-03 00:00:00+00,' +
    'some-string,12151fd2-7586-11e9-8f9e-2a86e4085a59,\\x736f6d652d76617262696e617279']],
  ['types/all_trino_types', cxx('types/all_trino_types'), cxxMap,
   ['1,t,42,9223372036854775807,3.14,2.718281828459045,123456.78901,2025-04-05,12:34:56.123456,' +
    '2025-04-05 12:34:56.123456,2025-04-05 12:34:56.123456+00,Hello Iceberg,' +
    '550e8400-e29b-41d4-a716-446655440000,\\xdeadbeef,"{1.1,2.2,3.3}"']],
  ['types/unsupported_types', cxx('types/unsupported_types'), cxxMap,
   ['"{key1=>1,key2=>2}","(42,nested_value)"']],
  ['day_timestamptz_partitioning', cxx('day_timestamptz_partitioning'), cxxMap,
   ['1,2025-03-03 23:00:00+00,0', '2,2024-03-03 23:52:00+00,0', '3,,0']],
];

for (const [name, table, args, want] of valueCases) {
  const r = scan(table, ['--format', 'csv', ...args]);
  if (r.error) {
    report.fail(`values ${name}`, r.error);
    continue;
  }
  const got = r.lines.slice(1).sort();
  const exp = [...want].sort();
  if (JSON.stringify(got) === JSON.stringify(exp)) {
    report.pass(`values ${name}`, `${got.length} rows`);
  } else {
    report.fail(`values ${name}`, `got ${show(got, 2000)}\nexpected ${show(exp, 2000)}`);
  }
}

// name_mapping v7: column b was dropped (id 2) and re-added (id 3); files carry no field
// ids, so the name mapping decides: every b is NULL, the old values never appear.
{
  const r = scan(duck('name_mapping/warehouse_1/mydb/t1/metadata/v7.metadata.json'),
                 ['--format', 'jsonl', '--columns', 'b', ...duckBase]);
  if (r.error) {
    report.fail('values name_mapping b is null', r.error);
  } else {
    const nonNull = r.lines.filter((l) => parseJson(l).b !== null).length;
    if (r.lines.length === 10000 && nonNull === 0) {
      report.pass('values name_mapping b is null', '10000 rows, all NULL');
    } else {
      report.fail('values name_mapping b is null', `${r.lines.length} rows, ${nonNull} non-NULL`);
    }
  }
}

// ---------------------------------------------------------------------------------------
// 3. generated_spec1/2 against their committed expected results, read by DuckDB.

const db = await openDuckDB();
for (const spec of ['generated_spec1_0_001', 'generated_spec2_0_001']) {
  const name = `expected_results ${spec}`;
  const root = path.join(fixtures, 'duckdb-iceberg-2024', 'data', 'iceberg', spec);
  const r = scan(path.join(root, 'pyspark_iceberg_table'),
                 ['--format', 'jsonl', '--base', path.join(fixtures, 'duckdb-iceberg-2024')]);
  if (r.error) {
    report.fail(name, r.error);
    continue;
  }
  const glob = path.join(root, 'expected_results', 'last', 'data', '*.parquet');
  const dk = await db.query(`SELECT * FROM read_parquet(${sqlStr(glob)})`);
  const names = dk.columnNames();
  const types = dk.columnTypes();
  const want = dk.getRows().map((row) => JSON.stringify(row.map((v, c) => canonDuck(db.duck, types[c], v))));
  const got = [];
  let problem = null;
  for (const line of r.lines) {
    const obj = parseJson(line);
    const keys = obj.__keys || Object.keys(obj);
    if (JSON.stringify(keys) !== JSON.stringify(names)) {
      problem = `columns ${show(keys)}, expected ${show(names)}`;
      break;
    }
    got.push(JSON.stringify(names.map((n, c) => canonFloe(db.duck, types[c], obj[n]))));
  }
  if (problem) {
    report.fail(name, problem);
    continue;
  }
  want.sort();
  got.sort();
  const count = Number(fs.readFileSync(path.join(root, 'expected_results', 'last', 'count.csv'), 'utf8')
    .trim().split('\n').pop());
  if (got.length !== count || want.length !== count) {
    report.fail(name, `floe ${got.length} rows, DuckDB ${want.length}, count.csv ${count}`);
    continue;
  }
  const diff = [];
  for (let i = 0; i < want.length && diff.length < 3; i++) {
    if (!canonEqual(JSON.parse(got[i]), JSON.parse(want[i]))) diff.push(`floe ${got[i]}\nDuckDB ${want[i]}`);
  }
  if (diff.length) report.fail(name, diff.join('\n'));
  else report.pass(name, `${got.length} rows equal`);
}
db.conn.closeSync?.();

// ---------------------------------------------------------------------------------------
// 4. `floe iceberg plan --format text` says what `--format json` says: the same counts, the
//    same groups, and the same tasks in the same order (paths, ranges, rows, delete files).

let plans = 0;
for (const t of expected) {
  const table = path.join(fixtures, t.group, t.metadata);
  const short = t.metadata.replace(/\/metadata\/.*$/, '').split('/').slice(-3).join('/');
  const args = ['iceberg', 'plan', table, '--partitions', '3', ...pathArgs(t.group, t.metadata)];
  const text = runFloe(floe, [...args, '--format', 'text']);
  const json = runFloe(floe, [...args, '--format', 'json']);
  const name = `plan text ${short}`;
  if (text.status !== 0 || json.status !== 0) {
    // A table whose current snapshot cannot be planned must fail alike in both forms.
    if (text.status !== 0 && json.status !== 0 && text.stderr === json.stderr) {
      report.pass(name, 'the same error in both forms');
    } else {
      report.fail(name, `text exit ${text.status}, json exit ${json.status}: ${text.stderr}${json.stderr}`);
    }
    continue;
  }
  plans++;
  const plan = parseJson(json.stdout);
  const want = [`snapshot ${plan.snapshot_id === null ? '(none)' : String(plan.snapshot_id)}: ` +
                `${plan.files} files, ${plan.bytes} bytes, ${plan.row_count} rows` +
                `${plan.row_count_exact ? '' : ' (upper bound)'}, ${plan.delete_files} delete files, ` +
                `${plan.groups.length} groups`];
  plan.groups.forEach((g, i) => {
    want.push(`group ${i}: ${g.tasks.length} tasks, ${g.bytes} bytes, ~${g.estimated_rows} rows`);
    for (const task of g.tasks) {
      const deletes = task.deletes.length ? `, ${task.deletes.length} delete files` : '';
      want.push(`  ${task.path} [${task.start}, +${task.length}) ${task.estimated_rows} rows${deletes}`);
    }
  });
  const got = text.stdout.split('\n');
  if (got[got.length - 1] === '') got.pop();
  const at = want.findIndex((line, i) => got[i] !== line);
  if (got.length === want.length && at < 0) {
    report.pass(name, `${want.length} lines`);
  } else {
    const i = at < 0 ? Math.min(got.length, want.length) : at;
    report.fail(name, `line ${i + 1}: text ${show(got[i])}, json says ${show(want[i])}`);
  }
}
console.log(`(${plans} plans compared)`);
report.finish();
