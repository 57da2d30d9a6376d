// TPC-H-shaped benchmark: floe against DuckDB on the same Parquet files, same thread count,
// in one run.
//
// Data: the eight TPC-H tables generated with DuckDB's SQL (the offline DuckDB has no tpch
// extension) following the column definitions and value distributions of the TPC-H
// specification (section 4.2.3): key ranges and sparse order keys, 1-7 lines per order,
// quantities 1-50, discounts 0.00-0.10, taxes 0.00-0.08, ship/commit/receipt date offsets,
// return flag and line status from CURRENTDATE 1995-06-17, retail price formula, the
// partsupp supplier formula, segments, priorities, ship modes and instructions, part types
// and containers. Comments are pseudo-text of the specified lengths from a small word list
// (none of the queries here matches patterns in comments). Values come from hashes of the
// row number, so the data is the same on every run. Written once per scale factor as
// Parquet (DuckDB's defaults).
//
// Queries: bench/tpch/qNN.sql, all 22, written from the specification with its validation
// parameters; {table} stands for the table's read_parquet(...) in both engines ({table AS
// alias} for a second instance under another name), {fraction} for Q11's 0.0001 / SF.
// ORDER BY lists carry a unique tie-breaker where the spec's order is not total, so both
// engines must return identical rows.
//
// For every query: best wall time of RUNS for each engine, measured two ways for floe: the
// `floe sql` process (one process per run, start-up and a cold heap included; also shown
// minus floe's start-up, the best `floe sql -c 'SELECT 1'` process), and the
// statement in one process that runs it RUNS times (`floe sql --timing`), which is how
// DuckDB's time is taken (the query in the benchmark's process, best of RUNS). Then the
// ratios floe/DuckDB, whether the results agree (numbers compared with a relative
// tolerance of 1e-6: floe's numeric division and averages are decimals, DuckDB's are
// doubles), floe's peak resident memory (the largest of its `floe sql` processes, from
// wait4), and the geometric means of the ratios. floe's processes are started and timed by
// a small launcher process (startLauncher), not by node: node's spawn forks node, whose
// page tables grow with the DuckDB it holds.
//
// --mpirun N runs every floe command as `mpirun -np N floe sql ...` (the in-process time
// is then the statement's time inside one mpirun, start-up excluded; the peak memory is
// mpirun's own: the processes mpirun starts are not its children in the rusage sense, so
// read it as a lower bound). --memory-limit
// sets floe's memory_limit for every statement. --codec runs floe's statements with
// codec_roundtrip on (every stage encoded and decoded before it runs).
//
// With --iceberg, the tables are first loaded into Iceberg tables of a warehouse beside the
// Parquet files (once, by floe's CREATE TABLE AS; lineitem partitioned by
// month(l_shipdate), orders by month(o_orderdate)); floe queries the Iceberg tables through
// its catalog (file planning, pruning and the task reader included) and DuckDB reads the
// same data files with read_parquet over each table's data directory.
//
// usage: node bench/tpch.mjs FLOE DATA_DIR [--sf N] [--threads T] [--runs R] [--queries 1,6]
//                            [--iceberg] [--mpirun N] [--memory-limit SIZE] [--codec]
// bench/queries.sh wraps it with defaults.

import fs from 'node:fs';
import path from 'node:path';

import { openDuckDB, repoRoot, runFloe, sqlStr, startLauncher } from '../test/interop/lib/common.mjs';

const [floe, dataDir, ...rest] = process.argv.slice(2);
if (!floe || !dataDir) {
  console.error('usage: node bench/tpch.mjs FLOE DATA_DIR [--sf N] [--threads T] [--runs R] ' +
                '[--queries 1,6]');
  process.exit(2);
}
const opt = (name, dflt) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : dflt;
};
const sf = Number(opt('--sf', '1'));
const threads = Number(opt('--threads', '2'));
const runs = Number(opt('--runs', '3'));
const only = opt('--queries', '');
const iceberg = rest.includes('--iceberg');
const mpiRanks = Number(opt('--mpirun', '0'));
const memoryLimit = opt('--memory-limit', '');
const codec = rest.includes('--codec');
if (mpiRanks && process.getuid && process.getuid() === 0) {
  // Open MPI refuses root unless told otherwise (CI containers run as root).
  process.env.OMPI_ALLOW_RUN_AS_ROOT = '1';
  process.env.OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = '1';
}

const tables = ['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders',
                'lineitem'];
const dir = path.join(dataDir, `tpch-sf${sf}`);
fs.mkdirSync(dir, { recursive: true });
const file = (t) => path.join(dir, `${t}.parquet`);

// floe's timed processes are started by a launcher that stays small (see startLauncher):
// from node, once DuckDB had read scale factor 10, spawning took 40 ms more.
const launcher = startLauncher();
const db = await openDuckDB(threads);
await db.conn.run(`SET threads = ${threads}`);

// A value in [0, n) from the row number and a salt.
const rnd = (key, salt, n) => `(hash(${key}, ${salt}) % ${n})::BIGINT`;
const words = ['furiously', 'quickly', 'carefully', 'blithely', 'slyly', 'express', 'regular',
               'final', 'pending', 'ironic', 'special', 'bold', 'even', 'silent', 'unusual',
               'deposits', 'requests', 'packages', 'accounts', 'theodolites', 'pinto', 'beans',
               'foxes', 'ideas', 'instructions', 'dependencies', 'platelets', 'asymptotes',
               'courts', 'dolphins'];
const wordList = `[${words.map(sqlStr).join(', ')}]`;
// Pseudo-text of `lo`..`hi` characters.
const text = (key, salt, lo, hi) =>
  `substr(${[0, 1, 2, 3, 4, 5].map((k) =>
      `${wordList}[1 + ${rnd(key, salt * 10 + k, words.length)}]`).join(" || ' ' || ")}, 1, ` +
  `${lo} + ${rnd(key, salt * 10 + 9, hi - lo + 1)}::INTEGER)`;
const phone = (key, nation) =>
  `(${nation} + 10)::VARCHAR || '-' || (100 + ${rnd(key, 71, 900)})::VARCHAR || '-' || ` +
  `(100 + ${rnd(key, 72, 900)})::VARCHAR || '-' || (1000 + ${rnd(key, 73, 9000)})::VARCHAR`;
const pad9 = (v) => `lpad((${v})::VARCHAR, 9, '0')`;

const S = 10000 * sf, C = 150000 * sf, P = 200000 * sf, O = 1500000 * sf;
const nations = [
  ['ALGERIA', 0], ['ARGENTINA', 1], ['BRAZIL', 1], ['CANADA', 1], ['EGYPT', 4],
  ['ETHIOPIA', 0], ['FRANCE', 3], ['GERMANY', 3], ['INDIA', 2], ['INDONESIA', 2],
  ['IRAN', 4], ['IRAQ', 4], ['JAPAN', 2], ['JORDAN', 4], ['KENYA', 0], ['MOROCCO', 0],
  ['MOZAMBIQUE', 0], ['PERU', 1], ['CHINA', 2], ['ROMANIA', 3], ['SAUDI ARABIA', 4],
  ['VIETNAM', 2], ['RUSSIA', 3], ['UNITED KINGDOM', 3], ['UNITED STATES', 1]];
const retailPrice = (k) =>
  `((90000 + ((${k} // 10) % 20001) + 100 * (${k} % 1000)) / 100)::DECIMAL(15,2)`;
const pick = (list, key, salt) =>
  `[${list.map(sqlStr).join(', ')}][1 + ${rnd(key, salt, list.length)}]`;

const generators = {
  region: `SELECT i::INTEGER AS r_regionkey,
             ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'][i + 1] AS r_name,
             ${text('i', 1, 31, 115)} AS r_comment
           FROM range(5) t(i)`,
  nation: `SELECT i::INTEGER AS n_nationkey,
             [${nations.map((n) => sqlStr(n[0])).join(', ')}][i + 1] AS n_name,
             [${nations.map((n) => n[1]).join(', ')}][i + 1]::INTEGER AS n_regionkey,
             ${text('i', 2, 31, 114)} AS n_comment
           FROM range(25) t(i)`,
  supplier: `SELECT k::INTEGER AS s_suppkey, 'Supplier#' || ${pad9('k')} AS s_name,
               ${text('k', 3, 10, 40)} AS s_address, nk::INTEGER AS s_nationkey,
               ${phone('k', 'nk')} AS s_phone,
               ((${rnd('k', 4, 1099999)}::BIGINT - 99999) / 100)::DECIMAL(15,2) AS s_acctbal,
               CASE ${rnd('k', 12, 2000)}
                 WHEN 0 THEN 'Customer ' || ${text('k', 5, 10, 60)} || ' Complaints'
                 WHEN 1 THEN 'Customer ' || ${text('k', 5, 10, 60)} || ' Recommends'
                 ELSE ${text('k', 5, 25, 100)} END AS s_comment
             FROM (SELECT i + 1 AS k, ${rnd('i + 1', 6, 25)} AS nk FROM range(${S}) t(i))`,
  customer: `SELECT k::INTEGER AS c_custkey, 'Customer#' || ${pad9('k')} AS c_name,
               ${text('k', 7, 10, 40)} AS c_address, nk::INTEGER AS c_nationkey,
               ${phone('k', 'nk')} AS c_phone,
               ((${rnd('k', 8, 1099999)}::BIGINT - 99999) / 100)::DECIMAL(15,2) AS c_acctbal,
               ${pick(['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'], 'k', 9)}
                 AS c_mktsegment,
               ${text('k', 10, 29, 116)} AS c_comment
             FROM (SELECT i + 1 AS k, ${rnd('i + 1', 11, 25)} AS nk FROM range(${C}) t(i))`,
  part: `SELECT k::INTEGER AS p_partkey,
           ${[0, 1, 2, 3, 4].map((w) => pick(['almond', 'antique', 'aquamarine', 'azure', 'beige',
             'bisque', 'black', 'blanched', 'blue', 'blush', 'brown', 'burlywood', 'burnished',
             'chartreuse', 'chiffon', 'chocolate', 'coral', 'cornflower', 'cornsilk', 'cream',
             'cyan', 'dark', 'deep', 'dim', 'dodger', 'drab', 'firebrick', 'floral', 'forest',
             'frosted', 'gainsboro', 'ghost', 'goldenrod', 'green', 'grey', 'honeydew', 'hot',
             'indian', 'ivory', 'khaki', 'lace', 'lavender', 'lawn', 'lemon', 'light', 'lime',
             'linen', 'magenta', 'maroon', 'medium', 'metallic', 'midnight', 'mint', 'misty',
             'moccasin', 'navajo', 'navy', 'olive', 'orange', 'orchid', 'pale', 'papaya',
             'peach', 'peru', 'pink', 'plum', 'powder', 'puff', 'purple', 'red', 'rose', 'rosy',
             'royal', 'saddle', 'salmon', 'sandy', 'seashell', 'sienna', 'sky', 'slate', 'smoke',
             'snow', 'spring', 'steel', 'tan', 'thistle', 'tomato', 'turquoise', 'violet',
             'wheat', 'white', 'yellow'], 'k', 20 + w)).join(" || ' ' || ")} AS p_name,
           'Manufacturer#' || m::VARCHAR AS p_mfgr,
           'Brand#' || m::VARCHAR || (1 + ${rnd('k', 26, 5)})::VARCHAR AS p_brand,
           ${pick(['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'], 'k', 27)} || ' ' ||
           ${pick(['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'], 'k', 28)} || ' ' ||
           ${pick(['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'], 'k', 29)} AS p_type,
           (1 + ${rnd('k', 30, 50)})::INTEGER AS p_size,
           ${pick(['SM', 'LG', 'MED', 'JUMBO', 'WRAP'], 'k', 31)} || ' ' ||
           ${pick(['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'], 'k', 32)}
             AS p_container,
           ${retailPrice('k')} AS p_retailprice,
           ${text('k', 33, 5, 22)} AS p_comment
         FROM (SELECT i + 1 AS k, 1 + ${rnd('i + 1', 34, 5)} AS m FROM range(${P}) t(i))`,
  partsupp: `SELECT k::INTEGER AS ps_partkey,
               ((k + (j * ((${S} // 4) + (k - 1) // ${S}))) % ${S} + 1)::INTEGER AS ps_suppkey,
               (1 + ${rnd('k * 4 + j', 40, 9999)})::INTEGER AS ps_availqty,
               ((100 + ${rnd('k * 4 + j', 41, 99901)}) / 100)::DECIMAL(15,2) AS ps_supplycost,
               ${text('k * 4 + j', 42, 49, 198)} AS ps_comment
             FROM range(1, ${P + 1}) a(k), range(4) b(j)
             ORDER BY k, j`,
};

// Orders and lineitem: lineitem first (from an order skeleton), then orders with the
// totals and status its lines give.
const skeleton = `SELECT (i // 8) * 32 + (i % 8) + 1 AS ok,
    CASE WHEN c % 3 = 0 THEN (CASE WHEN c + 1 > ${C} THEN c - 1 ELSE c + 1 END) ELSE c END AS ck,
    DATE '1992-01-01' + ${rnd('i', 50, 2406)}::INTEGER AS od,
    1 + ${rnd('i', 51, 7)} AS nlines, i
  FROM (SELECT i, 1 + ${rnd('i', 52, C)} AS c FROM range(${O}) t(i))`;
const lineitemSql = `SELECT ok::BIGINT AS l_orderkey, pk::INTEGER AS l_partkey,
    ((pk + (sj * ((${S} // 4) + (pk - 1) // ${S}))) % ${S} + 1)::INTEGER AS l_suppkey,
    ln::INTEGER AS l_linenumber, q::DECIMAL(15,2) AS l_quantity,
    (q * ${retailPrice('pk')})::DECIMAL(15,2) AS l_extendedprice,
    (${rnd('lk', 53, 11)} / 100)::DECIMAL(15,2) AS l_discount,
    (${rnd('lk', 54, 9)} / 100)::DECIMAL(15,2) AS l_tax,
    CASE WHEN rd <= DATE '1995-06-17'
         THEN (CASE WHEN ${rnd('lk', 55, 2)} = 0 THEN 'R' ELSE 'A' END) ELSE 'N' END
      AS l_returnflag,
    CASE WHEN sd > DATE '1995-06-17' THEN 'O' ELSE 'F' END AS l_linestatus,
    sd AS l_shipdate, cd AS l_commitdate, rd AS l_receiptdate,
    ${pick(['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'], 'lk', 56)}
      AS l_shipinstruct,
    ${pick(['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'], 'lk', 57)} AS l_shipmode,
    ${text('lk', 58, 10, 43)} AS l_comment
  FROM (SELECT ok, ln, lk, pk, sj, q, sd, cd, sd + (1 + ${rnd('lk', 59, 30)})::INTEGER AS rd
        FROM (SELECT ok, ln, lk, 1 + ${rnd('lk', 60, P)} AS pk, ${rnd('lk', 61, 4)} AS sj,
                     1 + ${rnd('lk', 62, 50)} AS q,
                     od + (1 + ${rnd('lk', 63, 121)})::INTEGER AS sd,
                     od + (30 + ${rnd('lk', 64, 61)})::INTEGER AS cd
              FROM (SELECT ok, od, ln, ok * 8 + ln AS lk
                    FROM (SELECT ok, od, unnest(range(1, nlines + 1)) AS ln FROM skel))))
  ORDER BY l_orderkey, l_linenumber`;
const ordersSql = `SELECT s.ok::BIGINT AS o_orderkey, s.ck::INTEGER AS o_custkey,
    CASE WHEN t.nf = t.n THEN 'F' WHEN t.nf = 0 THEN 'O' ELSE 'P' END AS o_orderstatus,
    t.total AS o_totalprice, s.od AS o_orderdate,
    ${pick(['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'], 's.ok', 65)}
      AS o_orderpriority,
    'Clerk#' || ${pad9(`1 + ${rnd('s.ok', 66, Math.max(1, 1000 * sf))}`)} AS o_clerk,
    0::INTEGER AS o_shippriority, ${text('s.ok', 67, 19, 78)} AS o_comment
  FROM skel s JOIN (SELECT l_orderkey,
        round(sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)), 2)::DECIMAL(15,2) AS total,
        count(*) AS n, count(*) FILTER (WHERE l_linestatus = 'F') AS nf
      FROM read_parquet(${sqlStr(file('lineitem'))}) GROUP BY l_orderkey) t
    ON t.l_orderkey = s.ok
  ORDER BY o_orderkey`;

// Bumped whenever the generators change, so that data of an earlier version is written again.
const dataVersion = '2';
const versionFile = path.join(dir, 'VERSION');
const readVersion = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim() : '');
async function generate() {
  if (readVersion(versionFile) === dataVersion && tables.every((t) => fs.existsSync(file(t)))) {
    return;
  }
  const t0 = Date.now();
  for (const [t, sql] of Object.entries(generators)) {
    await db.conn.run(`COPY (${sql}) TO ${sqlStr(file(t))} (FORMAT parquet)`);
  }
  await db.conn.run(`CREATE TEMP TABLE skel AS ${skeleton}`);
  await db.conn.run(`COPY (${lineitemSql}) TO ${sqlStr(file('lineitem'))} (FORMAT parquet)`);
  await db.conn.run(`COPY (${ordersSql}) TO ${sqlStr(file('orders'))} (FORMAT parquet)`);
  await db.conn.run('DROP TABLE skel');
  fs.writeFileSync(versionFile, dataVersion);
  console.error(`generated TPC-H sf${sf} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

const queryDir = path.join(repoRoot, 'bench', 'tpch');
const warehouse = path.join(dataDir, `tpch-sf${sf}-iceberg`);
const icebergPartitioning = { lineitem: 'month(l_shipdate)', orders: 'month(o_orderdate)' };
function loadIceberg() {
  if (readVersion(path.join(warehouse, 'loaded')) === dataVersion) return;
  fs.rmSync(warehouse, { recursive: true, force: true });
  fs.mkdirSync(warehouse, { recursive: true });
  const statements = ['CREATE SCHEMA tpch'];
  for (const t of tables) {
    const spec = icebergPartitioning[t];
    const withClause = spec ? ` WITH (partitioning = '${spec}')` : '';
    statements.push(`CREATE TABLE tpch.${t}${withClause} AS SELECT * FROM read_parquet(${sqlStr(file(t))})`);
  }
  const t0 = Date.now();
  const res = runFloe(floe, ['sql', '--threads', String(threads), '--warehouse', warehouse,
                             ...statements.flatMap((st) => ['-c', st])]);
  if (res.status !== 0) throw new Error(`loading the Iceberg tables failed: ${res.stderr}`);
  fs.writeFileSync(path.join(warehouse, 'loaded'), dataVersion);
  console.error(`loaded the Iceberg tables in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
function querySql(name, engine) {
  const sql = fs.readFileSync(path.join(queryDir, name), 'utf8')
    .split('\n').filter((l) => !l.startsWith('--')).join('\n');
  return sql.replace(/\{fraction\}/g, String(0.0001 / sf)).replace(
    /\{(\w+)(?: AS (\w+))?\}/g, (_, t, alias) => {
      const as = alias || t;
      if (!tables.includes(t)) throw new Error(`${name}: unknown table {${t}}`);
      if (!iceberg) return `read_parquet(${sqlStr(file(t))}) AS ${as}`;
      if (engine === 'floe') return `tpch.${t} AS ${as}`;
      const files = path.join(warehouse, 'tpch', t, 'data', '**', '*.parquet');
      return `read_parquet(${sqlStr(files)}) AS ${as}`;
    });
}

function rowsOfCsv(text) {
  // Only the final newline goes: a value may end in spaces.
  const lines = text.replace(/\n$/, '').split('\n');
  lines.shift();  // header
  return lines.filter((l) => l.length).map(parseCsvLine);
}
function parseCsvLine(line) {
  const out = [];
  let cur = '', quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { out.push(cur); cur = ''; }
    else cur += ch;
  }
  out.push(cur);
  return out;
}
function sameValue(a, b) {
  if (a === b) return true;
  const x = Number(a), y = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y)) {
    return Math.abs(x - y) <= 1e-6 * Math.max(1, Math.abs(x), Math.abs(y));
  }
  return false;
}
function duckValue(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object' && 'days' in v) {  // DuckDBDateValue
    return v.toString();
  }
  return String(v);
}

await generate();
if (iceberg) loadIceberg();
const queries = fs.readdirSync(queryDir).filter((f) => /^q\d+\.sql$/.test(f)).sort()
  .filter((f) => !only || only.split(',').map(Number).includes(Number(f.slice(1, 3))));

// A floe `sql` command, from the launcher (its time and peak resident set: mpirun's own
// with --mpirun), through mpirun with --mpirun, with the session settings the options ask
// for.
const settings = [
  ...(memoryLimit ? [`SET memory_limit = '${memoryLimit}'`] : []),
  ...(codec ? ['SET codec_roundtrip = on'] : []),
].flatMap((st) => ['-c', st]);
function floeSql(args) {
  const cmd = [...(mpiRanks ? ['mpirun', '-np', String(mpiRanks), '--oversubscribe'] : []), floe,
               'sql', '--threads', String(threads),
               ...(iceberg ? ['--warehouse', warehouse] : []), ...settings, ...args];
  return launcher.run(cmd);
}

// floe's start-up: the best of RUNS `floe sql -c 'SELECT 1'` processes (with the same
// settings) after one that is not counted (a first process after a build ran 3x slower
// than the rest: 0.065 s against 0.020 s), taken again after the queries (the best of
// both), and taken off each query's process time for its "minus start-up" figure.
let startup = Infinity;
async function measureStartup() {
  for (let r = 0; r < runs; r++) {
    const res = await floeSql(['--format', 'csv', '-c', 'SELECT 1']);
    if (res.status === 0) startup = Math.min(startup, res.seconds);
  }
}
await floeSql(['--format', 'csv', '-c', 'SELECT 1']);
await measureStartup();

// The first line of a failed floe command's stderr that is not a `--timing` line.
function firstError(res) {
  return res.stderr.split('\n').find((l) => l.trim() && !l.startsWith('Time: ')) || '';
}

const rows = [];
for (const q of queries) {
  const sql = querySql(q, 'duckdb');
  const floeText = querySql(q, 'floe');
  let duckBest = Infinity, duckRows = null;
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    const reader = await db.conn.runAndReadAll(sql);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    duckBest = Math.min(duckBest, s);
    duckRows = reader.getRows().map((row) => row.map(duckValue));
  }
  let floeBest = Infinity, floeRows = null, error = null, peakMiB = 0;
  for (let r = 0; r < runs && !error; r++) {
    const res = await floeSql(['--format', 'csv', '-c', floeText]);
    if (res.status !== 0) { error = firstError(res) || `exit ${res.status}`; break; }
    floeBest = Math.min(floeBest, res.seconds);
    peakMiB = Math.max(peakMiB, res.peakMiB);
    floeRows = rowsOfCsv(res.stdout);
  }
  // The statement run RUNS times in one process: its best time as `--timing` reports it.
  let inProcess = Infinity;
  if (!error) {
    const res = await floeSql(['--format', 'csv', '--timing',
                         ...Array.from({ length: runs }, () => ['-c', floeText]).flat()]);
    if (res.status !== 0) {
      error = firstError(res) || `exit ${res.status}`;
    } else {
      const times = [...res.stderr.matchAll(/^Time: ([0-9.]+) ms$/gm)].map((m) => Number(m[1]));
      // The settings' own timings come first.
      for (const t of times.slice(settings.length / 2)) inProcess = Math.min(inProcess, t / 1000);
    }
  }
  let agree = 'no';
  if (!error && floeRows.length === duckRows.length &&
      floeRows.every((row, i) => row.length === duckRows[i].length &&
                                 row.every((v, j) => sameValue(v, duckRows[i][j])))) {
    agree = 'yes';
  }
  rows.push({ q: q.replace('.sql', '').toUpperCase(), floe: floeBest, inProcess, duck: duckBest,
              agree, error, peakMiB, nrows: duckRows.length });
  console.error(`${q}: floe ${error ? 'ERROR ' + error : floeBest.toFixed(3) + ' s'} ` +
                `(in-process ${inProcess.toFixed(3)} s, peak ${peakMiB.toFixed(0)} MiB), ` +
                `duckdb ${duckBest.toFixed(3)} s, results agree: ${agree} (${duckRows.length} rows)`);
  if (agree === 'no' && !error) {
    // The first row that differs (or the counts).
    const at = floeRows.findIndex((row, i) => !duckRows[i] || row.length !== duckRows[i].length ||
                                              !row.every((v, j) => sameValue(v, duckRows[i][j])));
    console.error(`  ${floeRows.length} rows from floe, ${duckRows.length} from DuckDB; ` +
                  `first difference at row ${at}`);
    console.error(`  floe:   ${JSON.stringify(floeRows[at])}`);
    console.error(`  duckdb: ${JSON.stringify(duckRows[at])}`);
  }
}

await measureStartup();
launcher.close();
if (!Number.isFinite(startup)) startup = 0;

const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
const how = [iceberg ? 'Iceberg tables' : 'Parquet files',
             mpiRanks ? `mpirun -np ${mpiRanks}` : 'one process',
             ...(memoryLimit ? [`memory_limit ${memoryLimit}`] : []),
             ...(codec ? ['codec_roundtrip on'] : [])].join(', ');
console.log(`TPC-H sf${sf} (${how}), ${threads} threads, best of ${runs}; ` +
            `floe start-up (SELECT 1 process) ${startup.toFixed(3)} s`);
console.log('');
console.log('| query | rows | floe process (s) | floe process minus start-up (s) | ' +
            'floe in-process (s) | DuckDB (s) | (process - start-up)/DuckDB | ' +
            'in-process/DuckDB | floe peak RSS (MiB) | results agree |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
// Never below the in-process time: start-up is measured apart and the machine is noisy.
const net = (r) => Math.max(r.floe - startup, r.inProcess);
for (const r of rows) {
  if (r.error) {
    console.log(`| ${r.q} | ${r.nrows} | error: ${r.error} | - | - | ${r.duck.toFixed(3)} | - | - | - | ` +
                `${r.agree} |`);
    continue;
  }
  console.log(`| ${r.q} | ${r.nrows} | ${r.floe.toFixed(3)} | ${net(r).toFixed(3)} | ` +
              `${r.inProcess.toFixed(3)} | ${r.duck.toFixed(3)} | ${(net(r) / r.duck).toFixed(2)} | ` +
              `${(r.inProcess / r.duck).toFixed(2)} | ${r.peakMiB.toFixed(0)} | ${r.agree} |`);
}
const ok = rows.filter((r) => !r.error);
if (ok.length) {
  console.log(`| geometric mean | | | | | | ${geomean(ok.map((r) => net(r) / r.duck)).toFixed(2)} | ` +
              `${geomean(ok.map((r) => r.inProcess / r.duck)).toFixed(2)} | | ` +
              `${rows.filter((r) => r.agree === 'yes').length}/${rows.length} |`);
}
if (rows.some((r) => r.agree !== 'yes')) process.exitCode = 1;
