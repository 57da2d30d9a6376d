// Helpers for the suites that drive `floe iceberg` through a SQLite catalog: running a
// command that must succeed, reading `info --format json`, the rows of `scan --format
// jsonl` and the data files of `plan --format json`, and comparing canonical rows.

import fs from 'node:fs';
import path from 'node:path';

import { canonDuck, canonFloe, parseJson, runFloe, show } from './common.mjs';

/// The catalog arguments for a catalog file and warehouse inside `dir`.
export function catalogArgs(dir) {
  return ['--catalog', `sqlite://${path.join(dir, 'catalog.db')}`, '--warehouse',
          path.join(dir, 'warehouse')];
}

/// Runs floe and throws with its stderr unless it exits 0; returns stdout.
export function floeOk(floe, args) {
  const r = runFloe(floe, args);
  if (r.status !== 0) {
    throw new Error(`floe ${args.join(' ')} exited with ${r.status}: ${r.stderr.trim()}`);
  }
  return r.stdout;
}

/// `floe iceberg info --format json` of a table, parsed with plain JSON.parse (snapshot ids
/// are compared as text taken from the raw output, see snapshotIds).
export function tableInfo(floe, catalog, table) {
  const out = floeOk(floe, ['iceberg', 'info', ...catalog, table, '--format', 'json']);
  return { raw: out, json: parseJson(out) };
}

/// The snapshot ids of a table, as decimal text, in metadata order.
export function snapshotIds(floe, catalog, table) {
  const { json } = tableInfo(floe, catalog, table);
  return json.snapshots.map((s) => s.snapshot_id.toString());
}

/// The distinct data file paths of the table's current snapshot.
export function dataFiles(floe, catalog, table) {
  const out = floeOk(floe, ['iceberg', 'plan', ...catalog, table, '--format', 'json']);
  const plan = parseJson(out);
  const paths = new Set();
  for (const g of plan.groups) for (const t of g.tasks) paths.add(t.path);
  return [...paths].sort();
}

/// Every file under `dir` (recursively) whose name ends with `suffix`, sorted.
export function filesUnder(dir, suffix) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(suffix)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/// Canonical rows (sorted by their JSON text) of DuckDB query results.
export function canonDuckRows(duck, result) {
  const types = result.columnTypes();
  return result.getRows().map((r) => r.map((v, i) => canonDuck(duck, types[i], v)))
    .map((r) => JSON.stringify(r)).sort();
}

/// Canonical rows of `floe iceberg scan --format jsonl`, typed by DuckDB column types
/// `types` for columns `names` (sorted by their JSON text).
export function canonScanRows(duck, floe, catalog, table, names, types) {
  const out = floeOk(floe, ['iceberg', 'scan', ...catalog, table, '--format', 'jsonl']);
  const lines = out.split('\n').filter((l) => l !== '');
  return lines.map((line, n) => {
    const obj = parseJson(line);
    const keys = obj.__keys || Object.keys(obj);
    if (keys.join(',') !== names.join(',')) {
      throw new Error(`scan line ${n + 1} has keys ${show(keys)}, expected ${show(names)}`);
    }
    return JSON.stringify(names.map((k, i) => canonFloe(duck, types[i], obj[k])));
  }).sort();
}

/// Null when two sorted canonical row lists are equal, else a description of the first
/// difference.
export function diffRows(got, want) {
  if (got.length !== want.length) {
    return `${got.length} rows, expected ${want.length}` +
           (got.length && want.length ? `; first: ${got[0]} vs ${want[0]}` : '');
  }
  for (let i = 0; i < got.length; i++) {
    if (got[i] !== want[i]) return `row ${i} (sorted): ${got[i]}, expected ${want[i]}`;
  }
  return null;
}
