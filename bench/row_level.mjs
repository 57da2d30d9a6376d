// Row-level changes on TPC-H lineitem in an Iceberg table partitioned by month(l_shipdate):
// the cost of a DELETE and of an UPDATE of 1% of the rows, spread over every data file, by
// merge-on-read (format versions 2 and 3) and by copy-on-write, against a full scan of the
// same table (every column read) as the unit; and the read cost of the table after 1, 10
// and 50 merge-on-read deletes (0.1% of the rows each).
//
// The table is loaded once per scale factor (CREATE TABLE AS from bench/tpch.mjs's
// lineitem.parquet, which that script generates). Every measured change runs on a table of
// its own registered on the loaded table's metadata file (CALL register_table: the data
// files are shared, each change writes its own), so each run starts from the same table.
// Times are the statement's (floe sql --timing), best of RUNS; ratios are to the best full
// scan measured in the same run.
//
// usage: node bench/row_level.mjs FLOE DATA_DIR [--sf N] [--threads T] [--runs R]
// bench/row_level.sh wraps it with defaults (it generates the data first when needed).

import fs from 'node:fs';
import path from 'node:path';

import { runFloe } from '../test/interop/lib/common.mjs';

const [floe, dataDir, ...rest] = process.argv.slice(2);
if (!floe || !dataDir) {
  console.error('usage: node bench/row_level.mjs FLOE DATA_DIR [--sf N] [--threads T] [--runs R]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : dflt;
};
const sf = Number(opt('--sf', '1'));
const threads = String(opt('--threads', '2'));
const runs = Number(opt('--runs', '3'));

const source = path.join(dataDir, `tpch-sf${sf}`, 'lineitem.parquet');
if (!fs.existsSync(source)) {
  console.error(`${source} is missing: run bench/queries.sh --sf ${sf} --queries 6 first`);
  process.exit(2);
}
const warehouse = path.join(dataDir, `row-level-sf${sf}`);

function floeSql(statements) {
  const res = runFloe(floe, ['sql', '--threads', threads, '--warehouse', warehouse, '--timing',
                             ...statements.flatMap((s) => ['-c', s])]);
  if (res.status !== 0) throw new Error(`floe failed: ${res.stderr}\n${statements.join('\n')}`);
  // The statements' times, in order ("Time: 12.345 ms" on standard error).
  const times = [...res.stderr.matchAll(/^Time: ([0-9.]+) ms$/gm)].map((m) => Number(m[1]) / 1000);
  if (times.length !== statements.length) {
    throw new Error(`floe printed ${times.length} times for ${statements.length} statements`);
  }
  return { stdout: res.stdout, times };
}

const modes = {
  'merge-on-read v2': { version: 2, mode: 'merge-on-read' },
  'merge-on-read v3': { version: 3, mode: 'merge-on-read' },
  'copy-on-write v2': { version: 2, mode: 'copy-on-write' },
};

function properties(mode) {
  return ['delete', 'update', 'merge']
    .map((c) => `"write.${c}.mode" = '${mode}'`).join(', ');
}

// The metadata file of a table as loaded (what register_table takes): recorded at load,
// since the changes' commits add newer ones beside it.
function newestMetadataFile(table) {
  const dir = path.join(warehouse, 'bench', table, 'metadata');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.metadata.json')).sort();
  return path.join(dir, files[files.length - 1]);
}
const loadedFile = path.join(warehouse, 'loaded');
const metadataFile = (table) => JSON.parse(fs.readFileSync(loadedFile, 'utf8'))[table];

function load() {
  if (fs.existsSync(loadedFile)) return;
  fs.rmSync(warehouse, { recursive: true, force: true });
  fs.mkdirSync(warehouse, { recursive: true });
  const statements = ['CREATE SCHEMA bench'];
  for (const [name, m] of Object.entries(modes)) {
    const table = name.replace(/[^a-z0-9]+/g, '_');
    statements.push(`CREATE TABLE bench.${table} WITH (partitioning = 'month(l_shipdate)', ` +
                    `format_version = ${m.version}, ${properties(m.mode)}) AS ` +
                    `SELECT * FROM read_parquet('${source}')`);
  }
  const t0 = Date.now();
  floeSql(statements);
  const loaded = {};
  for (const name of Object.keys(modes)) {
    const table = name.replace(/[^a-z0-9]+/g, '_');
    loaded[table] = newestMetadataFile(table);
  }
  fs.writeFileSync(loadedFile, JSON.stringify(loaded));
  console.error(`loaded lineitem sf${sf} three times in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// Every column of lineitem, so the scan decodes them all.
const fullScan = (table) => 'SELECT count(*) FROM ' + table + ' WHERE l_orderkey + l_partkey + ' +
  'l_suppkey + l_linenumber >= 0 AND l_quantity + l_extendedprice + l_discount + l_tax >= 0 ' +
  "AND l_returnflag || l_linestatus || l_shipinstruct || l_shipmode || l_comment <> '' " +
  "AND l_shipdate + 1 > DATE '1900-01-01' AND l_commitdate + 1 > DATE '1900-01-01' " +
  "AND l_receiptdate + 1 > DATE '1900-01-01'";

const changes = {
  'DELETE 1%': (t) => `DELETE FROM ${t} WHERE l_orderkey % 100 = 7`,
  'UPDATE 1%': (t) => `UPDATE ${t} SET l_comment = 'changed', l_quantity = l_quantity + 1 ` +
                      'WHERE l_orderkey % 100 = 13',
};

let copies = 0;
// A fresh table on the loaded one's metadata.
function copyOf(table) {
  copies += 1;
  const name = `bench.run_${process.pid}_${copies}`;
  floeSql([`CALL register_table('${name}', '${metadataFile(table)}')`]);
  return name;
}

// Runs one change and checks that it changed rows (a table that had already been changed
// would make a change of nothing look fast).
function change(sql) {
  const out = floeSql([sql]);
  const m = out.stdout.match(/^(DELETE|UPDATE) ([0-9]+)$/m);
  if (!m || Number(m[2]) === 0) throw new Error(`changed no row: ${sql}: ${out.stdout}`);
  return out.times[0];
}

function best(fn) {
  let b = Infinity;
  for (let i = 0; i < runs; i += 1) b = Math.min(b, fn());
  return b;
}

load();
const rows = [];
for (const name of Object.keys(modes)) {
  const table = `bench.${name.replace(/[^a-z0-9]+/g, '_')}`;
  const scan = best(() => floeSql([fullScan(table)]).times[0]);
  const row = { name, scan };
  for (const [label, sql] of Object.entries(changes)) {
    row[label] = best(() => change(sql(copyOf(table.split('.')[1]))));
  }
  if (name.startsWith('merge-on-read')) {
    // The read cost after 1, 10 and 50 deletes of 0.1% each.
    const t = copyOf(table.split('.')[1]);
    const after = {};
    for (let k = 1; k <= 50; k += 1) {
      floeSql([`DELETE FROM ${t} WHERE l_orderkey % 1000 = ${k}`]);
      if (k === 1 || k === 10 || k === 50) after[k] = best(() => floeSql([fullScan(t)]).times[0]);
    }
    row.after = after;
  }
  rows.push(row);
}

const f = (s) => s.toFixed(3);
const r = (x, unit) => (x / unit).toFixed(2);
console.log(`Row-level changes, lineitem sf${sf} partitioned by month(l_shipdate), ${threads} ` +
            `threads, best of ${runs}; ratios to the full scan of the same table`);
console.log('');
console.log('| strategy | full scan (s) | DELETE 1% (s) | ratio | UPDATE 1% (s) | ratio | ' +
            'scan after 1 / 10 / 50 deletes (ratio) |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) {
  const after = row.after
    ? [1, 10, 50].map((k) => r(row.after[k], row.scan)).join(' / ') : 'n/a';
  console.log(`| ${row.name} | ${f(row.scan)} | ${f(row['DELETE 1%'])} | ` +
              `${r(row['DELETE 1%'], row.scan)} | ${f(row['UPDATE 1%'])} | ` +
              `${r(row['UPDATE 1%'], row.scan)} | ${after} |`);
}
