// Bad Iceberg input to the floe CLI: a copy of a small real table (Spark's db.plain from
// the reference tables when FLOE_REFERENCE_TABLES names them, else Trino's no_partitioning
// from the shared fixtures; 6 rows each) is damaged one way at a time — truncated or
// garbled metadata JSON, an unknown format version, a missing or corrupt manifest list,
// a corrupt manifest, a missing or corrupt data file — and `floe iceberg scan | plan |
// info` must exit with status 1 (not a signal) and exactly one line on stderr that names
// the damaged file. Usage errors (unknown snapshot, bad --path-map rule, an s3 path with
// no rule) fail cleanly too.
//
// usage: [FLOE_REFERENCE_TABLES=DIR] node test/interop/iceberg_errors.mjs PATH_TO_FLOE

import fs from 'node:fs';
import path from 'node:path';

import { floeFromArgs, makeTempDir, Reporter, repoRoot, runFloe } from './lib/common.mjs';

const floe = floeFromArgs('test/interop/iceberg_errors.mjs');
const report = new Reporter('iceberg bad input');
const { dir, cleanup } = makeTempDir('iceberg-errors');
process.on('exit', cleanup);

// The table copied, its directory's name, and the prefixes its metadata gives its files
// (each mapped to the copy's directory).
const reference = process.env.FLOE_REFERENCE_TABLES;
const source = reference
  ? { dir: path.join(reference, 'spark', 'db', 'plain'), name: 'plain' }
  : { dir: path.resolve(repoRoot, '..', 'shared', 'fixtures', 'iceberg', 'iceberg-cxx', 'tests',
                        'tables', 'no_partitioning'),
      name: 'no_partitioning' };
if (!fs.existsSync(source.dir)) {
  console.error(`source table not found at ${source.dir}`);
  process.exit(2);
}
// Spark names its files file:/<dir>/... and the table's location file:///<dir>; Trino's
// s3a://warehouse/no_partitioning/....
const prefixes = reference ? [`file:${source.dir}/`, `file://${source.dir}/`]
  : ['s3a://warehouse/no_partitioning/'];

/// A fresh copy of the table under DIR/<name>/<table>, with the --path-map rules that
/// read it there.
function freshCopy(name) {
  const root = path.join(dir, name);
  const table = path.join(root, source.name);
  // Dereference links: the damage below must land in the copy, never in a shared fixture
  // reached through a link (a linked ../shared would otherwise be written through).
  fs.cpSync(source.dir, table, { recursive: true, dereference: true });
  return { root, table, args: prefixes.flatMap((p) => ['--path-map', `${p}=${table}/`]) };
}

function currentMetadata(table) {
  const md = path.join(table, 'metadata');
  const hint = path.join(md, 'version-hint.text');
  if (fs.existsSync(hint)) return path.join(md, `v${fs.readFileSync(hint, 'utf8').trim()}.metadata.json`);
  return fs.readdirSync(md).filter((f) => f.endsWith('.metadata.json')).sort().map((f) => path.join(md, f)).pop();
}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/// The files of the current snapshot: {list, manifests, data} local paths.
function currentFiles(table) {
  const md = readJson(currentMetadata(table));
  const snap = md.snapshots.find((s) => s.snapshot_id === md['current-snapshot-id'] ||
                                        String(s['snapshot-id']) === String(md['current-snapshot-id']));
  const local = (p) => {
    const prefix = prefixes.find((x) => p.startsWith(x));
    return path.join(table, prefix ? p.slice(prefix.length) : p);
  };
  const list = local(snap['manifest-list']);
  const dataDir = path.join(table, 'data');
  const data = fs.readdirSync(dataDir).filter((f) => f.endsWith('.parquet')).map((f) => path.join(dataDir, f));
  const manifests = fs.readdirSync(path.join(table, 'metadata'))
    .filter((f) => f.endsWith('.avro') && !f.startsWith('snap-'))
    .map((f) => path.join(table, 'metadata', f));
  return { list, manifests, data };
}

const garble = (file, from = 0.3) => {
  const b = fs.readFileSync(file);
  for (let k = Math.floor(b.length * from); k < b.length; k += 3) b[k] = (b[k] * 31 + 7) & 0xff;
  fs.writeFileSync(file, b);
};
const truncate = (file, keep = 0.5) => {
  const b = fs.readFileSync(file);
  fs.writeFileSync(file, b.subarray(0, Math.floor(b.length * keep)));
};

/// Runs a command and checks: exit status 1, one stderr line, naming `mustName`.
function expectError(name, args, mustName, mustSay) {
  const r = runFloe(floe, args);
  const lines = r.stderr.split('\n').filter((l) => l.length > 0);
  const problems = [];
  if (r.status !== 1) problems.push(`exit status ${r.status}, expected 1`);
  if (lines.length !== 1) problems.push(`${lines.length} stderr lines: ${JSON.stringify(lines)}`);
  if (mustName && !r.stderr.includes(path.basename(mustName))) {
    problems.push(`stderr does not name ${path.basename(mustName)}: ${r.stderr.trim()}`);
  }
  if (mustSay && !mustSay.test(r.stderr)) problems.push(`stderr does not match ${mustSay}: ${r.stderr.trim()}`);
  if (problems.length) report.fail(name, problems.join('\n'));
  else report.pass(name, lines[0].slice(0, 140));
}

// The undamaged copy reads: the baseline for every case below.
{
  const t = freshCopy('good');
  const r = runFloe(floe, ['iceberg', 'scan', t.table, ...t.args, '--format', 'csv']);
  const rows = r.stdout.trim().split('\n').length - 1;
  if (r.status === 0 && rows === 6) report.pass('undamaged copy', '6 rows');
  else report.fail('undamaged copy', `status ${r.status}, ${rows} rows, ${r.stderr}`);
}

const commands = [['scan'], ['plan'], ['info']];

// Metadata JSON damage: every command fails naming the metadata file.
for (const [kind, damage, say] of [
  ['truncated metadata', (f) => truncate(f), null],
  ['garbled metadata', (f) => garble(f, 0.2), null],
  ['empty metadata', (f) => fs.writeFileSync(f, ''), null],
  ['unknown format version', (f) => {
    const md = fs.readFileSync(f, 'utf8').replace(/"format-version"\s*:\s*2/, '"format-version" : 9');
    fs.writeFileSync(f, md);
  }, /format.version|version 9/i],
  ['metadata without schemas', (f) => {
    const md = readJson(f);
    delete md.schemas;
    delete md.schema;
    fs.writeFileSync(f, JSON.stringify(md));
  }, /schema/],
]) {
  for (const [cmd] of commands) {
    const t = freshCopy(`${kind.replaceAll(' ', '-')}-${cmd}`);
    const file = currentMetadata(t.table);
    damage(file);
    expectError(`${kind}: ${cmd}`, ['iceberg', cmd, t.table, ...t.args], file, say);
  }
}

// Manifest list, manifest and data file damage: scan and plan fail naming the file.
for (const [kind, pick, damage, commandsToRun] of [
  ['missing manifest list', (f) => f.list, (p) => fs.rmSync(p), ['scan', 'plan']],
  ['truncated manifest list', (f) => f.list, (p) => truncate(p), ['scan', 'plan']],
  ['garbled manifest list', (f) => f.list, (p) => garble(p, 0.5), ['scan', 'plan']],
  ['missing manifest', (f) => f.manifests[0], (p) => fs.rmSync(p), ['scan', 'plan']],
  ['garbled manifest', (f) => f.manifests[0], (p) => garble(p, 0.5), ['scan', 'plan']],
  ['missing data file', (f) => f.data[0], (p) => fs.rmSync(p), ['scan']],
  ['truncated data file', (f) => f.data[0], (p) => truncate(p), ['scan']],
]) {
  for (const cmd of commandsToRun) {
    const t = freshCopy(`${kind.replaceAll(' ', '-')}-${cmd}`);
    const files = currentFiles(t.table);
    const victim = pick(files);
    if (!victim) {
      report.fail(`${kind}: ${cmd}`, 'the copy has no such file');
      continue;
    }
    // A manifest may belong to an older snapshot only; damage all of them then.
    if (kind.includes('manifest') && !kind.includes('list')) {
      for (const m of files.manifests) damage(m);
      expectError(`${kind}: ${cmd}`, ['iceberg', cmd, t.table, ...t.args], null, /-m\d+\.avro/);
      continue;
    }
    damage(victim);
    expectError(`${kind}: ${cmd}`, ['iceberg', cmd, t.table, ...t.args], victim);
  }
}

// Usage errors.
{
  const t = freshCopy('usage');
  expectError('unknown snapshot', ['iceberg', 'scan', t.table, ...t.args, '--snapshot', '42'], null,
              /snapshot 42/);
  expectError('unknown ref', ['iceberg', 'scan', t.table, ...t.args, '--ref', 'nope'], null, /nope/);
  expectError('bad --as-of', ['iceberg', 'scan', t.table, ...t.args, '--as-of', 'yesterday'], null,
              /as-of/);
  expectError('--as-of before the first snapshot',
              ['iceberg', 'scan', t.table, ...t.args, '--as-of', '2000-01-01'], null, /2000|946684800000|snapshot/);
  expectError('bad --path-map rule', ['iceberg', 'scan', t.table, '--path-map', 'no-equals-sign'], null,
              /no-equals-sign/);
  if (!reference) {
    expectError('s3 path without a rule', ['iceberg', 'scan', t.table], null, /path-map/);
  } else {
    // Rules that map the table's files to a directory without them.
    const gone = prefixes.flatMap((p) => ['--path-map', `${p}=${path.join(dir, 'gone')}/`]);
    expectError('files mapped where they are not', ['iceberg', 'scan', t.table, ...gone], null,
                /gone/);
  }
  expectError('unknown column', ['iceberg', 'scan', t.table, ...t.args, '--columns', 'nope'], null, /nope/);
  expectError('missing table', ['iceberg', 'info', path.join(dir, 'no-such-table')], 'no-such-table');
  const empty = path.join(dir, 'empty-dir');
  fs.mkdirSync(empty);
  expectError('directory without metadata', ['iceberg', 'info', empty], 'empty-dir');
}

report.finish();
