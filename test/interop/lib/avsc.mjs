// npm `avsc` (installed by scripts/install-deps into .deps/node) as the independent Avro
// implementation the interop suites read floe's Avro files with: longs decode as BigInt so
// 64-bit values compare exactly.

import { createRequire } from 'node:module';
import path from 'node:path';

import { repoRoot } from './common.mjs';

/// Loads avsc; exits with status 2 and a hint when it is not installed.
/// Returns {avro, parseHook}: parseHook builds types whose longs are BigInt.
export function loadAvsc() {
  const require = createRequire(path.join(repoRoot, '.deps', 'node', 'package.json'));
  let avro;
  try {
    avro = require('avsc');
  } catch (e) {
    console.error(`cannot load avsc from .deps/node: ${e.message}; run scripts/install-deps`);
    process.exit(2);
  }
  const longType = avro.types.LongType.__with({
    fromBuffer: (buf) => buf.readBigInt64LE(),
    toBuffer: (n) => {
      const buf = Buffer.alloc(8);
      buf.writeBigInt64LE(BigInt(n));
      return buf;
    },
    fromJSON: BigInt,
    toJSON: Number,
    isValid: (n) => typeof n === 'bigint',
    compare: (a, b) => (a === b ? 0 : a < b ? -1 : 1),
  });
  const parseHook = (schema) => avro.Type.forSchema(schema, { registry: { long: longType } });
  return { avro, parseHook };
}

/// Decodes an Avro object container file: {header: {codec, meta}, records}.
export function decodeAvroFile({ avro, parseHook }, file) {
  return new Promise((resolve, reject) => {
    const records = [];
    let header;
    avro.createFileDecoder(file, { parseHook })
      .on('metadata', (type, codec, h) => { header = { codec, meta: h.meta }; })
      .on('data', (r) => records.push(r))
      .on('error', reject)
      .on('end', () => resolve({ header, records }));
  });
}
