// `floe sql --jsonl`, the machine interface: one persistent session reading {"sql": ...} lines
// from standard input and answering each with exactly one JSON line, flushed at once (each
// request here waits for its answer before the next is sent, as a driver does). A temporary
// table and a setting outlive their statement; an error line and a line that is no request are
// answered and the session goes on; end of input ends the session cleanly, its temporary
// tables with it.
//
// usage: node test/interop/cli_jsonl.mjs PATH_TO_FLOE

import { spawn } from 'node:child_process';
import path from 'node:path';

import { floeFromArgs, makeTempDir, Reporter } from './lib/common.mjs';

const floe = floeFromArgs('test/interop/cli_jsonl.mjs');
const report = new Reporter('cli --jsonl');
const { dir, cleanup } = makeTempDir('cli-jsonl');
process.on('exit', cleanup);
const warehouse = path.join(dir, 'warehouse');

/// Starts a session; returns {ask(line) -> answer line, close() -> {status, stderr}}.
function startSession() {
  const child = spawn(floe, ['sql', '--jsonl', '--warehouse', warehouse, '--threads', '2'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let waiting = null;
  const exited = new Promise((resolve) => {
    child.on('close', (status, signal) => resolve(status === null ? `signal ${signal}` : status));
  });
  const deliver = () => {
    const at = stdout.indexOf('\n');
    if (waiting && at >= 0) {
      const line = stdout.slice(0, at);
      stdout = stdout.slice(at + 1);
      const { resolve } = waiting;
      waiting = null;
      resolve(line);
    }
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    deliver();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  exited.then((status) => {
    if (waiting) waiting.reject(new Error(`floe exited (${status}) before answering: ${stderr}`));
  });
  return {
    ask(line) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer in 60 s to ${line}`)), 60000);
        waiting = {
          resolve: (answer) => {
            clearTimeout(timer);
            resolve(answer);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        child.stdin.write(line + '\n');
        deliver();
      });
    },
    async close() {
      child.stdin.end();
      const status = await exited;
      return { status, stderr, rest: stdout };
    },
  };
}

const sql = (text) => JSON.stringify({ sql: text });

async function expectAnswers(label, session, exchanges) {
  for (const [request, expected] of exchanges) {
    const answer = await session.ask(request);
    if (answer === expected) {
      report.pass(`${label}: ${request}`);
    } else {
      report.fail(`${label}: ${request}`, `expected ${expected}\n     got ${answer}`);
    }
  }
}

const first = startSession();
await expectAnswers('first session', first, [
  [sql('CREATE TEMP TABLE t (a int, b text)'),
   '{"columns":[],"rows":[],"command":"CREATE TABLE"}'],
  [sql("INSERT INTO t VALUES (1, 'one'), (2, NULL)"),
   '{"columns":[],"rows":[],"command":"INSERT 0 2"}'],
  [sql('SELECT a, b FROM t ORDER BY a'),
   '{"columns":["a","b"],"rows":[["1","one"],["2",null]],"command":"SELECT 2"}'],
  [sql('SELECT c FROM t'), '{"error":"column \\"c\\" does not exist (line 1, column 8)"}'],
  [sql('SELECT count(*) AS n FROM t'),
   '{"columns":["n"],"rows":[["2"]],"command":"SELECT 1"}'],
  ['{"sql": 1}', '{"error":"input line 6: no string member \\"sql\\""}'],
  ['SELECT 1', '{"error":"input line 7: not a JSON object"}'],
  [sql('SET extra_float_digits = 0'), '{"columns":[],"rows":[],"command":"SET"}'],
  [sql('SELECT 0.1::float8 + 0.2 AS f, true AS b, ARRAY[1, NULL] AS a'),
   '{"columns":["f","b","a"],"rows":[["0.3","t","{1,NULL}"]],"command":"SELECT 1"}'],
]);
const end = await first.close();
if (end.status === 0 && end.stderr === '' && end.rest === '') {
  report.pass('end of input ends the session with exit 0');
} else {
  report.fail('end of input', `exit ${end.status}, stderr ${JSON.stringify(end.stderr)}, ` +
              `left over ${JSON.stringify(end.rest)}`);
}

// The temporary table went with its session.
const second = startSession();
await expectAnswers('second session', second, [
  [sql('SELECT a FROM t'), '{"error":"table \\"t\\" does not exist (line 1, column 15)"}'],
  [sql('SELECT 1 AS one'), '{"columns":["one"],"rows":[["1"]],"command":"SELECT 1"}'],
]);
const end2 = await second.close();
if (end2.status === 0) report.pass('second session ends with exit 0');
else report.fail('second session', `exit ${end2.status}: ${end2.stderr}`);

report.finish();
