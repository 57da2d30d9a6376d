// Avro interop with npm `avsc` (from .deps/node, installed by scripts/install-deps):
//   floe -> avsc: floe_avro_tool writes sample files with every codec; avsc must decode
//                 them, see the Iceberg attributes (field-id, element-id, logicalType map
//                 records) in the header schema, the user metadata, and the exact values.
//   avsc -> floe: avsc writes files (null, deflate); floe_avro_tool dump must print the
//                 exact values.
//
// usage: node test/interop/avro_avsc.mjs PATH_TO_FLOE_AVRO_TOOL

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { decodeAvroFile, loadAvsc } from './lib/avsc.mjs';
import { makeTempDir, Reporter } from './lib/common.mjs';

const tool = process.argv[2];
if (!tool) {
  console.error('usage: node test/interop/avro_avsc.mjs PATH_TO_FLOE_AVRO_TOOL');
  process.exit(2);
}
const avsc = loadAvsc();
const { avro, parseHook } = avsc;

const report = new Reporter('avro avsc interop');
const { dir, cleanup } = makeTempDir('avro');
process.on('exit', cleanup);

const decodeFile = (file) => decodeAvroFile(avsc, file);

function deepEqual(a, b) {
  return JSON.stringify(a, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)) ===
         JSON.stringify(b, (k, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

function check(name, got, want) {
  if (deepEqual(got, want)) return true;
  report.fail(name, `got  ${JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))}\n` +
                    `want ${JSON.stringify(want, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`);
  return false;
}

function decimalBytes(v) {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return [...b];
}

// floe -> avsc
const w = spawnSync(tool, ['write', dir], { encoding: 'utf8' });
if (w.status !== 0) {
  report.fail('floe_avro_tool write', w.stderr || w.error);
  report.finish();
}
for (const codec of ['null', 'deflate', 'snappy', 'zstd']) {
  const name = `floe->avsc ${codec}`;
  const file = path.join(dir, `sample.${codec}.avro`);
  if (codec === 'snappy' || codec === 'zstd') {
    // avsc has no built-in snappy/zstandard codec; check the header and schema only.
    const bytes = fs.readFileSync(file);
    if (bytes.subarray(0, 4).toString('latin1') === 'Obj\x01' && bytes.includes(Buffer.from('"field-id":1'))) {
      report.pass(name, 'header only: avsc has no codec for it');
    } else {
      report.fail(name, 'bad header');
    }
    continue;
  }
  let decoded;
  try {
    decoded = await decodeFile(file);
  } catch (e) {
    report.fail(name, e.stack);
    continue;
  }
  const { header, records } = decoded;
  const schema = JSON.parse(header.meta['avro.schema'].toString());
  const fields = Object.fromEntries(schema.fields.map((f) => [f.name, f]));
  let ok = check(`${name} codec`, header.codec, codec) &&
    check(`${name} metadata`, [header.meta['format-version'].toString(), header.meta.content.toString()], ['2', 'data']) &&
    check(`${name} field ids`, schema.fields.map((f) => f['field-id']), [1, 2, 3, 4, 5, 6, 7, 9, 12]) &&
    check(`${name} element-id`, fields.tags.type[1]['element-id'], 8) &&
    check(`${name} map record`, [fields.counts.type[1].logicalType, fields.counts.type[1].items.name,
                                 fields.counts.type[1].items.fields.map((f) => f['field-id'])],
          ['map', 'k10_v11', [10, 11]]) &&
    check(`${name} struct record`, [fields.point.type[1].name, fields.point.type[1].fields.map((f) => f['field-id'])],
          ['r12', [13, 14]]) &&
    check(`${name} timestamptz`, fields.ts.type[1], { type: 'long', logicalType: 'timestamp-micros', 'adjust-to-utc': true });
  if (!ok) continue;
  const want = [0, 1, 2].map((r) => ({
    id: 9007199254740993n + BigInt(r),
    name: r === 1 ? null : `row${r}`,
    score: r * 0.5,
    day: 19000 + r,
    // avsc reads logical-type longs with its own long type (a Number; exact here).
    ts: 1700000000000000 + r,
    price: r === 2 ? null : decimalBytes(-12345 + r),
    tags: Array.from({ length: r }, (_, k) => `t${k}`),
    counts: Array.from({ length: r }, (_, k) => ({ key: k + 100, value: BigInt(k * 1000) })),
    point: r === 1 ? null : { x: r, y: -r },
  }));
  const got = records.map((rec) => ({ ...rec, price: rec.price === null ? null : [...rec.price] }));
  if (check(`${name} values`, got, want)) report.pass(name, `${records.length} records`);
}

// avsc -> floe
const avscSchema = {
  type: 'record', name: 'from_avsc', fields: [
    { name: 'a', type: 'long', 'field-id': 1 },
    { name: 'b', type: ['null', 'string'], default: null, 'field-id': 2 },
    { name: 'c', type: { type: 'array', items: 'double', 'element-id': 4 }, 'field-id': 3 },
    { name: 'd', type: { type: 'map', values: 'int' }, 'field-id': 5 },
    { name: 'e', type: { type: 'enum', name: 'E', symbols: ['X', 'Y'] }, 'field-id': 6 },
  ],
};
const avscType = parseHook(avscSchema);
const rows = [
  { a: -9007199254740993n, b: 'héllo', c: [1.5, -2], d: { k: 7 }, e: 'Y' },
  { a: 0n, b: null, c: [], d: {}, e: 'X' },
];
for (const codec of ['null', 'deflate']) {
  const name = `avsc->floe ${codec}`;
  const file = path.join(dir, `avsc.${codec}.avro`);
  await new Promise((resolve, reject) => {
    const enc = new avro.streams.BlockEncoder(avscType, { codec, blockSize: 16 });
    const out = fs.createWriteStream(file);
    enc.on('error', reject);
    out.on('error', reject);
    out.on('close', resolve);
    enc.pipe(out);
    for (const r of rows) enc.write(r);
    enc.end();
  });
  const d = spawnSync(tool, ['dump', file], { encoding: 'utf8' });
  if (d.status !== 0) {
    report.fail(name, d.stderr || d.error);
    continue;
  }
  const lines = d.stdout.trim().split('\n');
  const want = [
    '{"a":-9007199254740993,"b":"héllo","c":[1.5,-2],"d":{"k":7},"e":"Y"}',
    '{"a":0,"b":null,"c":[],"d":{},"e":"X"}',
  ];
  if (check(name, lines.slice(1), want)) report.pass(name);
}
report.finish();
