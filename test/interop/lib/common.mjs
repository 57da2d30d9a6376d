// Shared pieces of the interop suite: loading DuckDB from the project's .deps/node,
// running the floe binary, temporary directories, and the value normaliser that puts
// floe's JSON lines and DuckDB's values into one canonical form so they can be compared
// value by value.
//
// The canonical form of a value of a DuckDB type:
//   NULL -> null
//   boolean -> 'true' | 'false'
//   integers -> decimal digits (exact, as BigInt text)
//   float/double -> String() of the number ('NaN', 'Infinity', '-0', ...); float is
//                   rounded to float32 on both sides
//   decimal(p,s) -> the unscaled integer as decimal digits
//   date -> days since 1970-01-01; time -> microseconds since midnight;
//   timestamp/timestamptz -> microseconds since the epoch; timestamp_ns -> nanoseconds
//   varchar -> the string; blob -> lower-case hex; uuid -> lower-case 8-4-4-4-12 text
//   struct -> object with the struct's fields in order; list -> array;
//   map -> array of [key, value] pairs
//
// floe's JSON follows the `floe parquet cat --format jsonl` convention: numbers and
// booleans are JSON numbers and booleans, every other scalar is its PostgreSQL text
// form in a JSON string, nested values are JSON arrays/objects, NULL is null.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/// Loads @duckdb/node-api from <repo>/.deps/node (installed by scripts/install-deps).
export function loadDuckDB() {
  const require = createRequire(path.join(repoRoot, '.deps', 'node', 'package.json'));
  try {
    return require('@duckdb/node-api');
  } catch (e) {
    console.error(`cannot load @duckdb/node-api from ${path.join(repoRoot, '.deps/node')}: ` +
                  `${e.message}; run scripts/install-deps`);
    process.exit(2);
  }
}

/// Opens an in-memory DuckDB with a fixed time zone (so timestamptz renders in UTC) and
/// `threads` threads. Returns {duck, conn, query(sql) -> reader with rows read}.
export async function openDuckDB(threads = 2) {
  const duck = loadDuckDB();
  const instance = await duck.DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await instance.connect();
  await conn.run("SET TimeZone = 'UTC'").catch(() => {});
  const query = async (sql) => conn.runAndReadAll(sql);
  return { duck, instance, conn, query };
}

/// A fresh temporary directory, removed by the returned cleanup function.
export function makeTempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `floe-${prefix}-`));
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  return { dir, cleanup };
}

/// SQL string literal.
export function sqlStr(s) {
  return `'${String(s).replaceAll("'", "''")}'`;
}

/// A DuckDB table expression reading one Parquet file as it is: no columns from
/// hive-style directory names (key=value) in its path.
export function readParquet(file) {
  return `read_parquet(${sqlStr(file)}, hive_partitioning = false)`;
}

/// Runs the floe binary; returns {status, stdout, stderr, seconds}.
export function runFloe(floe, args, { input, timeout } = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(floe, args, {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    input,
    timeout,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.error) return { status: -1, stdout: '', stderr: String(r.error), seconds };
  return {
    status: r.status === null ? `signal ${r.signal}` : r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    seconds,
  };
}

// The launcher's program: one request per line on stdin ({argv, input, stdout, stderr}:
// the command, its standard input, the files for its output); one reply per line on stdout
// ({status, seconds, maxRssKiB}). The wall time spans the spawn and the wait; the peak
// resident set is the command's own (wait4), as GNU time reports it.
const LAUNCHER = `
import json, os, subprocess, sys, time
for line in sys.stdin:
    req = json.loads(line)
    with open(req["stdout"], "wb") as out, open(req["stderr"], "wb") as err:
        t0 = time.perf_counter_ns()
        try:
            p = subprocess.Popen(req["argv"], stdin=subprocess.PIPE, stdout=out, stderr=err)
        except OSError as e:
            err.write(str(e).encode())
            print(json.dumps({"status": -1, "seconds": 0, "maxRssKiB": 0}), flush=True)
            continue
        p.stdin.write(req["input"].encode())
        p.stdin.close()
        _, status, usage = os.wait4(p.pid, 0)
        seconds = (time.perf_counter_ns() - t0) / 1e9
        p.returncode = os.waitstatus_to_exitcode(status)
    code = p.returncode if p.returncode >= 0 else "signal %d" % -p.returncode
    print(json.dumps({"status": code, "seconds": seconds, "maxRssKiB": usage.ru_maxrss}), flush=True)
`;

/// Runs commands from a small process of its own, started before the caller grows: a
/// process forked from a large one (node holding a DuckDB that read a scale-factor-10
/// table: about 1 GB) pays for copying its page tables, 40 ms to spawn /bin/true, which a
/// timed command would be charged. `run(argv, {input})` resolves to {status, stdout,
/// stderr, seconds, peakMiB}; one command at a time. `close()` ends the launcher.
export function startLauncher() {
  const child = spawn('python3', ['-c', LAUNCHER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const replies = readline.createInterface({ input: child.stdout });
  const waiting = [];  // {resolve, reject} per request sent, in order
  let failure = null;
  const fail = (why) => {
    failure = failure || new Error(`the launcher ended: ${why}`);
    for (const w of waiting.splice(0)) w.reject(failure);
  };
  child.on('error', (e) => fail(e.message));
  child.on('exit', (code, signal) => fail(signal ? `signal ${signal}` : `exit ${code}`));
  replies.on('line', (line) => waiting.shift().resolve(JSON.parse(line)));
  const { dir, cleanup } = makeTempDir('launch');
  const outFile = path.join(dir, 'stdout');
  const errFile = path.join(dir, 'stderr');
  return {
    run(argv, { input = '' } = {}) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        waiting.push({
          resolve: (reply) => resolve({
            status: reply.status,
            stdout: fs.readFileSync(outFile, 'utf8'),
            stderr: fs.readFileSync(errFile, 'utf8'),
            seconds: reply.seconds,
            peakMiB: reply.maxRssKiB / 1024,
          }),
          reject,
        });
        child.stdin.write(JSON.stringify({ argv, input, stdout: outFile, stderr: errFile }) + '\n');
      });
    },
    close() {
      failure = failure || new Error('the launcher was closed');
      child.stdin.end();
      cleanup();
    },
  };
}

/// Takes the floe binary from argv[2]; exits with a usage message when it is missing.
export function floeFromArgs(script) {
  const floe = process.argv[2];
  if (!floe || !fs.existsSync(floe)) {
    console.error(`usage: node ${script} PATH_TO_FLOE_BINARY` + (floe ? ` (${floe} not found)` : ''));
    process.exit(2);
  }
  return path.resolve(floe);
}

// ---------------------------------------------------------------------------------------
// JSON parsing that keeps number tokens as text (JSON.parse would round 64-bit integers).

/// A JSON number kept as its source text.
export class JsonNumber {
  constructor(text) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

/// Parses one JSON document; numbers become JsonNumber. Throws on malformed input.
export function parseJson(text) {
  let i = 0;
  const fail = (what) => {
    throw new Error(`${what} at offset ${i} in ${JSON.stringify(text.slice(0, 200))}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj = {};
      const keys = [];
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const k = string();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        if (Object.prototype.hasOwnProperty.call(obj, k)) fail(`duplicate key ${k}`);
        obj[k] = value();
        keys.push(k);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          Object.defineProperty(obj, '__keys', { value: keys, enumerable: false });
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m) fail('unexpected character');
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  const string = () => {
    // Find the closing quote, then let JSON.parse handle escapes.
    const start = i;
    i++;
    while (i < text.length) {
      const ch = text[i];
      if (ch === '\\') {
        i += 2;
        continue;
      }
      if (ch === '"') break;
      if (ch < ' ') fail('control character in string');
      i++;
    }
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

// ---------------------------------------------------------------------------------------
// Calendar arithmetic (proleptic Gregorian, astronomical years: 1 BC = year 0).

function daysFromCivil(y, m, d) {
  y = BigInt(y);
  m = BigInt(m);
  d = BigInt(d);
  y -= m <= 2n ? 1n : 0n;
  const era = (y >= 0n ? y : y - 399n) / 400n;
  const yoe = y - era * 400n;
  const mp = (m + 9n) % 12n;
  const doy = (153n * mp + 2n) / 5n + d - 1n;
  const doe = yoe * 365n + yoe / 4n - yoe / 100n + doy;
  return era * 146097n + doe - 719468n;
}

const kDateRe = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/;
const kTimeRe = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
const kTimestampRe =
    /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(\+00(?::00)?)?( BC)?$/;

function parseDate(s) {
  const m = kDateRe.exec(s);
  if (!m) throw new Error(`not a PostgreSQL date: ${JSON.stringify(s)}`);
  let y = Number(m[1]);
  if (m[4]) y = 1 - y;
  return daysFromCivil(y, Number(m[2]), Number(m[3]));
}

function fractionToUnits(frac, digits) {
  if (!frac) return 0n;
  if (frac.length > digits) throw new Error(`too many fraction digits: ${frac}`);
  return BigInt(frac.padEnd(digits, '0'));
}

function parseTime(s) {
  const m = kTimeRe.exec(s);
  if (!m) throw new Error(`not a PostgreSQL time: ${JSON.stringify(s)}`);
  return (BigInt(m[1]) * 3600n + BigInt(m[2]) * 60n + BigInt(m[3])) * 1000000n +
         fractionToUnits(m[4], 6);
}

/// Parses a PostgreSQL timestamp text into units since the epoch (1e6 or 1e9 per second).
function parseTimestamp(s, perSecond, withZone) {
  const m = kTimestampRe.exec(s);
  if (!m) throw new Error(`not a PostgreSQL timestamp: ${JSON.stringify(s)}`);
  if (withZone && !m[8]) throw new Error(`timestamptz without +00: ${JSON.stringify(s)}`);
  if (!withZone && m[8]) throw new Error(`timestamp with a zone: ${JSON.stringify(s)}`);
  let y = Number(m[1]);
  if (m[9]) y = 1 - y;
  const days = daysFromCivil(y, Number(m[2]), Number(m[3]));
  const secs = days * 86400n + BigInt(m[4]) * 3600n + BigInt(m[5]) * 60n + BigInt(m[6]);
  const digits = perSecond === 1000000n ? 6 : 9;
  return secs * perSecond + fractionToUnits(m[7], digits);
}

function parseDecimalText(s, scale) {
  const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) throw new Error(`not a decimal: ${JSON.stringify(s)}`);
  let frac = m[3] || '';
  if (frac.length > scale) {
    if (/[^0]/.test(frac.slice(scale))) throw new Error(`decimal ${s} has more than ${scale} digits`);
    frac = frac.slice(0, scale);
  }
  const v = BigInt(m[2] + frac.padEnd(scale, '0'));
  return (m[1] ? -v : v).toString();
}

function floatCanon(x, isFloat32) {
  const v = isFloat32 ? Math.fround(x) : x;
  return Object.is(v, -0) ? '-0' : String(v);
}

const kFloatWords = new Map([
  ['nan', NaN], ['infinity', Infinity], ['-infinity', -Infinity], ['inf', Infinity],
  ['-inf', -Infinity], ['+infinity', Infinity],
]);

function hex(bytes) {
  return Buffer.from(bytes).toString('hex');
}

// ---------------------------------------------------------------------------------------
// Normalisers.

/// The DuckDB type id name of a DuckDBType (e.g. 'BIGINT', 'STRUCT').
export function typeName(duck, type) {
  return duck.DuckDBTypeId[type.typeId];
}

/// Canonical form of a DuckDB value of `type` (from getRows()).
export function canonDuck(duck, type, v) {
  if (v === null || v === undefined) return null;
  const t = typeName(duck, type);
  switch (t) {
    case 'BOOLEAN':
      return v ? 'true' : 'false';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'BIGINT':
    case 'HUGEINT':
    case 'UTINYINT':
    case 'USMALLINT':
    case 'UINTEGER':
    case 'UBIGINT':
      return BigInt(v).toString();
    case 'FLOAT':
      return floatCanon(v, true);
    case 'DOUBLE':
      return floatCanon(v, false);
    case 'DECIMAL':
      return v.value.toString();
    case 'DATE':
      return String(v.days);
    case 'TIME':
      return v.micros.toString();
    case 'TIMESTAMP':
    case 'TIMESTAMP_TZ':
      return v.micros.toString();
    case 'TIME_TZ':
      // A Parquet TIME adjusted to UTC; DuckDB reads it with offset 0.
      return (v.micros - BigInt(v.offset) * 1000000n).toString();
    case 'TIMESTAMP_NS':
      return v.nanos.toString();
    case 'TIMESTAMP_MS':
      return (v.millis * 1000n).toString();
    case 'TIMESTAMP_S':
      return (v.seconds * 1000000n).toString();
    case 'VARCHAR':
      return v;
    case 'BLOB':
      return hex(v.bytes);
    case 'UUID':
      return v.toString().toLowerCase();
    case 'STRUCT': {
      const out = {};
      type.entryNames.forEach((name, k) => {
        out[name] = canonDuck(duck, type.entryTypes[k], v.entries[name]);
      });
      return out;
    }
    case 'LIST':
      return v.items.map((x) => canonDuck(duck, type.valueType, x));
    case 'MAP':
      return v.entries.map((e) => [canonDuck(duck, type.keyType, e.key),
                                   canonDuck(duck, type.valueType, e.value)]);
    default:
      throw new Error(`canonDuck: type ${t} is not covered`);
  }
}

function expectNumber(v, t) {
  if (!(v instanceof JsonNumber)) {
    throw new Error(`${t} value ${JSON.stringify(v)} is not a JSON number`);
  }
  return v.text;
}

function expectString(v, t) {
  if (typeof v !== 'string') throw new Error(`${t} value ${JSON.stringify(v)} is not a JSON string`);
  return v;
}

/// Canonical form of the value floe printed (parsed with parseJson) for a column of
/// DuckDB type `type`. Throws with a message when the value has the wrong JSON shape.
export function canonFloe(duck, type, v) {
  if (v === null) return null;
  const t = typeName(duck, type);
  switch (t) {
    case 'BOOLEAN':
      if (typeof v !== 'boolean') throw new Error(`boolean value ${JSON.stringify(v)} is not a JSON boolean`);
      return v ? 'true' : 'false';
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'BIGINT':
    case 'HUGEINT':
    case 'UTINYINT':
    case 'USMALLINT':
    case 'UINTEGER':
    case 'UBIGINT':
      return BigInt(expectNumber(v, t)).toString();
    case 'FLOAT':
    case 'DOUBLE': {
      if (typeof v === 'string' && kFloatWords.has(v.toLowerCase())) {
        return floatCanon(kFloatWords.get(v.toLowerCase()), false);
      }
      return floatCanon(Number(expectNumber(v, t)), t === 'FLOAT');
    }
    case 'DECIMAL':
      return parseDecimalText(v instanceof JsonNumber ? v.text : expectString(v, t), type.scale);
    case 'DATE':
      return parseDate(expectString(v, t)).toString();
    case 'TIME':
      return parseTime(expectString(v, t)).toString();
    case 'TIME_TZ': {
      // floe has one time type; a UTC-adjusted time may print with or without +00.
      const s = expectString(v, t);
      return parseTime(s.endsWith('+00') ? s.slice(0, -3) : s).toString();
    }
    case 'TIMESTAMP':
      return parseTimestamp(expectString(v, t), 1000000n, false).toString();
    case 'TIMESTAMP_TZ':
      return parseTimestamp(expectString(v, t), 1000000n, true).toString();
    case 'TIMESTAMP_NS':
      return parseTimestamp(expectString(v, t), 1000000000n, false).toString();
    case 'VARCHAR':
      return expectString(v, t);
    case 'BLOB': {
      const s = expectString(v, t);
      if (!/^\\x([0-9a-fA-F]{2})*$/.test(s)) throw new Error(`blob ${JSON.stringify(s.slice(0, 80))} is not \\x hex`);
      return s.slice(2).toLowerCase();
    }
    case 'UUID': {
      const s = expectString(v, t);
      if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s)) {
        throw new Error(`uuid ${JSON.stringify(s)} is not 8-4-4-4-12 hex`);
      }
      return s.toLowerCase();
    }
    case 'STRUCT': {
      if (typeof v !== 'object' || Array.isArray(v) || v instanceof JsonNumber) {
        throw new Error(`struct value ${JSON.stringify(v)} is not a JSON object`);
      }
      const out = {};
      type.entryNames.forEach((name, k) => {
        if (!Object.prototype.hasOwnProperty.call(v, name)) throw new Error(`struct field ${name} is missing`);
        out[name] = canonFloe(duck, type.entryTypes[k], v[name]);
      });
      const extra = Object.keys(v).filter((k) => !type.entryNames.includes(k));
      if (extra.length) throw new Error(`struct has unexpected fields ${extra.join(', ')}`);
      return out;
    }
    case 'LIST':
      if (!Array.isArray(v)) throw new Error(`list value ${JSON.stringify(v)} is not a JSON array`);
      return v.map((x) => canonFloe(duck, type.valueType, x));
    case 'MAP': {
      // Accepted shapes: [{"key": k, "value": v}, ...], [[k, v], ...], or {"k": v, ...}.
      if (Array.isArray(v)) {
        return v.map((e) => {
          if (Array.isArray(e) && e.length === 2) {
            return [canonFloe(duck, type.keyType, e[0]), canonFloe(duck, type.valueType, e[1])];
          }
          if (e && typeof e === 'object' && 'key' in e && 'value' in e) {
            return [canonFloe(duck, type.keyType, e.key), canonFloe(duck, type.valueType, e.value)];
          }
          throw new Error(`map entry ${JSON.stringify(e)} is neither [k, v] nor {key, value}`);
        });
      }
      if (v && typeof v === 'object' && !(v instanceof JsonNumber)) {
        const keys = v.__keys || Object.keys(v);
        return keys.map((k) => [canonFloe(duck, type.keyType, k), canonFloe(duck, type.valueType, v[k])]);
      }
      throw new Error(`map value ${JSON.stringify(v)} is neither an array nor an object`);
    }
    default:
      throw new Error(`canonFloe: type ${t} is not covered`);
  }
}

/// Deep equality of canonical values.
export function canonEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== typeof b) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, k) => canonEqual(x, b[k]));
  }
  if (typeof a === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k, idx) => kb[idx] === k && canonEqual(a[k], b[k]));
  }
  return false;
}

/// Short printable form of a canonical value (long strings are cut).
export function show(v, max = 160) {
  const s = JSON.stringify(v);
  if (s === undefined) return String(v);
  return s.length > max ? `${s.slice(0, max)}... (${s.length} chars)` : s;
}

/// Collects pass/fail results and prints the summary line.
export class Reporter {
  constructor(suite) {
    this.suite = suite;
    this.passed = 0;
    this.failed = [];
    this.skipped = 0;
  }
  pass(name, note = '') {
    this.passed++;
    console.log(`ok    ${name}${note ? `  (${note})` : ''}`);
  }
  skip(name, why) {
    this.skipped++;
    console.log(`skip  ${name}: ${why}`);
  }
  fail(name, detail) {
    this.failed.push(name);
    console.log(`FAIL  ${name}\n${String(detail).split('\n').map((l) => `        ${l}`).join('\n')}`);
  }
  /// Prints "N passed, M failed" and exits non-zero when anything failed.
  finish() {
    console.log(`\n${this.suite}: ${this.passed} passed, ${this.failed.length} failed` +
                (this.skipped ? `, ${this.skipped} skipped` : ''));
    if (this.failed.length) {
      console.log(`failed: ${this.failed.join(', ')}`);
      process.exit(1);
    }
    process.exit(0);
  }
}
