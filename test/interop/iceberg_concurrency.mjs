// Concurrent commits through one SQLite catalog file: 4 processes at a time, each running
// 25 `floe iceberg append` commands one after another against the same partitioned table.
// Every append must commit exactly once: the table ends with exactly 100 snapshots in one
// line of ancestry (each the parent of the next, sequence numbers 1..100), the current
// snapshot's total-records is the sum of the inputs, and a scan returns every input row
// exactly once.
//
// usage: node test/interop/iceberg_concurrency.mjs PATH_TO_FLOE

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { floeFromArgs, makeTempDir, openDuckDB, parseJson, Reporter, sqlStr } from './lib/common.mjs';
import { catalogArgs, floeOk, tableInfo } from './lib/iceberg_catalog.mjs';

const floe = floeFromArgs('test/interop/iceberg_concurrency.mjs');
const report = new Reporter('iceberg concurrency');
const { dir, cleanup } = makeTempDir('iceberg-concurrency');
process.on('exit', cleanup);

const kWorkers = 4;
const kAppendsPerWorker = 25;
const kRowsPerFile = 40;
const catalog = catalogArgs(dir);
const table = 'db.events';

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(floe, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

floeOk(floe, ['iceberg', 'create-namespace', ...catalog, 'db']);
// Four writers race for every commit: a loser refreshes, re-validates and retries, so the
// table allows more retries (with short waits) than the defaults.
floeOk(floe, ['iceberg', 'create', ...catalog, table, '--schema',
              'id bigint not null, worker int not null, ts timestamptz',
              '--partition', 'bucket(4, id), day(ts)',
              '--property', 'commit.retry.num-retries=200',
              '--property', 'commit.retry.min-wait-ms=5',
              '--property', 'commit.retry.max-wait-ms=200']);

const { query } = await openDuckDB();
const inputs = [];
fs.mkdirSync(path.join(dir, 'input'));
for (let w = 0; w < kWorkers; w++) {
  inputs.push([]);
  for (let k = 0; k < kAppendsPerWorker; k++) {
    const file = path.join(dir, 'input', `w${w}_${k}.parquet`);
    const base = (w * kAppendsPerWorker + k) * kRowsPerFile;
    await query(`COPY (SELECT (${base} + i)::BIGINT AS id, ${w}::INTEGER AS worker,
                              TIMESTAMPTZ '2025-01-01 00:00:00+00' + to_hours(${base} + i) AS ts
                       FROM range(${kRowsPerFile}) t(i)) TO ${sqlStr(file)} (FORMAT parquet)`);
    inputs[w].push(file);
  }
}

const t0 = Date.now();
const failures = [];
await Promise.all(inputs.map(async (files, w) => {
  for (const file of files) {
    const r = await run(['iceberg', 'append', ...catalog, table, file]);
    if (r.code !== 0) failures.push(`worker ${w} ${path.basename(file)}: exit ${r.code ?? r.signal}: ${r.stderr.trim()}`);
    else if (!new RegExp(`^appended ${kRowsPerFile} rows in \\d+ files \\(snapshot -?\\d+\\)\\n$`).test(r.stdout)) {
      failures.push(`worker ${w}: unexpected output ${JSON.stringify(r.stdout)}`);
    }
  }
}));
const seconds = (Date.now() - t0) / 1000;

if (failures.length === 0) {
  report.pass('100 concurrent appends succeed', `${seconds.toFixed(1)} s`);
} else {
  report.fail('100 concurrent appends succeed', failures.slice(0, 5).join('\n'));
}

const total = kWorkers * kAppendsPerWorker;
const { json: info } = tableInfo(floe, catalog, table);
{
  const snaps = info.snapshots;
  const problems = [];
  if (snaps.length !== total) problems.push(`${snaps.length} snapshots, expected ${total}`);
  const byId = new Map(snaps.map((s) => [s.snapshot_id.toString(), s]));
  // Walk from the current snapshot to the root: every snapshot must be on that line.
  let cur = byId.get(info.current_snapshot_id.toString());
  let seq = snaps.length;
  const seen = new Set();
  while (cur) {
    seen.add(cur.snapshot_id.toString());
    if (Number(cur.sequence_number.toString()) !== seq) {
      problems.push(`snapshot ${cur.snapshot_id} has sequence number ${cur.sequence_number}, expected ${seq}`);
      break;
    }
    if (cur.summary['added-records'] !== String(kRowsPerFile)) {
      problems.push(`snapshot ${cur.snapshot_id} added ${cur.summary['added-records']} records`);
    }
    seq--;
    cur = cur.parent_snapshot_id === null ? undefined : byId.get(cur.parent_snapshot_id.toString());
  }
  if (seen.size !== snaps.length) problems.push(`${snaps.length - seen.size} snapshots are off the main line`);
  const current = byId.get(info.current_snapshot_id.toString());
  if (!current || current.summary['total-records'] !== String(total * kRowsPerFile)) {
    problems.push(`total-records ${current && current.summary['total-records']}, expected ${total * kRowsPerFile}`);
  }
  if (problems.length === 0) report.pass('exactly 100 snapshots in one line of ancestry');
  else report.fail('exactly 100 snapshots in one line of ancestry', problems.join('\n'));
}

{
  const out = floeOk(floe, ['iceberg', 'scan', ...catalog, table, '--format', 'jsonl']);
  const lines = out.split('\n').filter((l) => l !== '');
  const counts = new Map();
  const problems = [];
  for (const line of lines) {
    const row = parseJson(line);
    const id = Number(row.id.text);
    const expectedWorker = Math.floor(id / (kAppendsPerWorker * kRowsPerFile));
    if (Number(row.worker.text) !== expectedWorker) problems.push(`row ${line}: wrong worker`);
    counts.set(id, (counts.get(id) || 0) + 1);
  }
  for (let id = 0; id < total * kRowsPerFile; id++) {
    const n = counts.get(id) || 0;
    if (n !== 1) problems.push(`id ${id} appears ${n} times`);
    if (problems.length > 5) break;
  }
  if (lines.length !== total * kRowsPerFile) problems.push(`${lines.length} rows, expected ${total * kRowsPerFile}`);
  if (problems.length === 0) report.pass('every row present exactly once', `${lines.length} rows`);
  else report.fail('every row present exactly once', problems.slice(0, 6).join('\n'));
}

report.finish();
