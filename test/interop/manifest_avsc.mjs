// Iceberg manifests and manifest lists written by floe, read by npm `avsc` (from .deps/node,
// installed by scripts/install-deps): floe_manifest_tool (src/floe/iceberg/tests) writes a
// v1 and a v2 manifest with their lists; avsc must decode them, the header schemas must
// carry the spec's field ids (field-id on every manifest_entry, data_file, partition and
// manifest_file field; element-id on lists; key/value field ids in the k<id>_v<id> map
// records), the header metadata must be Iceberg's, and every value must be exact.
//
// usage: node test/interop/manifest_avsc.mjs PATH_TO_FLOE_MANIFEST_TOOL

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { decodeAvroFile, loadAvsc } from './lib/avsc.mjs';
import { makeTempDir, Reporter } from './lib/common.mjs';

const tool = process.argv[2];
if (!tool) {
  console.error('usage: node test/interop/manifest_avsc.mjs PATH_TO_FLOE_MANIFEST_TOOL');
  process.exit(2);
}
const avsc = loadAvsc();
const { avro, parseHook } = avsc;

const report = new Reporter('manifest avsc interop');
const { dir, cleanup } = makeTempDir('manifest');
process.on('exit', cleanup);

const decodeFile = (file) => decodeAvroFile(avsc, file);

// JSON with BigInt as "<n>n" and Buffers as hex, for exact comparison and readable output.
function canon(v) {
  return JSON.stringify(v, function (k, x) {
    if (typeof x === 'bigint') return `${x}n`;
    const raw = this[k];
    if (Buffer.isBuffer(raw)) return `0x${raw.toString('hex')}`;
    return x;
  });
}

function check(name, got, want) {
  if (canon(got) === canon(want)) return true;
  report.fail(name, `got  ${canon(got)}\nwant ${canon(want)}`);
  return false;
}

const le32 = (v) => { const b = Buffer.alloc(4); b.writeInt32LE(v); return b; };
const le64 = (v) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(v)); return b; };

const w = spawnSync(tool, ['write', dir], { encoding: 'utf8' });
if (w.status !== 0) {
  report.fail('floe_manifest_tool write', w.stderr || w.error);
  report.finish();
}

// The record of a union ["null", T] or T itself.
const nonNull = (t) => (Array.isArray(t) ? t.find((b) => b !== 'null') : t);
const byName = (fields) => Object.fromEntries(fields.map((f) => [f.name, f]));

function dataFileWant(version, name, day, bucket, s, rows) {
  const file = {
    ...(version >= 2 ? { content: 0 } : {}),
    file_path: `s3://bucket/t/data/${name}`,
    file_format: 'PARQUET',
    partition: { ts_day: day, id_bucket: bucket, s },
    record_count: BigInt(rows),
    file_size_in_bytes: BigInt(rows * 100),
    ...(version === 1 ? { block_size_in_bytes: 67108864n } : {}),
    column_sizes: [{ key: 1, value: BigInt(rows * 10) }, { key: 2, value: BigInt(rows * 20) }],
    value_counts: [{ key: 1, value: BigInt(rows) }, { key: 2, value: BigInt(rows) }],
    null_value_counts: [{ key: 1, value: 0n }, { key: 2, value: 1n }],
    nan_value_counts: null,
    lower_bounds: [{ key: 1, value: le64(1) }],
    upper_bounds: [{ key: 1, value: le64(rows) }],
    key_metadata: null,
    split_offsets: [4n],
    ...(version >= 2 ? { equality_ids: null } : {}),
    sort_order_id: 0,
    ...(version >= 2 ? { referenced_data_file: null } : {}),
  };
  return file;
}

for (const version of [1, 2]) {
  const mname = `manifest v${version}`;
  const manifestPath = path.join(dir, `manifest-v${version}.avro`);
  let decoded;
  try {
    decoded = await decodeFile(manifestPath);
  } catch (e) {
    report.fail(mname, e.stack);
    continue;
  }
  const { header, records } = decoded;
  const meta = (k) => header.meta[k]?.toString();
  const schema = JSON.parse(meta('avro.schema'));
  const top = byName(schema.fields);
  const df = top.data_file.type;
  const dff = byName(df.fields);
  const part = dff.partition.type;
  const v1 = version === 1;
  let ok =
    check(`${mname} codec`, header.codec, v1 ? 'null' : 'deflate') &&
    check(`${mname} header`, [meta('format-version'), meta('partition-spec-id'), meta('content') ?? null,
                              meta('schema-id')],
          [`${version}`, '0', v1 ? null : 'data', '0']) &&
    check(`${mname} partition-spec`,
          JSON.parse(meta('partition-spec')).map((f) => [f.name, f.transform, f['source-id'], f['field-id']]), [
            ['ts_day', 'day', 2, 1000], ['id_bucket', 'bucket[16]', 1, 1001], ['s', 'identity', 3, 1002]]) &&
    check(`${mname} table schema`, JSON.parse(meta('schema')).fields.map((f) => [f.id, f.name, f.required, f.type]),
          [[1, 'id', true, 'long'], [2, 'ts', false, 'timestamptz'], [3, 's', false, 'string']]) &&
    check(`${mname} record`, schema.name, 'manifest_entry') &&
    check(`${mname} entry field ids`, schema.fields.map((f) => [f.name, f['field-id']]),
          v1 ? [['status', 0], ['snapshot_id', 1], ['data_file', 2]]
             : [['status', 0], ['snapshot_id', 1], ['sequence_number', 3],
                ['file_sequence_number', 4], ['data_file', 2]]) &&
    check(`${mname} data_file field ids`, [df.name, df.fields.map((f) => f['field-id'])],
          ['r2', v1 ? [100, 101, 102, 103, 104, 105, 108, 109, 110, 137, 125, 128, 131, 132, 140]
                    : [134, 100, 101, 102, 103, 104, 108, 109, 110, 137, 125, 128, 131, 132, 135, 140, 143]]) &&
    check(`${mname} partition record`, [part.name, part.fields.map((f) => [f.name, f['field-id'], nonNull(f.type)])],
          ['r102', [['ts_day', 1000, { type: 'int', logicalType: 'date' }], ['id_bucket', 1001, 'int'],
                    ['s', 1002, 'string']]]);
  if (!ok) continue;
  const maps = [['column_sizes', 117, 118], ['value_counts', 119, 120], ['null_value_counts', 121, 122],
                ['nan_value_counts', 138, 139], ['lower_bounds', 126, 127], ['upper_bounds', 129, 130]];
  for (const [name, k, v] of maps) {
    const t = nonNull(dff[name].type);
    ok = ok && check(`${mname} ${name} map`, [t.type, t.logicalType, t.items.name,
                                             t.items.fields.map((f) => [f.name, f['field-id']])],
                     ['array', 'map', `k${k}_v${v}`, [['key', k], ['value', v]]]);
  }
  ok = ok && check(`${mname} split_offsets element-id`, nonNull(dff.split_offsets.type)['element-id'], 133);
  if (!v1) ok = ok && check(`${mname} equality_ids element-id`, nonNull(dff.equality_ids.type)['element-id'], 136);
  if (!ok) continue;
  const want = [
    { status: 1, snapshot_id: 42n, ...(v1 ? {} : { sequence_number: null, file_sequence_number: null }),
      data_file: dataFileWant(version, 'a.parquet', 19000, 3, 'x', 10) },
    { status: 1, snapshot_id: 42n, ...(v1 ? {} : { sequence_number: 3n, file_sequence_number: null }),
      data_file: dataFileWant(version, 'b.parquet', 19001, 7, null, 20) },
  ];
  if (check(`${mname} values`, records, want)) report.pass(mname, `${records.length} entries`);

  // The manifest list.
  const lname = `manifest list v${version}`;
  try {
    decoded = await decodeFile(path.join(dir, `list-v${version}.avro`));
  } catch (e) {
    report.fail(lname, e.stack);
    continue;
  }
  const list = decoded;
  const lmeta = (k) => list.header.meta[k]?.toString();
  const lschema = JSON.parse(lmeta('avro.schema'));
  const lf = byName(lschema.fields);
  const summary = nonNull(lf.partitions.type);
  ok =
    check(`${lname} header`, [lmeta('snapshot-id'), lmeta('parent-snapshot-id'), lmeta('sequence-number') ?? null,
                              lmeta('format-version')],
          ['42', '41', v1 ? null : '5', `${version}`]) &&
    check(`${lname} record`, lschema.name, 'manifest_file') &&
    check(`${lname} field ids`, lschema.fields.map((f) => [f.name, f['field-id']]), [
      ['manifest_path', 500], ['manifest_length', 501], ['partition_spec_id', 502],
      ...(v1 ? [] : [['content', 517], ['sequence_number', 515], ['min_sequence_number', 516]]),
      ['added_snapshot_id', 503], ['added_files_count', 504], ['existing_files_count', 505],
      ['deleted_files_count', 506], ['added_rows_count', 512], ['existing_rows_count', 513],
      ['deleted_rows_count', 514], ['partitions', 507], ['key_metadata', 519]]) &&
    check(`${lname} field_summary`, [summary['element-id'], summary.items.name,
                                     summary.items.fields.map((f) => [f.name, f['field-id']])],
          [508, 'r508', [['contains_null', 509], ['contains_nan', 518], ['lower_bound', 510], ['upper_bound', 511]]]);
  if (!ok) continue;
  const lwant = [{
    manifest_path: manifestPath,
    manifest_length: BigInt(fs.statSync(manifestPath).size),
    partition_spec_id: 0,
    ...(v1 ? {} : { content: 0, sequence_number: 5n, min_sequence_number: 3n }),
    added_snapshot_id: 42n,
    added_files_count: 2,
    existing_files_count: 0,
    deleted_files_count: 0,
    added_rows_count: 30n,
    existing_rows_count: 0n,
    deleted_rows_count: 0n,
    partitions: [
      { contains_null: false, contains_nan: false, lower_bound: le32(19000), upper_bound: le32(19001) },
      { contains_null: false, contains_nan: false, lower_bound: le32(3), upper_bound: le32(7) },
      { contains_null: true, contains_nan: false, lower_bound: Buffer.from('x'), upper_bound: Buffer.from('x') },
    ],
    key_metadata: null,
  }];
  if (check(`${lname} values`, list.records, lwant)) report.pass(lname, `${list.records.length} manifests`);
}

report.finish();
