#!/usr/bin/env bash
# Ranks that share only S3 and the catalog: under mpirun -np 2 a SQL catalog whose warehouse
# is a bucket on moto's S3 server (authenticating; settings in the catalog's configuration)
# takes a CREATE TABLE, a parallel partitioned INSERT (one snapshot, files written by both
# ranks straight to S3) and a SELECT both ranks read; every data file is an object in the
# bucket; read_parquet of a glob over those objects reads them on both ranks (the scan
# carries the catalog's S3 settings to rank 1); nothing printed holds the secret key.
# usage: s3.sh FLOE_BINARY MPIEXEC
set -euo pipefail
floe="$1"
mpiexec="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
scratch="$(mktemp -d)"
moto_pid=""
cleanup() {
  # moto_s3.py stops its server when its standard input closes.
  [ -z "$moto_pid" ] || { exec {moto_in}>&-; wait "$moto_pid" 2>/dev/null || true; }
  rm -rf "$scratch"
}
trap cleanup EXIT
cd "$scratch"
fail() { echo "FAIL: $*"; for f in out.txt err.txt; do [ -f "$f" ] && cat "$f"; done; exit 1; }

mkfifo moto.in
"$root/.deps/py/bin/python" "$root/test/tools/moto_s3.py" <moto.in >moto.out &
moto_pid=$!
exec {moto_in}>moto.in
for _ in $(seq 300); do [ -s moto.out ] && break; sleep 0.1; done
field() { "$root/.deps/py/bin/python" -c 'import json,sys; print(json.load(open("moto.out"))[sys.argv[1]])' "$1"; }
endpoint="$(field endpoint)"
secret="$(field secret_access_key)"
touch catalog.db
cat >floe.yaml <<YAML
catalog:
  lake:
    type: sql
    uri: sqlite:///$scratch/catalog.db
    warehouse: s3://$(field bucket)/mpi
    s3.endpoint: $endpoint
    s3.region: $(field region)
    s3.access-key-id: $(field access_key_id)
    s3.secret-access-key: $secret
YAML
export FLOE_CONFIG="$scratch/floe.yaml"

"$floe" sql --catalog lake -c "CREATE SCHEMA db" \
  -c "CREATE TABLE db.t (id bigint, day date, s text) WITH (partitioning = 'day(day)')" \
  >out.txt 2>err.txt || fail "CREATE TABLE"
set +e
"$mpiexec" -np 2 "$floe" sql --catalog lake --format csv \
  -c "INSERT INTO db.t SELECT g, DATE '2024-01-01' + CAST(g % 5 AS int), 'r' || g FROM generate_series(1, 200000) s(g)" \
  -c "SELECT count(*), sum(id), count(DISTINCT day) FROM db.t" \
  -c "EXPLAIN ANALYZE SELECT sum(id) FROM db.t WHERE day = DATE '2024-01-03'" >out.txt 2>err.txt
code=$?
set -e
[ "$code" -eq 0 ] || fail "the INSERT and SELECT under mpirun exited with $code"
grep -q '^200000,20000100000,5$' out.txt || fail "the rows read back"
grep -q 'rank 1' out.txt || fail "EXPLAIN ANALYZE shows no work on rank 1"
files="s3://$(field bucket)/mpi/db/t/data/day_day=*/*.parquet"
set +e
"$mpiexec" -np 2 "$floe" sql --catalog lake --format csv \
  -c "SELECT count(*), sum(id), min(s), max(day) FROM read_parquet('$files')" \
  -c "EXPLAIN ANALYZE SELECT sum(id) FROM read_parquet('$files')" >out.txt 2>err.txt
code=$?
set -e
[ "$code" -eq 0 ] || fail "read_parquet under mpirun exited with $code"
grep -q '^200000,20000100000,r1,2024-01-05$' out.txt || fail "the rows read_parquet read"
grep -A12 'ParquetScanExec' out.txt | grep -q 'on rank 1: rows=[1-9]' ||
  fail "EXPLAIN ANALYZE shows no Parquet rows read on rank 1"
if grep -rq -- "$secret" out.txt err.txt; then fail "the secret key was printed"; fi
"$floe" sql --catalog lake --format csv -c 'SELECT count(*) FROM db."t$snapshots"' >out.txt 2>err.txt
[ "$(tail -1 out.txt)" = "1" ] || fail "snapshots after the INSERT"
"$floe" sql --catalog lake --format csv \
  -c "SELECT count(*) FROM db.\"t\$files\" WHERE file_path LIKE 's3://%/mpi/db/t/data/day_day=%'" >out.txt 2>err.txt
[ "$(tail -1 out.txt)" -ge 5 ] || fail "data files on S3"
if grep -rq -- "$secret" out.txt err.txt; then fail "the secret key was printed"; fi
echo "ok"
