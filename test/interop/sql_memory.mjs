// Spilling under memory_limit, measured from outside: a sort, a top-N and an aggregation over about
// three times the limit complete with exact results, and the process's peak resident
// memory stays within a small multiple of the limit (the limit bounds what operators
// hold; the process also holds its code, thread stacks and the batches in flight). The
// same queries without a limit must need far more memory, so the check can fail.
//
// usage: node test/interop/sql_memory.mjs FLOE

import { spawnSync } from 'node:child_process';

import { floeFromArgs } from './lib/common.mjs';

const floe = floeFromArgs('test/interop/sql_memory.mjs');
const limitMiB = 64;
const allowedMiB = 4 * limitMiB;

// Runs statements in one floe process under /usr/bin/time; returns {stdout, peakMiB}.
function run(statements) {
  const args = ['-f', '%M', floe, 'sql', '--threads', '2', '--format', 'csv'];
  for (const s of statements) args.push('-c', s);
  const r = spawnSync('/usr/bin/time', args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`floe failed: ${r.stderr.trim()}`);
  const lines = r.stderr.trim().split('\n');
  return { stdout: r.stdout, peakMiB: Number(lines[lines.length - 1]) / 1024 };
}

const cases = [
  {
    what: 'sort of 24M bigints (192 MB)',
    sql: 'SELECT x FROM generate_series(1, 24000000) AS g(x) ORDER BY x % 1000 DESC, x ' +
         'OFFSET 23999997',
    expect: 'x\n23998000\n23999000\n24000000\n',
  },
  {
    // A top-N whose heap outgrows the budget falls back to the spilling sort (it once held
    // 2 GB under a 64 MB limit).
    what: 'top 10M of 12M rows (ORDER BY ... LIMIT)',
    sql: 'SELECT x FROM generate_series(1, 12000000) AS g(x) ORDER BY x % 1000 DESC, x ' +
         'LIMIT 3 OFFSET 9999997',
    expect: 'x\n3997166\n3998166\n3999166\n',
  },
  {
    what: 'aggregation into 8M groups',
    sql: 'SELECT count(*), sum(c), min(x), max(x) FROM ' +
         '(SELECT x, count(*) AS c FROM generate_series(1, 8000000) AS g(x) GROUP BY x) AS t',
    expect: 'count,sum,min,max\n8000000,8000000,1,8000000\n',
  },
];

let failed = 0;
for (const c of cases) {
  const limited = run([`SET memory_limit = '${limitMiB}MB'`, c.sql]);
  const unlimited = run([c.sql]);
  const problems = [];
  if (limited.stdout !== c.expect) problems.push(`result ${JSON.stringify(limited.stdout)}`);
  if (unlimited.stdout !== c.expect) problems.push(`unlimited result ${JSON.stringify(unlimited.stdout)}`);
  if (limited.peakMiB > allowedMiB) {
    problems.push(`peak RSS ${limited.peakMiB.toFixed(0)} MiB > ${allowedMiB} MiB`);
  }
  if (unlimited.peakMiB < 1.5 * allowedMiB) {
    problems.push(`without a limit the query peaked at only ${unlimited.peakMiB.toFixed(0)} MiB: ` +
                  'the case does not prove spilling');
  }
  console.log(`${c.what}: memory_limit ${limitMiB} MiB -> peak RSS ` +
              `${limited.peakMiB.toFixed(0)} MiB (no limit: ${unlimited.peakMiB.toFixed(0)} MiB)` +
              (problems.length ? `  FAILED: ${problems.join('; ')}` : ''));
  if (problems.length) failed++;
}
process.exit(failed ? 1 : 0);
