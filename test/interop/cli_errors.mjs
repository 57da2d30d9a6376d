// Bad input to the floe CLI: every `floe parquet` command on a truncated file, bad
// magic at either end, a footer length past the start of the file, a garbled footer,
// an empty file, a directory and a missing file must exit non-zero (not by a signal)
// with exactly one line on stderr that names the file. A failed copy leaves no output. A
// page whose bytes were damaged fails its CRC; a FIFO is refused.
// Usage errors (unknown column, bad option value) must fail cleanly too.
//
// usage: node test/interop/cli_errors.mjs PATH_TO_FLOE

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { floeFromArgs, makeTempDir, openDuckDB, Reporter, runFloe, sqlStr } from './lib/common.mjs';

const floe = floeFromArgs('test/interop/cli_errors.mjs');
const report = new Reporter('cli bad input');
const { dir, cleanup } = makeTempDir('cli-errors');
process.on('exit', cleanup);

// A valid file to damage.
const good = path.join(dir, 'good.parquet');
const db = await openDuckDB(1);
await db.conn.run(`COPY (SELECT i AS a, 'x' || i AS b FROM range(5000) t(i)) TO ${sqlStr(good)}
                   (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
const bytes = fs.readFileSync(good);

const write = (name, data) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, data);
  return p;
};
const withBytes = (at, replacement) => {
  const b = Buffer.from(bytes);
  Buffer.from(replacement).copy(b, at < 0 ? b.length + at : at);
  return b;
};
const footerLength = bytes.readUInt32LE(bytes.length - 8);

const bad = {
  truncated: write('truncated.parquet', bytes.subarray(0, Math.floor(bytes.length / 2))),
  'truncated-footer': write('truncated_footer.parquet', bytes.subarray(0, bytes.length - 3)),
  'bad-tail-magic': write('bad_tail_magic.parquet', withBytes(-4, 'PAR2')),
  'bad-head-magic': write('bad_head_magic.parquet', withBytes(0, 'XXXX')),
  'footer-length-past-start': write('long_footer.parquet', (() => {
    const b = Buffer.from(bytes);
    b.writeUInt32LE(b.length * 2, b.length - 8);
    return b;
  })()),
  'garbled-footer': write('garbled_footer.parquet', (() => {
    const b = Buffer.from(bytes);
    const start = b.length - 8 - footerLength;
    for (let k = start; k < b.length - 8; k += 3) b[k] = (b[k] * 31 + 7) & 0xff;
    return b;
  })()),
  'garbled-data': write('garbled_data.parquet', (() => {
    const b = Buffer.from(bytes);
    const end = b.length - 8 - footerLength;
    for (let k = 4; k < end; k += 5) b[k] ^= 0x5a;
    return b;
  })()),
  'not-parquet': write('text.parquet', 'hello, this is not a parquet file at all\n'),
  empty: write('empty.parquet', ''),
  directory: (() => {
    const d = path.join(dir, 'a_directory.parquet');
    fs.mkdirSync(d);
    return d;
  })(),
  missing: path.join(dir, 'does_not_exist.parquet'),
};

function expectOneLineError(label, args, file, { allowSuccess = false } = {}) {
  const r = runFloe(floe, args);
  const lines = r.stderr.split('\n').filter((l) => l.length);
  const problems = [];
  if (r.status === 0) {
    if (allowSuccess) return report.pass(label, 'read without error');
    problems.push('exit code 0');
  }
  if (typeof r.status !== 'number' || r.status < 0 || r.status > 125) {
    problems.push(`did not exit cleanly: ${r.status}`);
  }
  if (lines.length !== 1) problems.push(`${lines.length} lines on stderr`);
  if (file && !r.stderr.includes(file)) problems.push('stderr does not name the file');
  if (problems.length) {
    report.fail(label, `${problems.join('; ')}\n$ floe ${args.join(' ')}\nstderr: ${r.stderr.trim()}`);
  } else {
    report.pass(label, lines[0].length > 150 ? `${lines[0].slice(0, 150)}...` : lines[0]);
  }
}

const out = path.join(dir, 'out.parquet');
for (const [what, file] of Object.entries(bad)) {
  for (const cmd of ['schema', 'meta', 'cat', 'scan', 'copy']) {
    const args = cmd === 'copy' ? ['parquet', 'copy', file, out] : ['parquet', cmd, file];
    // Damaged data pages are only found by commands that decode them.
    const allowSuccess = what === 'garbled-data' && (cmd === 'schema' || cmd === 'meta');
    expectOneLineError(`${what}/${cmd}`, args, file, { allowSuccess });
    if (cmd === 'copy' && fs.existsSync(out)) {
      report.fail(`${what}/copy leaves no output`, `${out} exists after a failed copy`);
      fs.rmSync(out, { force: true });
    }
  }
}

// A page whose bytes were damaged (50 bytes flipped inside a zstd dictionary page of a file
// floe wrote, which carries page CRCs) is an error naming the file, column, row group and
// page, never values printed with exit code 0; --no-verify-checksums skips the check.
const written = path.join(dir, 'written.parquet');
{
  const r = runFloe(floe, ['parquet', 'copy', good, written, '--compression', 'zstd']);
  if (r.status !== 0) throw new Error(`copy failed: ${r.stderr}`);
  const meta = JSON.parse(runFloe(floe, ['parquet', 'meta', written]).stdout);
  const chunk = meta.row_groups[0].columns.find((c) => c.path === 'b');
  const pageBytes = chunk.data_page_offset - chunk.dictionary_page_offset;
  if (pageBytes < 300) throw new Error(`the dictionary page is too small to damage (${pageBytes})`);
  const damaged = Buffer.from(fs.readFileSync(written));
  for (let k = 0; k < 50; ++k) damaged[chunk.dictionary_page_offset + 200 + k] ^= 0x5a;
  const file = write('damaged_page.parquet', damaged);
  for (const cmd of ['cat', 'scan']) {
    const r = runFloe(floe, ['parquet', cmd, file]);
    const want = `'${file}', column 'b', row group 0, page 0 at byte offset ` +
                 `${chunk.dictionary_page_offset}: page checksum mismatch`;
    if (r.status === 1 && r.stderr.includes(want) && r.stdout === '') {
      report.pass(`damaged page/${cmd}`, r.stderr.trim().slice(0, 150));
    } else {
      report.fail(`damaged page/${cmd}`, `exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
    }
  }
  const unchecked = runFloe(floe, ['parquet', 'scan', file, '--no-verify-checksums']);
  if (!unchecked.stderr.includes('checksum')) {
    report.pass('damaged page, unchecked', `exit ${unchecked.status}`);
  } else {
    report.fail('damaged page, unchecked', unchecked.stderr);
  }
}

// A FIFO is refused at once (opening it would wait for a writer for ever).
{
  const fifo = path.join(dir, 'pipe.parquet');
  const made = spawnSync('mkfifo', [fifo]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  for (const cmd of ['schema', 'cat']) {
    const r = runFloe(floe, ['parquet', cmd, fifo], { timeout: 10000 });
    if (r.status === 1 && r.stderr.includes('is a FIFO, not a regular file')) {
      report.pass(`fifo/${cmd}`, r.stderr.trim());
    } else {
      report.fail(`fifo/${cmd}`, `exit ${r.status}, signal ${r.signal}, stderr ${r.stderr}`);
    }
  }
}

// Usage errors on a good file.
expectOneLineError('unknown column', ['parquet', 'cat', good, '--columns', 'a,nope'], good);
expectOneLineError('copy onto itself', ['parquet', 'copy', good, good], good);
for (const [label, args] of [
  ['bad --format', ['parquet', 'cat', good, '--format', 'xml']],
  ['bad --limit', ['parquet', 'cat', good, '--limit', '-3']],
  ['bad --compression', ['parquet', 'copy', good, out, '--compression', 'lzo']],
  ['bad --data-page-version', ['parquet', 'copy', good, out, '--data-page-version', '3']],
  ['no file', ['parquet', 'cat']],
  ['unknown command', ['parquet', 'frobnicate', good]],
]) {
  const r = runFloe(floe, args);
  if (r.status !== 0 && typeof r.status === 'number' && r.status <= 125 && r.stderr.trim().length) {
    report.pass(label, r.stderr.trim().split('\n')[0]);
  } else {
    report.fail(label, `exit ${r.status}, stderr ${JSON.stringify(r.stderr)}`);
  }
}
// The good file still works, and --help/--version succeed.
for (const args of [['--version'], ['--help'], ['parquet', '--help'], ['parquet', 'cat', good, '--limit', '2']]) {
  const r = runFloe(floe, args);
  if (r.status === 0 && r.stdout.length) report.pass(`floe ${args.join(' ')}`);
  else report.fail(`floe ${args.join(' ')}`, `exit ${r.status}: ${r.stderr.trim()}`);
}
report.finish();
