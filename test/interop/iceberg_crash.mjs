// A writer killed at any moment never leaves a partial commit. A `floe iceberg append` of a
// large DuckDB file (1M rows, 8 buckets) into a table of a SQLite catalog is killed with
// SIGKILL at random points (from 50 ms to a little past the time an append takes, every
// other kill close to the end, so that kills land while reading, writing, committing and
// after the commit), 8 times. After
// each kill the table must be readable, hold either the snapshots it had before or exactly
// one more (the killed append, whole), and a scan must return exactly the rows of its
// current snapshot: every id of the input as many times as appends committed. A last
// append that is not killed must still commit.
//
// usage: node test/interop/iceberg_crash.mjs PATH_TO_FLOE

import { spawn } from 'node:child_process';
import path from 'node:path';

import { floeFromArgs, makeTempDir, openDuckDB, parseJson, Reporter, runFloe,
         sqlStr } from './lib/common.mjs';
import { catalogArgs, filesUnder, floeOk, tableInfo } from './lib/iceberg_catalog.mjs';

const floe = floeFromArgs('test/interop/iceberg_crash.mjs');
const report = new Reporter('iceberg crash');
const { dir, cleanup } = makeTempDir('iceberg-crash');
process.on('exit', cleanup);

const kRows = 1000000;
const kKills = 8;
const catalog = catalogArgs(dir);
const table = 'db.big';
const input = path.join(dir, 'big.parquet');

// A fixed seed keeps a failing run reproducible; FLOE_CRASH_SEED overrides it.
let seed = Number(process.env.FLOE_CRASH_SEED || 20261129);
function random() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}

function runKilled(args, delayMs) {
  return new Promise((resolve) => {
    const child = spawn(floe, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

/// Checks the table against `committed` appends; returns a list of problems.
function checkTable(committed) {
  const problems = [];
  const scan = runFloe(floe, ['iceberg', 'scan', ...catalog, table, '--columns', 'id',
                              '--format', 'csv']);
  if (scan.status !== 0) return [`scan exited with ${scan.status}: ${scan.stderr.trim()}`];
  const lines = scan.stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] !== 'id') problems.push(`scan header ${lines[0]}`);
  if (lines.length - 1 !== committed * kRows) {
    problems.push(`scan returned ${lines.length - 1} rows, expected ${committed * kRows}`);
  }
  const counts = new Uint8Array(kRows);
  for (let i = 1; i < lines.length; i++) {
    const id = Number(lines[i]);
    if (!(id >= 0 && id < kRows)) {
      problems.push(`scan returned id ${lines[i]}`);
      break;
    }
    counts[id]++;
  }
  const wrong = counts.findIndex((n) => n !== committed);
  if (wrong >= 0) problems.push(`id ${wrong} appears ${counts[wrong]} times, expected ${committed}`);
  const plan = parseJson(floeOk(floe, ['iceberg', 'plan', ...catalog, table, '--format', 'json']));
  if (Number(plan.row_count.text) !== committed * kRows) {
    problems.push(`plan row_count ${plan.row_count}, expected ${committed * kRows}`);
  }
  return problems;
}

floeOk(floe, ['iceberg', 'create-namespace', ...catalog, 'db']);
floeOk(floe, ['iceberg', 'create', ...catalog, table, '--schema',
              'id bigint not null, ts timestamptz, payload string', '--partition', 'bucket(8, id)']);
{
  const { query } = await openDuckDB();
  await query(`COPY (SELECT i::BIGINT AS id, TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_seconds(i) AS ts,
                            md5(i::VARCHAR) AS payload FROM range(${kRows}) t(i))
               TO ${sqlStr(input)} (FORMAT parquet)`);
}

// One append that runs to the end gives the time an append takes here.
const t0 = Date.now();
floeOk(floe, ['iceberg', 'append', ...catalog, table, input]);
const appendMs = Date.now() - t0;
let committed = 1;
{
  const problems = checkTable(committed);
  if (problems.length === 0) report.pass('an append that is not killed commits', `${appendMs} ms`);
  else report.fail('an append that is not killed commits', problems.join('\n'));
}

const maxDelay = Math.max(1500, Math.round(appendMs * 1.2));
const outcomes = [];
let windowLo = appendMs * 0.8;
let windowHi = appendMs * 1.5;
for (let k = 0; k < kKills; k++) {
  const name = `kill ${k + 1}`;
  const before = tableInfo(floe, catalog, table).json;
  // Every other kill aims at the end of the append, where the commit happens: between the
  // latest delay that killed a writer before its commit and the earliest one that came too
  // late (narrowed by every outcome, like a bisection).
  const delay = k % 2 === 0 ? 50 + Math.floor(random() * (maxDelay - 50))
                            : Math.round(windowLo + (0.25 + 0.5 * random()) * (windowHi - windowLo));
  const r = await runKilled(['iceberg', 'append', ...catalog, table, input], delay);
  const problems = [];
  let after;
  try {
    after = tableInfo(floe, catalog, table).json;
  } catch (e) {
    report.fail(name, `the table cannot be loaded after the kill at ${delay} ms: ${e.message}`);
    continue;
  }
  const added = after.snapshots.length - before.snapshots.length;
  if (added === 1) {
    committed++;
    const current = after.snapshots.find(
      (s) => s.snapshot_id.toString() === after.current_snapshot_id.toString());
    if (!current || current.parent_snapshot_id === null ||
        current.parent_snapshot_id.toString() !== before.current_snapshot_id.toString()) {
      problems.push('the new snapshot is not a child of the previous current snapshot');
    }
  } else if (added !== 0) {
    problems.push(`${added} snapshots were added`);
  }
  if (r.signal === null && r.code === 0 && added !== 1) {
    problems.push('the append exited 0 before the kill but no snapshot was added');
  }
  if (r.signal === null && r.code !== 0) problems.push(`the append failed: ${r.stderr.trim()}`);
  problems.push(...checkTable(committed));
  const outcome = r.signal ? (added ? 'killed after commit' : 'killed before commit') : 'finished';
  outcomes.push(outcome);
  if (outcome === 'killed before commit') windowLo = Math.max(windowLo, delay);
  else if (delay < windowHi) windowHi = Math.max(delay, windowLo + 20);
  if (problems.length === 0) report.pass(name, `${delay} ms: ${outcome}`);
  else report.fail(name, `${delay} ms (${outcome}):\n${problems.join('\n')}`);
}

{
  const out = floeOk(floe, ['iceberg', 'append', ...catalog, table, input]);
  committed++;
  const problems = checkTable(committed);
  if (!/^appended 1000000 rows/.test(out)) problems.push(`append printed ${out}`);
  const live = new Set(parseJson(floeOk(floe, ['iceberg', 'plan', ...catalog, table, '--format',
                                               'json']))
    .groups.flatMap((g) => g.tasks.map((t) => t.path)));
  const orphans = filesUnder(path.join(dir, 'warehouse', 'db', 'big', 'data'), '.parquet')
    .filter((f) => !live.has(f)).length;
  if (problems.length === 0) {
    report.pass('an append after the kills commits',
                `${committed} appends committed; ${orphans} data files left by killed writers`);
  } else {
    report.fail('an append after the kills commits', problems.join('\n'));
  }
}

report.finish();
