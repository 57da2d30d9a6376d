// Interop: floe's read_csv and read_json against DuckDB's on the same files.
//
// usage: node test/interop/read_csv_duckdb.mjs PATH_TO_FLOE [FILTER]
//
// Each case writes a file (DuckDB's COPY TO, or bytes written here: a header, quotes, doubled
// quotes and line breaks inside quotes, CRLF, a byte order mark, NULLs, dates, timestamps with
// and without zones, booleans, another delimiter) and reads it with both engines' sniffers.
// The column names and inferred types must agree (DESCRIBE of a table floe makes from the
// file) and so must every value: floe's rows (`floe sql --format jsonl`, read by three
// partitions from ranges of the file) and DuckDB's, as multisets of canonical values
// (lib/common.mjs). DuckDB reads a quoted empty field as NULL unless allow_quoted_nulls is
// off; floe reads it as PostgreSQL does (the empty string), so DuckDB gets that option.

import fs from 'node:fs';
import path from 'node:path';

import {
  canonDuck, canonEqual, canonFloe, floeFromArgs, makeTempDir, openDuckDB, parseJson, Reporter,
  runFloe, show, sqlStr, typeName,
} from './lib/common.mjs';

const floe = floeFromArgs('test/interop/read_csv_duckdb.mjs');
const filter = process.argv[3] || '';
const report = new Reporter('interop read_csv/read_json vs DuckDB');
const { dir, cleanup } = makeTempDir('read-csv');
process.on('exit', cleanup);

const db = await openDuckDB(2);

// DuckDB's type names -> the names floe's DESCRIBE prints.
const kTypes = {
  BIGINT: 'bigint',
  DOUBLE: 'double precision',
  BOOLEAN: 'boolean',
  DATE: 'date',
  TIME: 'time without time zone',
  TIMESTAMP: 'timestamp without time zone',
  TIMESTAMP_TZ: 'timestamp with time zone',
  VARCHAR: 'text',
};

// Deterministic text of row i (commas, quotes, line breaks, non-ASCII, empty strings).
function text(i) {
  const words = ['alpha', 'beta, gamma', 'say "hi"', 'two\nlines', 'crlf\r\nend', 'naïve ü', ''];
  return words[i % words.length] + (i % 5 === 0 ? '' : String(i));
}

function csvField(v) {
  if (v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) || s === '' ? `"${s.replaceAll('"', '""')}"` : s;
}

const cases = [
  {
    name: 'duckdb_typed',
    async write(file) {
      await db.conn.run(`COPY (
        SELECT i AS id,
               CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 37 % 1000) - 500 END AS n,
               CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7 % 997) / 8.0 END::DOUBLE AS x,
               CASE WHEN i % 17 = 0 THEN NULL ELSE i % 3 = 0 END AS flag,
               CASE WHEN i % 19 = 0 THEN NULL ELSE DATE '2020-01-01' + (i % 2000)::INTEGER END AS d,
               CASE WHEN i % 23 = 0 THEN NULL
                    ELSE TIMESTAMP '2021-03-01 00:00:00' + to_microseconds(i * 123456789) END AS ts,
               CASE WHEN i % 29 = 0 THEN NULL
                    ELSE ['plain', 'with, comma', 'say "hi"', E'two\\nlines', ''][1 + i % 5] || i END AS s
        FROM range(1, 5001) r(i)) TO ${sqlStr(file)} (HEADER)`);
    },
  },
  {
    name: 'quotes_crlf_bom',
    write(file) {
      const lines = ['id,label,amount,day,seen'];
      for (let i = 1; i <= 300; i++) {
        lines.push([
          i,
          i % 9 === 0 ? null : text(i),
          i % 7 === 0 ? null : (i * 1.25).toString(),
          i % 8 === 0 ? null : `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
          i % 6 === 0 ? null : `2024-02-03 04:05:${String(i % 60).padStart(2, '0')}.25`,
        ].map(csvField).join(','));
      }
      fs.writeFileSync(file, '\ufeff' + lines.join('\r\n') + '\r\n');
    },
    duck: 'allow_quoted_nulls = false',
  },
  {
    name: 'no_header_numbers',
    write(file) {
      const lines = [];
      for (let i = 0; i < 200; i++) lines.push(`${i},${i * 2},${(i / 4).toFixed(2)}`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
    },
  },
  {
    name: 'semicolons_and_zones',
    write(file) {
      const lines = ['k;at;t;ok'];
      for (let i = 0; i < 150; i++) {
        const zone = ['+02', 'Z', '-05:30', '+00'][i % 4];
        lines.push(`k${i};2024-06-${String(1 + (i % 30)).padStart(2, '0')} 12:${String(i % 60).padStart(2, '0')}:00${zone};` +
                   `${String(i % 24).padStart(2, '0')}:15:30;${i % 2 ? 'true' : 'false'}`);
      }
      fs.writeFileSync(file, lines.join('\n') + '\n');
    },
  },
  {
    name: 'nullstr',
    write(file) {
      const lines = ['a,b'];
      for (let i = 0; i < 50; i++) lines.push(`${i % 5 ? i : 'NA'},${i % 3 ? `v${i}` : 'NA'}`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
    },
    floe: "nullstr => 'NA'",
    duck: "nullstr = 'NA'",
  },
  {
    name: 'json_lines',
    json: true,
    async write(file) {
      await db.conn.run(`COPY (
        SELECT i AS id, 'n' || i AS name, CASE WHEN i % 4 = 0 THEN NULL ELSE i * 0.5 END::DOUBLE AS half,
               i % 2 = 0 AS even, DATE '2024-01-01' + (i % 300)::INTEGER AS d,
               CASE WHEN i % 6 = 0 THEN NULL ELSE 'x' || (i % 7) END AS maybe
        FROM range(1, 2001) r(i)) TO ${sqlStr(file)} (FORMAT json)`);
    },
  },
];

// floe reads with three partitions, from ranges of the file.
function floeJsonl(sql) {
  return runFloe(floe, ['sql', '--warehouse', path.join(dir, 'warehouse'), '--format', 'jsonl',
                        '-c', 'SET target_partitions = 3', '-c', 'SET text_files.min_split_bytes = 4096',
                        '-c', sql]);
}

for (const c of cases) {
  if (filter && !c.name.includes(filter)) continue;
  const file = path.join(dir, `${c.name}.${c.json ? 'jsonl' : 'csv'}`);
  await c.write(file);
  const fn = c.json ? 'read_json' : 'read_csv';
  const floeSource = `${fn}(${sqlStr(file)}${c.floe ? `, ${c.floe}` : ''})`;
  const duckSource = `${fn}(${sqlStr(file)}${c.duck ? `, ${c.duck}` : ''})`;
  let duck;
  try {
    duck = await db.query(`SELECT * FROM ${duckSource}`);
  } catch (e) {
    report.fail(c.name, `DuckDB cannot read the file: ${e.message}`);
    continue;
  }
  const names = duck.columnNames();
  const types = duck.columnTypes();
  const problems = [];

  // Names and types: DESCRIBE of a table floe makes from the file.
  const table = `t_${c.name}`;
  const described = runFloe(floe, ['sql', '--warehouse', path.join(dir, 'warehouse'), '--format', 'csv',
                                   '-c', `CREATE TABLE ${table} AS SELECT * FROM ${floeSource}`,
                                   '-c', `DESCRIBE ${table}`]);
  if (described.status !== 0) {
    report.fail(c.name, `floe failed: ${described.stderr.trim()}`);
    continue;
  }
  const floeColumns = described.stdout.trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 2));
  const want = names.map((n, k) => [n, kTypes[typeName(db.duck, types[k])] || typeName(db.duck, types[k])]);
  if (!canonEqual(floeColumns, want)) {
    problems.push(`columns: floe ${show(floeColumns, 400)}, DuckDB ${show(want, 400)}`);
  }

  // Values, as multisets of canonical rows.
  const read = floeJsonl(`SELECT * FROM ${floeSource}`);
  if (read.status !== 0) {
    report.fail(c.name, `floe failed: ${read.stderr.trim()}`);
    continue;
  }
  const lines = read.stdout.split('\n').filter((l) => l.length);
  const floeRows = [];
  try {
    for (const line of lines) {
      const obj = parseJson(line);
      const keys = obj.__keys || Object.keys(obj);
      floeRows.push(keys.map((k, col) => canonFloe(db.duck, types[col], obj[k])));
    }
  } catch (e) {
    report.fail(c.name, `floe's rows: ${e.message}`);
    continue;
  }
  const duckRows = duck.getRows().map((row) => row.map((v, col) => canonDuck(db.duck, types[col], v)));
  const key = (row) => JSON.stringify(row);
  floeRows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  duckRows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  if (floeRows.length !== duckRows.length) {
    problems.push(`rows: floe ${floeRows.length}, DuckDB ${duckRows.length}`);
  }
  for (let r = 0, shown = 0; r < Math.min(floeRows.length, duckRows.length) && shown < 5; r++) {
    if (!canonEqual(floeRows[r], duckRows[r])) {
      problems.push(`row ${r}: floe ${show(floeRows[r])}, DuckDB ${show(duckRows[r])}`);
      shown++;
    }
  }
  if (problems.length) report.fail(c.name, problems.join('\n'));
  else report.pass(c.name, `${duckRows.length} rows, ${names.length} columns`);
}

report.finish();
