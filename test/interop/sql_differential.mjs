// Differential SQL tests: every query of test/interop/sql_corpus.sql runs in floe and in
// DuckDB on the same generated Parquet files; the results must be equal (row order
// compared only when the query orders its result at the top level). Every query also runs
// in floe with target_partitions 1, 2, 3 and 8 and with batch_size 1, 7 and 8192; each
// of those results must equal floe's first result exactly.
//
// The corpus: queries separated by blank lines; `-- ` comment lines inside a query are
// notes. A note `-- differs: <why>` marks a query whose result differs between the two
// dialects for the reason given; it still runs in floe under every setting (and must
// succeed and agree with itself) but is not compared with DuckDB. `{t}` in a query stands
// for `read_parquet('<t.parquet>') AS t`, `{t:x}` for the same file aliased x.
//
// Values are compared as text after light normalisation: booleans t/f and true/false are
// the same, numbers are compared with a relative tolerance of 1e-6 (floe's averages and
// numeric division are decimals with 6 fractional digits, DuckDB's are doubles), and NULL
// is NULL.
//
// usage: node test/interop/sql_differential.mjs FLOE [--only N] [--quick]
//   --only N   run only the query with this 1-based index
//   --quick    skip the target_partitions / batch_size variations

import fs from 'node:fs';
import path from 'node:path';

import { floeFromArgs, makeTempDir, openDuckDB, repoRoot, runFloe, sqlStr } from './lib/common.mjs';

const floe = floeFromArgs('test/interop/sql_differential.mjs');
const args = process.argv.slice(3);
const onlyIndex = args.includes('--only') ? Number(args[args.indexOf('--only') + 1]) : 0;
const quick = args.includes('--quick');

const { dir, cleanup } = makeTempDir('sqldiff');
process.on('exit', cleanup);

const db = await openDuckDB(2);
await db.conn.run("SET default_null_order = 'nulls_last_on_asc_first_on_desc'");

// The tables. Values come from hashes of the row number: the same on every run.
const h = (salt, n) => `(hash(i, ${salt}) % ${n})::BIGINT`;
const tables = {
  // 1000 rows of every common type, with NULLs in every column but id.
  t: `SELECT i::INTEGER AS id,
        CASE WHEN i % 50 = 0 THEN NULL ELSE (i % 7)::INTEGER END AS g,
        CASE WHEN i % 33 = 0 THEN NULL ELSE ${h(1, 2000000)} - 1000000 END AS a,
        CASE WHEN i % 41 = 0 THEN NULL ELSE (${h(2, 200000)} - 100000) / 8.0 END::DOUBLE AS b,
        CASE WHEN i % 37 = 0 THEN NULL
             ELSE ((${h(3, 2000000)} - 1000000) / 100)::DECIMAL(12,2) END AS d,
        CASE WHEN i % 29 = 0 THEN NULL WHEN i % 31 = 0 THEN ''
             ELSE ['alpha', 'beta', 'gamma', 'delta', 'Epsilon', 'zeta', 'eta', 'theta_x',
                   'iota%', 'kappa'][1 + ${h(4, 10)}] || (i % 13)::VARCHAR END AS s,
        CASE WHEN i % 43 = 0 THEN NULL
             ELSE DATE '2020-01-01' + ${h(5, 1500)}::INTEGER END AS dt,
        CASE WHEN i % 47 = 0 THEN NULL
             ELSE TIMESTAMP '2021-03-01 00:00:00' + to_microseconds(${h(6, 86400000000 * 400)})
        END AS ts,
        CASE WHEN i % 23 = 0 THEN NULL ELSE i % 3 = 0 END AS flag
      FROM range(1, 1001) r(i)`,
  // 300 join partners: ids overlap t's partly, with duplicates and NULL keys.
  u: `SELECT CASE WHEN i % 20 = 0 THEN NULL ELSE (${h(7, 1400)})::INTEGER END AS id,
        (i % 5)::INTEGER AS g,
        ['red', 'green', 'blue', NULL, 'cyan'][1 + (i % 5)] AS v,
        ((${h(8, 100000)}) / 1000)::DECIMAL(10,3) AS w
      FROM range(1, 301) r(i)`,
  // No rows, u's columns.
  e: `SELECT * FROM (SELECT 1::INTEGER AS id, 1::INTEGER AS g, 'x' AS v,
                            1::DECIMAL(10,3) AS w) WHERE false`,
  // Ten rows with NULLs in the key for IN / NOT IN / EXISTS semantics.
  n: `SELECT * FROM (VALUES (1, 'one'), (2, 'two'), (NULL, 'null'), (4, NULL), (5, 'five'),
                            (7, 'seven'), (7, 'seven again'), (NULL, NULL), (10, 'ten'),
                            (11, 'eleven')) v(k, name)`,
  // Keys without NULLs.
  m: `SELECT * FROM (VALUES (1), (3), (5), (7), (9)) v(k)`,
};
const files = {};
for (const [name, sql] of Object.entries(tables)) {
  files[name] = path.join(dir, `${name}.parquet`);
  await db.conn.run(`COPY (${sql}) TO ${sqlStr(files[name])} (FORMAT parquet)`);
}

function expand(sql) {
  return sql.replace(/\{(\w+)(?::(\w+))?\}/g, (_, t, alias) => {
    if (!files[t]) throw new Error(`unknown table {${t}}`);
    return `read_parquet(${sqlStr(files[t])}) AS ${alias || t}`;
  });
}

// The corpus.
const corpusText = fs.readFileSync(path.join(repoRoot, 'test/interop/sql_corpus.sql'), 'utf8');
const queries = [];
let lineNo = 0;
for (const block of corpusText.split(/\n\s*\n/)) {
  const startLine = lineNo + 1 + (block.match(/^\n*/)[0].length);
  lineNo += block.split('\n').length + 1;
  const lines = block.split('\n').filter((l) => l.trim().length);
  const notes = lines.filter((l) => l.trim().startsWith('--')).map((l) => l.trim().slice(2).trim());
  const sql = lines.filter((l) => !l.trim().startsWith('--')).join('\n').trim().replace(/;$/, '');
  if (!sql) continue;
  const differs = notes.find((n) => n.startsWith('differs:'));
  queries.push({ sql, differs, line: startLine });
}

// True when the query orders its result at the top level (an ORDER BY outside parentheses).
function ordered(sql) {
  let depth = 0;
  const upper = sql.toUpperCase();
  for (let i = 0; i < upper.length; i++) {
    if (upper[i] === '(') depth++;
    else if (upper[i] === ')') depth--;
    else if (depth === 0 && upper.startsWith('ORDER BY', i)) return true;
  }
  return false;
}

function parseCsv(text) {
  const rows = [];
  let row = [], cur = '', quoted = false, wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cur += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') { quoted = true; wasQuoted = true; }
    else if (ch === ',') { row.push(wasQuoted || cur !== '' ? cur : null); cur = ''; wasQuoted = false; }
    else if (ch === '\n') {
      row.push(wasQuoted || cur !== '' ? cur : null);
      rows.push(row); row = []; cur = ''; wasQuoted = false;
    } else cur += ch;
  }
  if (cur !== '' || row.length) { row.push(wasQuoted || cur !== '' ? cur : null); rows.push(row); }
  rows.shift();  // header
  return rows;
}

function canon(v) {
  if (v === null || v === undefined) return null;
  const s = typeof v === 'string' ? v : (typeof v === 'object' && v !== null && 'toString' in v ? v.toString() : String(v));
  if (s === 't' || s === 'true') return 'true';
  if (s === 'f' || s === 'false') return 'false';
  return s;
}
function sameValue(a, b) {
  if (a === null || b === null) return a === b;
  if (a === b) return true;
  const x = Number(a), y = Number(b);
  if (a.trim() !== '' && b.trim() !== '' && !Number.isNaN(x) && !Number.isNaN(y)) {
    if (x === y) return true;
    return Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x), Math.abs(y));
  }
  return false;
}
const key = (row) => JSON.stringify(row);
function sameRows(a, b, isOrdered) {
  if (a.length !== b.length) return false;
  let x = a, y = b;
  if (!isOrdered) {
    x = [...a].sort((p, q) => (key(p) < key(q) ? -1 : key(p) > key(q) ? 1 : 0));
    y = [...b].sort((p, q) => (key(p) < key(q) ? -1 : key(p) > key(q) ? 1 : 0));
  }
  return x.every((row, i) => row.length === y[i].length && row.every((v, j) => sameValue(v, y[i][j])));
}
function sortKeyNumbersFirst(rows) {
  // Unordered rows from two engines can differ in text form of numbers (1.50 vs 1.5):
  // normalise numbers before sorting so the multiset comparison lines rows up.
  return rows.map((row) => row.map((v) => {
    if (v === null) return null;
    const n = Number(v);
    return v.trim() !== '' && !Number.isNaN(n) && /^[-+0-9.eE]+$/.test(v) ? String(n) : v;
  }));
}

function runFloeQuery(sql, settings = []) {
  const argv = ['sql', '--format', 'csv'];
  for (const s of settings) argv.push('-c', s);
  argv.push('-c', sql);
  const res = runFloe(floe, argv);
  if (res.status !== 0) return { error: res.stderr.trim() || `exit ${res.status}` };
  return { rows: parseCsv(res.stdout).map((r) => r.map(canon)) };
}

const variations = quick ? [] : [
  ['SET target_partitions = 1'], ['SET target_partitions = 2'], ['SET target_partitions = 3'],
  ['SET target_partitions = 8'], ['SET batch_size = 1'], ['SET batch_size = 7'],
  ['SET batch_size = 8192'],
];

let passed = 0, failed = 0, compared = 0;
const failures = [];
for (const [index, q] of queries.entries()) {
  if (onlyIndex && index + 1 !== onlyIndex) continue;
  const sql = expand(q.sql);
  const isOrdered = ordered(q.sql);
  const problems = [];
  const mine = runFloeQuery(sql);
  if (mine.error) {
    problems.push(`floe failed: ${mine.error}`);
  } else {
    if (!q.differs) {
      compared++;
      let duck;
      try {
        const reader = await db.conn.runAndReadAll(sql);
        duck = reader.getRows().map((r) => r.map(canon));
      } catch (e) {
        problems.push(`DuckDB failed: ${e.message.split('\n')[0]}`);
      }
      if (duck && !sameRows(sortKeyNumbersFirst(mine.rows), sortKeyNumbersFirst(duck), isOrdered)) {
        problems.push(`results differ from DuckDB (${mine.rows.length} vs ${duck.length} rows)\n` +
                      `    floe:   ${JSON.stringify(mine.rows.slice(0, 5))}\n` +
                      `    duckdb: ${JSON.stringify(duck.slice(0, 5))}`);
      }
    }
    for (const settings of variations) {
      const other = runFloeQuery(sql, settings);
      if (other.error) {
        problems.push(`with ${settings.join('; ')}: floe failed: ${other.error}`);
      } else if (!sameRows(other.rows, mine.rows, isOrdered)) {
        problems.push(`with ${settings.join('; ')}: result differs from the default settings ` +
                      `(${other.rows.length} vs ${mine.rows.length} rows)`);
      }
    }
  }
  if (problems.length) {
    failed++;
    failures.push(`query ${index + 1} (sql_corpus.sql line ${q.line}):\n  ${q.sql.replace(/\n/g, '\n  ')}\n  ` +
                  problems.join('\n  '));
  } else {
    passed++;
  }
}

for (const f of failures) console.log(f + '\n');
console.log(`${passed} passed, ${failed} failed (${compared} compared with DuckDB, ` +
            `${queries.length - compared} noted as differing or skipped)`);
process.exit(failed ? 1 : 0);
