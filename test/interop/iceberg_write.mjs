// The Iceberg write commands end to end, with DuckDB as the peer: namespaces and tables
// created through a SQLite catalog; Parquet files written by DuckDB appended into a
// partitioned table (day(ts), bucket(4, id)) and into an unpartitioned table of every type
// DuckDB and Iceberg share; `floe iceberg scan` returns exactly DuckDB's rows; DuckDB reads
// every data file the table lists and their union is the input (and each partitioned file
// holds one day); add-files of DuckDB files; rejected input (a schema mismatch in
// add-files, a NULL in a required column, a file spanning partitions) adds no snapshot and
// leaves no data file; writes to a dropped table fail; expire-snapshots --retain-last 1
// removes the old snapshots' manifest lists while the rows stay.
//
// usage: node test/interop/iceberg_write.mjs PATH_TO_FLOE

import fs from 'node:fs';
import path from 'node:path';

import { floeFromArgs, makeTempDir, openDuckDB, Reporter, runFloe, sqlStr } from './lib/common.mjs';
import { canonDuckRows, canonScanRows, catalogArgs, dataFiles, diffRows, filesUnder, floeOk,
         snapshotIds, tableInfo } from './lib/iceberg_catalog.mjs';

const floe = floeFromArgs('test/interop/iceberg_write.mjs');
const report = new Reporter('iceberg write');
const { dir, cleanup } = makeTempDir('iceberg-write');
process.on('exit', cleanup);

const catalog = catalogArgs(dir);
const { duck, query } = await openDuckDB();

async function step(name, fn) {
  try {
    const note = await fn();
    report.pass(name, note || '');
  } catch (e) {
    report.fail(name, e.stack || e.message);
  }
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

/// Writes a DuckDB query's rows to a Parquet file in the temp dir; returns its path.
async function writeParquet(name, sql) {
  const file = path.join(dir, 'input', `${name}.parquet`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await query(`COPY (${sql}) TO ${sqlStr(file)} (FORMAT parquet)`);
  return file;
}

/// DuckDB's canonical rows and column names/types of Parquet files read together.
async function duckRows(files) {
  const list = `[${files.map(sqlStr).join(', ')}]`;
  const r = await query(`SELECT * FROM read_parquet(${list}, hive_partitioning = false)`);
  return { rows: canonDuckRows(duck, r), names: r.columnNames(), types: r.columnTypes() };
}

function expectFailure(args, pattern) {
  const r = runFloe(floe, args);
  expect(r.status === 1, `floe ${args.join(' ')} exited with ${r.status}, expected 1; ` +
                         `stderr: ${r.stderr.trim()}`);
  const lines = r.stderr.trim().split('\n');
  expect(lines.length === 1 && lines[0].startsWith('floe: '),
         `stderr is not one 'floe: ' line: ${JSON.stringify(r.stderr)}`);
  expect(pattern.test(lines[0]), `stderr ${JSON.stringify(lines[0])} does not match ${pattern}`);
  return lines[0];
}

const events = 'db.events';
const allTypesSchema =
    'b boolean, i int not null, l bigint, f float, d double, dec decimal(9, 2), ' +
    'wide decimal(38, 10), dt date, tm time, ts timestamp, tstz timestamptz, ' +
    's string, bin binary, u uuid, li list<int>, st struct<a: int, b: string>, ' +
    'm map<string, bigint>';
const eventsDir = path.join(dir, 'warehouse', 'db', 'events');
const eventsInputs = [];

await step('create namespace and list', () => {
  floeOk(floe, ['iceberg', 'create-namespace', ...catalog, 'db', '--property', 'owner=test']);
  floeOk(floe, ['iceberg', 'create-namespace', ...catalog, 'db.sub']);
  const top = floeOk(floe, ['iceberg', 'list', ...catalog]);
  expect(top === 'db\n', `list printed ${JSON.stringify(top)}`);
  const again = runFloe(floe, ['iceberg', 'create-namespace', ...catalog, 'db']);
  expect(again.status === 1, `creating db twice exited with ${again.status}`);
});

await step('create a partitioned table', () => {
  const out = floeOk(floe, ['iceberg', 'create', ...catalog, events, '--schema',
                            'id bigint not null, ts timestamptz, kind string',
                            '--partition', 'day(ts), bucket(4, id)', '--property',
                            'write.parquet.compression-codec=snappy']);
  expect(out.trim() === `created ${events} at ${eventsDir}`, `create printed ${out}`);
  const { json } = tableInfo(floe, catalog, events);
  expect(json.partition === 'day(ts), bucket(4, id)', `partition ${json.partition}`);
  expect(json.snapshots.length === 0, 'a new table has snapshots');
  const list = floeOk(floe, ['iceberg', 'list', ...catalog, 'db']);
  expect(list === 'db.sub\ndb.events\n', `list db printed ${JSON.stringify(list)}`);
});

await step('append DuckDB files into the partitioned table', async () => {
  eventsInputs.push(await writeParquet('events1', `
    SELECT i::BIGINT AS id,
           CASE WHEN i % 97 = 0 THEN NULL
                ELSE TIMESTAMPTZ '2024-03-01 00:00:00+00' + to_minutes(i * 7) END AS ts,
           CASE WHEN i % 5 = 0 THEN NULL ELSE 'kind' || (i % 7) END AS kind
    FROM range(4000) t(i)`));
  // Columns in another order and case; no 'kind' column (optional: NULL).
  eventsInputs.push(await writeParquet('events2', `
    SELECT TIMESTAMPTZ '2024-02-27 12:00:00+00' + to_seconds(i * 301) AS "TS", (100000 + i)::BIGINT AS ID
    FROM range(1500) t(i)`));
  const out = floeOk(floe, ['iceberg', 'append', ...catalog, events, ...eventsInputs]);
  const m = /^appended 5500 rows in (\d+) files \(snapshot (-?\d+)\)\n$/.exec(out);
  expect(m, `append printed ${JSON.stringify(out)}`);
  const ids = snapshotIds(floe, catalog, events);
  expect(ids.length === 1 && ids[0] === m[2], `snapshots ${ids}, printed ${m[2]}`);
  return `${m[1]} files`;
});

async function eventsExpected() {
  const list = `[${eventsInputs.map(sqlStr).join(', ')}]`;
  const r = await query(`SELECT id, ts, kind FROM read_parquet(${list}, union_by_name = true,
                                                               hive_partitioning = false)`);
  return { rows: canonDuckRows(duck, r), names: r.columnNames(), types: r.columnTypes() };
}

await step('scan --format jsonl returns the input rows', async () => {
  const want = await eventsExpected();
  const got = canonScanRows(duck, floe, catalog, events, want.names, want.types);
  const d = diffRows(got, want.rows);
  expect(d === null, d);
  return `${got.length} rows`;
});

await step('scan --format csv returns the input ids', async () => {
  const out = floeOk(floe, ['iceberg', 'scan', ...catalog, events, '--format', 'csv']);
  const lines = out.split('\n').filter((l) => l !== '');
  expect(lines[0] === 'id,ts,kind', `header ${lines[0]}`);
  const got = lines.slice(1).map((l) => BigInt(l.split(',')[0])).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const r = await query(`SELECT id FROM read_parquet([${eventsInputs.map(sqlStr).join(', ')}],
                                                     union_by_name = true) ORDER BY id`);
  const want = r.getRows().map((row) => BigInt(row[0]));
  expect(got.length === want.length && got.every((v, i) => v === want[i]),
         `csv ids differ: ${got.length} vs ${want.length}`);
});

await step('DuckDB reads every data file; the union is the input; one day per file', async () => {
  const files = dataFiles(floe, catalog, events);
  const onDisk = filesUnder(path.join(eventsDir, 'data'), '.parquet');
  expect(files.join('\n') === onDisk.join('\n'),
         `plan lists ${files.length} files, the data dir holds ${onDisk.length}`);
  for (const f of files) {
    const m = /\/ts_day=([^/]+)\/id_bucket=([0-3])\/[^/]+\.parquet$/.exec(f);
    expect(m, `data file path ${f} is not <data>/ts_day=.../id_bucket=N/...`);
    const r = await query(`SELECT DISTINCT CAST(ts AT TIME ZONE 'UTC' AS DATE)::VARCHAR
                           FROM read_parquet(${sqlStr(f)}, hive_partitioning = false)`);
    const days = r.getRows().map((row) => (row[0] === null ? 'null' : String(row[0])));
    expect(days.length === 1 && days[0] === m[1], `${f} holds days ${days}`);
  }
  const want = await eventsExpected();
  const list = `[${files.map(sqlStr).join(', ')}]`;
  const r = await query(`SELECT id, ts, kind FROM read_parquet(${list}, hive_partitioning = false)`);
  const d = diffRows(canonDuckRows(duck, r), want.rows);
  expect(d === null, d);
  return `${files.length} files`;
});

await step('add-files registers a DuckDB file in one partition', async () => {
  const file = await writeParquet('add_events', `
    SELECT 7::BIGINT AS id, TIMESTAMPTZ '2024-03-05 00:00:00+00' + to_minutes(i) AS ts,
           'added' AS kind FROM range(50) t(i)`);
  const before = snapshotIds(floe, catalog, events);
  const out = floeOk(floe, ['iceberg', 'add-files', ...catalog, events, file]);
  expect(/^added 1 files with 50 rows \(snapshot -?\d+\)\n$/.test(out), `add-files printed ${out}`);
  // The file has no field ids: the table got a name mapping in the same (single) commit.
  const { json } = tableInfo(floe, catalog, events);
  expect(json.snapshots.length === before.length + 1, `${json.snapshots.length} snapshots`);
  expect(JSON.parse(json.properties['schema.name-mapping.default'])[0].names[0] === 'id',
         'no name mapping');
  eventsInputs.push(file);
  const want = await eventsExpected();
  const got = canonScanRows(duck, floe, catalog, events, want.names, want.types);
  const d = diffRows(got, want.rows);
  expect(d === null, d);
  expect(dataFiles(floe, catalog, events).includes(file), 'the added file is not listed');
  // The pruning of a filtered read relies on the file's partition and metrics: the plan of
  // the added file's snapshot lists it with its row count.
  const plan = JSON.parse(floeOk(floe, ['iceberg', 'plan', ...catalog, events, '--format', 'json']));
  const task = plan.groups.flatMap((g) => g.tasks).find((t) => t.path === file);
  expect(task && task.record_count === 50, `plan entry ${JSON.stringify(task)}`);
});

await step('rejected add-files and appends add no snapshot and leave no data file', async () => {
  const before = snapshotIds(floe, catalog, events);
  const filesBefore = filesUnder(path.join(eventsDir, 'data'), '.parquet');
  const wrongType = await writeParquet('wrong_type', `SELECT 'x' AS id, 'k' AS kind`);
  expectFailure(['iceberg', 'add-files', ...catalog, events, wrongType],
                /wrong_type\.parquet.*column 'id' is string in the file but int64/);
  const unknown = await writeParquet('unknown_col', `SELECT 1::BIGINT AS id, 2 AS extra`);
  expectFailure(['iceberg', 'add-files', ...catalog, events, unknown],
                /unknown_col\.parquet.*'extra'.*not a column/);
  const spans = await writeParquet('spans', `
    SELECT 7::BIGINT AS id, TIMESTAMPTZ '2024-03-05 00:00:00+00' + to_hours(i) AS ts
    FROM range(30) t(i)`);
  expectFailure(['iceberg', 'add-files', ...catalog, events, spans],
                /spans\.parquet.*'ts'.*partition field 'ts_day'/);
  // A good file together with a bad one: nothing is committed.
  const good = await writeParquet('good_with_bad', `SELECT 8::BIGINT AS id`);
  expectFailure(['iceberg', 'add-files', ...catalog, events, good, wrongType], /wrong_type/);
  const nullId = await writeParquet('null_id', `
    SELECT CASE WHEN i = 1234 THEN NULL ELSE i END::BIGINT AS id,
           TIMESTAMPTZ '2024-03-01 00:00:00+00' + to_minutes(i) AS ts FROM range(3000) t(i)`);
  expectFailure(['iceberg', 'append', ...catalog, events, nullId], /NULL value in required column 'id'/);
  expectFailure(['iceberg', 'add-files', ...catalog, events, nullId], /null_id.*'id'.*NULL/);
  const noId = await writeParquet('no_id', `SELECT 'k' AS kind`);
  expectFailure(['iceberg', 'append', ...catalog, events, noId], /no_id\.parquet.*'id'/);
  const after = snapshotIds(floe, catalog, events);
  expect(after.join() === before.join(), `snapshots changed: ${before} -> ${after}`);
  const filesAfter = filesUnder(path.join(eventsDir, 'data'), '.parquet');
  expect(filesAfter.join() === filesBefore.join(),
         `data files changed: ${filesBefore.length} -> ${filesAfter.length}`);
});

await step('a failed append deletes the files it wrote, closed ones too', async () => {
  // Small target files: the writer closes files while the first input is written, before
  // the second input fails.
  floeOk(floe, ['iceberg', 'create', ...catalog, 'db.rolling', '--schema',
                'id bigint not null, ts timestamptz, kind string', '--partition', 'day(ts)',
                '--property', 'write.target-file-size-bytes=4096',
                '--property', 'write.parquet.row-group-size-bytes=4096']);
  const rollingData = path.join(dir, 'warehouse', 'db', 'rolling', 'data');
  const big = await writeParquet('rolling_good', `
    SELECT i::BIGINT AS id, TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(i * 3) AS ts,
           md5(i::VARCHAR) AS kind FROM range(60000) t(i)`);
  const bad = path.join(dir, 'input', 'null_id.parquet');
  expectFailure(['iceberg', 'append', ...catalog, 'db.rolling', big, bad],
                /null_id\.parquet.*NULL value in required column 'id'/);
  expect(filesUnder(rollingData, '.parquet').length === 0,
         `${filesUnder(rollingData, '.parquet').length} data files left behind`);
  // Clustered writes need input grouped by partition; this input comes in day order, the
  // reverse of it does not.
  const out = floeOk(floe, ['iceberg', 'append', ...catalog, 'db.rolling', big, '--no-fanout']);
  const m = /^appended 60000 rows in (\d+) files/.exec(out);
  expect(m && Number(m[1]) > 3, `append printed ${out}`);
  const reversed = await writeParquet('rolling_reversed', `
    SELECT i::BIGINT AS id, TIMESTAMPTZ '2024-03-01 00:00:00+00' - to_hours(i) AS ts,
           'r' AS kind FROM range(200) t(i)
    UNION ALL SELECT 0::BIGINT, TIMESTAMPTZ '2024-03-01 00:00:00+00', 'again'`);
  const files = filesUnder(rollingData, '.parquet');
  expectFailure(['iceberg', 'append', ...catalog, 'db.rolling', reversed, '--no-fanout'],
                /ts_day=2024-03-01/);
  expect(filesUnder(rollingData, '.parquet').join() === files.join(),
         'the failed clustered append left files');
  expect(snapshotIds(floe, catalog, 'db.rolling').length === 1, 'snapshot count');
});

await step('bad input and usage errors are one clear line', async () => {
  const truncated = path.join(dir, 'input', 'truncated.parquet');
  const whole = fs.readFileSync(path.join(dir, 'input', 'events1.parquet'));
  fs.writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
  expectFailure(['iceberg', 'append', ...catalog, events, truncated], /truncated\.parquet/);
  expectFailure(['iceberg', 'add-files', ...catalog, events, truncated], /truncated\.parquet/);
  expectFailure(['iceberg', 'append', ...catalog, events, path.join(dir, 'missing.parquet')],
                /missing\.parquet/);
  expectFailure(['iceberg', 'create', ...catalog, 'db.bad', '--schema', 'id bigint, ts nosuchtype'],
                /nosuchtype/);
  expectFailure(['iceberg', 'create', ...catalog, 'db.bad', '--schema', 'id bigint',
                 '--partition', 'day(nope)'], /nope/);
  expectFailure(['iceberg', 'create', ...catalog, 'nons.t', '--schema', 'id bigint'], /nons/);
  expectFailure(['iceberg', 'create', ...catalog, events, '--schema', 'id bigint'], /db\.events/);
  expectFailure(['iceberg', 'scan', '--catalog', 'postgres://x/y', events], /postgres/);
  expectFailure(['iceberg', 'list', ...catalog, 'nosuch'], /nosuch/);
  expectFailure(['iceberg', 'expire-snapshots', ...catalog, events, '--older-than', 'yesterday'],
                /yesterday/);
});

await step('every shared type round-trips through an unpartitioned table', async () => {
  floeOk(floe, ['iceberg', 'create', ...catalog, 'db.sub.all_types', '--schema', allTypesSchema]);
  const file = await writeParquet('all_types', `
    SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
           i::INTEGER AS i,
           CASE WHEN i % 4 = 0 THEN NULL ELSE i * 1000000007 END::BIGINT AS l,
           (i / 8.0)::FLOAT AS f,
           CASE WHEN i % 11 = 0 THEN NULL ELSE i / 3.0 END::DOUBLE AS d,
           (i * 1.25)::DECIMAL(9, 2) AS dec,
           (i * 123456789.0123456789)::DECIMAL(38, 10) AS wide,
           DATE '2000-01-01' + i::INTEGER AS dt,
           TIME '00:00:00' + to_microseconds(i * 1000003) AS tm,
           TIMESTAMP '2020-02-29 12:00:00' + to_microseconds(i * 987654321) AS ts,
           TIMESTAMPTZ '1969-12-31 23:00:00+00' + to_seconds(i * 3601) AS tstz,
           CASE WHEN i % 6 = 0 THEN NULL ELSE 'str ' || i || ' ü' END AS s,
           ('\\x' || lpad(printf('%x', i), 4, '0'))::BLOB AS bin,
           ('00000000-0000-4000-8000-' || lpad(printf('%x', i), 12, '0'))::UUID AS u,
           CASE WHEN i % 5 = 0 THEN NULL ELSE [i::INTEGER, NULL, (i + 1)::INTEGER] END AS li,
           CASE WHEN i % 7 = 0 THEN NULL ELSE {'a': i::INTEGER, 'b': 'v' || i} END AS st,
           CASE WHEN i % 9 = 0 THEN NULL ELSE MAP {'k' || i: i::BIGINT} END AS m
    FROM range(700) t(i)`);
  const out = floeOk(floe, ['iceberg', 'append', ...catalog, 'db.sub.all_types', file, '--no-fanout']);
  expect(/^appended 700 rows in 1 files/.test(out), `append printed ${out}`);
  const want = await duckRows([file]);
  const got = canonScanRows(duck, floe, catalog, 'db.sub.all_types', want.names, want.types);
  const d = diffRows(got, want.rows);
  expect(d === null, d);
  const files = dataFiles(floe, catalog, 'db.sub.all_types');
  const back = await duckRows(files);
  const d2 = diffRows(back.rows, want.rows);
  expect(d2 === null, `DuckDB reading floe's data file: ${d2}`);
});

/// The plan JSON entry of each data file of a table, by path.
function fileDetails(table) {
  const plan = JSON.parse(floeOk(floe, ['iceberg', 'plan', ...catalog, table, '--format', 'json']));
  return new Map(plan.groups.flatMap((g) => g.tasks).map((t) => [t.path, t]));
}

/// Compares the partition and metrics add-files derived from a DuckDB file's footer with
/// those floe's writer recorded for the same rows (appended into a twin table); `skip`
/// names columns left out of the comparison of `what`.
function compareMetrics(added, written, skip = {}) {
  const problems = [];
  for (const what of ['partition', 'value_counts', 'null_value_counts', 'lower_bounds',
                      'upper_bounds']) {
    const a = { ...added[what] };
    const w = { ...written[what] };
    for (const c of skip[what] || []) {
      delete a[c];
      delete w[c];
    }
    if (JSON.stringify(a, Object.keys(a).sort()) !== JSON.stringify(w, Object.keys(w).sort())) {
      problems.push(`${what}: add-files ${JSON.stringify(a)}, writer ${JSON.stringify(w)}`);
    }
  }
  return problems;
}

await step('add-files metrics and partition equal the writer\'s for the same rows', async () => {
  const schema = 'id bigint not null, ts timestamptz, kind string';
  floeOk(floe, ['iceberg', 'create', ...catalog, 'db.added', '--schema', schema,
                '--partition', 'day(ts), bucket(4, id)']);
  floeOk(floe, ['iceberg', 'create', ...catalog, 'db.written', '--schema', schema,
                '--partition', 'day(ts), bucket(4, id)']);
  const file = await writeParquet('metrics_events', `
    SELECT 11::BIGINT AS id, TIMESTAMPTZ '2024-05-06 01:02:03.456789+00' + to_seconds(i * 7) AS ts,
           CASE WHEN i % 3 = 0 THEN NULL ELSE 'k' || (i * 37 % 1000) END AS kind
    FROM range(300) t(i)`);
  floeOk(floe, ['iceberg', 'add-files', ...catalog, 'db.added', file]);
  floeOk(floe, ['iceberg', 'append', ...catalog, 'db.written', file]);
  const added = [...fileDetails('db.added').values()];
  const written = [...fileDetails('db.written').values()];
  expect(added.length === 1 && written.length === 1,
         `${added.length} added and ${written.length} written files`);
  expect(added[0].partition.ts_day === '2024-05-06', `partition ${JSON.stringify(added[0].partition)}`);
  const problems = compareMetrics(added[0], written[0]);
  expect(problems.length === 0, problems.join('\n'));
  // Strings longer than the truncate(16) default: the lower bound is cut, the upper bound is
  // cut and its last character incremented (the spec's rule, as the data-file writer does).
  const long = await writeParquet('long_strings', `
    SELECT 12::BIGINT AS id, TIMESTAMPTZ '2024-05-07 00:00:00+00' AS ts,
           'abcdefghijklmnopqrstuvwxyz-' || i AS kind FROM range(5) t(i)`);
  floeOk(floe, ['iceberg', 'add-files', ...catalog, 'db.added', long]);
  const entry = fileDetails('db.added').get(long);
  expect(entry.lower_bounds.kind === 'abcdefghijklmnop', `lower ${entry.lower_bounds.kind}`);
  expect(entry.upper_bounds.kind === 'abcdefghijklmnoq', `upper ${entry.upper_bounds.kind}`);
});

await step('add-files metrics of every shared type equal the writer\'s', async () => {
  const file = path.join(dir, 'input', 'all_types.parquet');
  floeOk(floe, ['iceberg', 'create', ...catalog, 'db.sub.all_added', '--schema', allTypesSchema]);
  floeOk(floe, ['iceberg', 'add-files', ...catalog, 'db.sub.all_added', file]);
  const added = [...fileDetails('db.sub.all_added').values()];
  const written = [...fileDetails('db.sub.all_types').values()];
  expect(added.length === 1 && written.length === 1, 'one file each');
  // Float columns: DuckDB's footers do not count NaNs, so add-files records no bounds for
  // them (a reader could not tell that a NaN may be present).
  const skip = { lower_bounds: ['f', 'd'], upper_bounds: ['f', 'd'] };
  const problems = compareMetrics(added[0], written[0], skip);
  expect(!('f' in added[0].lower_bounds), 'a float column without NaN counts got bounds');
  expect(problems.length === 0, problems.join('\n'));
  const want = await duckRows([file]);
  const got = canonScanRows(duck, floe, catalog, 'db.sub.all_added', want.names, want.types);
  const d = diffRows(got, want.rows);
  expect(d === null, d);
});

await step('add-files into a table with field ids from another table\'s data file', async () => {
  // floe's own data files carry field ids: registering one in a table of the same schema
  // matches columns by id.
  floeOk(floe, ['iceberg', 'create', ...catalog, 'db.copy', '--schema',
                'id bigint not null, ts timestamptz, kind string']);
  const source = dataFiles(floe, catalog, events).filter((f) => !f.includes('/input/'))[0];
  const out = floeOk(floe, ['iceberg', 'add-files', ...catalog, 'db.copy', source]);
  expect(/^added 1 files/.test(out), out);
  const r = await query(`SELECT id, ts, kind FROM read_parquet(${sqlStr(source)},
                                                               hive_partitioning = false)`);
  const want = canonDuckRows(duck, r);
  const got = canonScanRows(duck, floe, catalog, 'db.copy', r.columnNames(), r.columnTypes());
  const d = diffRows(got, want);
  expect(d === null, d);
  const { json } = tableInfo(floe, catalog, 'db.copy');
  expect(!('schema.name-mapping.default' in json.properties),
         'a name mapping was added for a file with field ids');
});

await step('writes to a dropped table fail', async () => {
  floeOk(floe, ['iceberg', 'create', ...catalog, 'db.gone', '--schema', 'id bigint']);
  const file = await writeParquet('gone', 'SELECT 1::BIGINT AS id');
  floeOk(floe, ['iceberg', 'append', ...catalog, 'db.gone', file]);
  floeOk(floe, ['iceberg', 'drop', ...catalog, 'db.gone']);
  expectFailure(['iceberg', 'append', ...catalog, 'db.gone', file], /db\.gone/);
  expectFailure(['iceberg', 'add-files', ...catalog, 'db.gone', file], /db\.gone/);
  expectFailure(['iceberg', 'scan', ...catalog, 'db.gone'], /db\.gone/);
});

await step('expire-snapshots --retain-last 1 removes old manifest lists, keeps the rows', async () => {
  floeOk(floe, ['iceberg', 'create', ...catalog, 'db.exp', '--schema', 'id bigint, v string',
                '--partition', 'bucket(2, id)']);
  const inputs = [];
  for (let k = 0; k < 3; k++) {
    inputs.push(await writeParquet(`exp${k}`, `SELECT (i + ${k * 1000})::BIGINT AS id,
                                                      'v' || i AS v FROM range(200) t(i)`));
    floeOk(floe, ['iceberg', 'append', ...catalog, 'db.exp', inputs[k]]);
  }
  const before = tableInfo(floe, catalog, 'db.exp').json;
  expect(before.snapshots.length === 3, `${before.snapshots.length} snapshots`);
  const lists = before.snapshots.map((s) => s.manifest_list);
  expect(lists.every((l) => fs.existsSync(l)), 'a manifest list is missing before expiry');
  const out = floeOk(floe, ['iceberg', 'expire-snapshots', ...catalog, 'db.exp', '--older-than',
                            String(Date.now() + 60000), '--retain-last', '1']);
  expect(/^expired 2 snapshots/.test(out), `expire printed ${out}`);
  const after = tableInfo(floe, catalog, 'db.exp').json;
  expect(after.snapshots.length === 1, `${after.snapshots.length} snapshots after expiry`);
  expect(after.snapshots[0].snapshot_id.toString() === before.current_snapshot_id.toString(),
         'the current snapshot was expired');
  expect(!fs.existsSync(lists[0]) && !fs.existsSync(lists[1]), 'old manifest lists remain');
  expect(fs.existsSync(lists[2]), 'the current manifest list was deleted');
  const want = await duckRows(inputs);
  const got = canonScanRows(duck, floe, catalog, 'db.exp', want.names, want.types);
  const d = diffRows(got, want.rows);
  expect(d === null, d);
});

report.finish();
