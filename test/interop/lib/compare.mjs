// Compares what `floe parquet cat --format jsonl` prints for a file with what DuckDB
// reads from the same file, value by value, through the normaliser in common.mjs.

import { createHash } from 'node:crypto';

import { canonDuck, canonEqual, canonFloe, parseJson, readParquet, runFloe, show } from './common.mjs';

const kMaxMismatches = 5;

/// Reads `file` with DuckDB: {names, types, rows} (rows of DuckDBValue).
export async function duckRead(db, file, { columns, limit } = {}) {
  const cols = columns ? columns.map((c) => `"${c.replaceAll('"', '""')}"`).join(', ') : '*';
  const lim = limit !== undefined ? ` LIMIT ${limit}` : '';
  const r = await db.query(`SELECT ${cols} FROM ${readParquet(file)}${lim}`);
  return { names: r.columnNames(), types: r.columnTypes(), rows: r.getRows() };
}

/// Runs `floe parquet cat FILE --format jsonl [...]`; returns {error} or {lines}.
export function floeCat(floe, file, { columns, limit } = {}) {
  const args = ['parquet', 'cat', file, '--format', 'jsonl'];
  if (columns) args.push('--columns', columns.join(','));
  if (limit !== undefined) args.push('--limit', String(limit));
  const r = runFloe(floe, args);
  if (r.status !== 0) {
    return { error: `floe ${args.join(' ')} exited with ${r.status}: ${r.stderr.trim()}` };
  }
  const lines = r.stdout.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return { lines, seconds: r.seconds };
}

/// Parses floe's JSON lines into canonical rows for the given DuckDB column types.
/// Returns {rows} or {error}.
function canonFloeRows(duck, names, types, lines) {
  const rows = [];
  for (let r = 0; r < lines.length; r++) {
    let obj;
    try {
      obj = parseJson(lines[r]);
    } catch (e) {
      return { error: `line ${r + 1} is not JSON: ${e.message}` };
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      return { error: `line ${r + 1} is not a JSON object: ${show(lines[r])}` };
    }
    const keys = obj.__keys || Object.keys(obj);
    // DuckDB renames columns whose names differ only in case ("a", "A" -> "A_1").
    const sameName = (k, i) => k === names[i] ||
        (names[i].startsWith(k) && /^_[0-9]+$/.test(names[i].slice(k.length)));
    if (keys.length !== names.length || !keys.every(sameName)) {
      return { error: `line ${r + 1} has keys ${show(keys)}, expected ${show(names)}` };
    }
    const row = [];
    for (let c = 0; c < names.length; c++) {
      try {
        row.push(canonFloe(duck, types[c], obj[keys[c]]));
      } catch (e) {
        return { error: `line ${r + 1} column ${names[c]}: ${e.message}` };
      }
    }
    rows.push(row);
  }
  return { rows };
}

/// Compares floe's and DuckDB's reading of `file` row by row and value by value.
/// Returns null when equal, otherwise a description of the first mismatches.
export async function compareFile(db, floe, file, opts = {}) {
  const cat = floeCat(floe, file, opts);
  if (cat.error) return cat.error;
  let dk;
  try {
    dk = await duckRead(db, file, opts);
  } catch (e) {
    return `DuckDB cannot read ${file}: ${e.message}`;
  }
  const parsed = canonFloeRows(db.duck, dk.names, dk.types, cat.lines);
  if (parsed.error) return parsed.error;
  const problems = [];
  if (parsed.rows.length !== dk.rows.length) {
    problems.push(`row count: floe ${parsed.rows.length}, DuckDB ${dk.rows.length}`);
  }
  const n = Math.min(parsed.rows.length, dk.rows.length);
  let mismatches = 0;
  for (let r = 0; r < n && mismatches < kMaxMismatches; r++) {
    for (let c = 0; c < dk.names.length && mismatches < kMaxMismatches; c++) {
      const want = canonDuck(db.duck, dk.types[c], dk.rows[r][c]);
      if (!canonEqual(parsed.rows[r][c], want)) {
        mismatches++;
        problems.push(`row ${r} column ${dk.names[c]} (${dk.types[c].toString()}): ` +
                      `floe ${show(parsed.rows[r][c])} (printed ${show(Object.values(parseJson(cat.lines[r]))[c])}), ` +
                      `DuckDB ${show(want)}`);
      }
    }
  }
  return problems.length ? problems.join('\n') : null;
}

function hash64(v) {
  return createHash('sha256').update(JSON.stringify(v)).digest().readBigUInt64LE(0);
}

/// Per-column checksums (sum of a 64-bit hash of each canonical value, mod 2^64).
function checksums(rows, ncols) {
  const sums = new Array(ncols).fill(0n);
  for (const row of rows) {
    for (let c = 0; c < ncols; c++) sums[c] = (sums[c] + hash64(row[c])) & 0xffffffffffffffffn;
  }
  return sums;
}

/// Compares floe and DuckDB on `file` by row count and per-column checksums of the
/// canonical values; on a checksum mismatch, names the first differing value.
/// Returns null when equal.
export async function compareChecksums(db, floe, file) {
  const cat = floeCat(floe, file);
  if (cat.error) return cat.error;
  let dk;
  try {
    dk = await duckRead(db, file);
  } catch (e) {
    return `DuckDB cannot read ${file}: ${e.message}`;
  }
  const parsed = canonFloeRows(db.duck, dk.names, dk.types, cat.lines);
  if (parsed.error) return parsed.error;
  if (parsed.rows.length !== dk.rows.length) {
    return `row count: floe ${parsed.rows.length}, DuckDB ${dk.rows.length}`;
  }
  const duckRows = dk.rows.map((row) => row.map((v, c) => canonDuck(db.duck, dk.types[c], v)));
  const a = checksums(parsed.rows, dk.names.length);
  const b = checksums(duckRows, dk.names.length);
  const bad = [];
  for (let c = 0; c < dk.names.length; c++) {
    if (a[c] === b[c]) continue;
    let first = '';
    for (let r = 0; r < duckRows.length; r++) {
      if (!canonEqual(parsed.rows[r][c], duckRows[r][c])) {
        first = `; first difference at row ${r}: floe ${show(parsed.rows[r][c])}, DuckDB ${show(duckRows[r][c])}`;
        break;
      }
    }
    bad.push(`column ${dk.names[c]} (${dk.types[c].toString()}): checksum floe ${a[c]}, DuckDB ${b[c]}${first}`);
  }
  return bad.length ? bad.slice(0, kMaxMismatches).join('\n') : null;
}
