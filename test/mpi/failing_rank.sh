#!/usr/bin/env bash
# Under mpirun -np 3, every task on rank 2 fails (FLOE_TEST_FAIL_RANK=2): a parallel
# INSERT must fail with rank 2's message and a non-zero exit, commit no snapshot and
# leave no data file, and no rank may hang. A rank killed mid-write ends the job and
# commits nothing. Then the same INSERT without the failure commits exactly one snapshot
# with every row once.
# usage: failing_rank.sh FLOE_BINARY MPIEXEC
set -euo pipefail
floe="$1"
mpiexec="$2"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"

"$floe" sql --warehouse wh \
  -c "CREATE TABLE t (id bigint, day date, s text) WITH (partitioning = 'bucket(4, id), day(day)')"

insert="INSERT INTO t SELECT g, DATE '2024-01-01' + CAST(g % 30 AS int), 'row ' || g FROM generate_series(1, 200000) s(g)"
set +e
timeout 120 "$mpiexec" -np 3 --oversubscribe -x FLOE_TEST_FAIL_RANK=2 \
  "$floe" sql --warehouse wh -c "SET target_partitions = 6" -c "$insert" >out.txt 2>err.txt
code=$?
set -e
if [ "$code" -eq 0 ] || [ "$code" -eq 124 ]; then
  echo "FAIL: the INSERT with a failing rank exited with $code"; cat out.txt err.txt; exit 1
fi
grep -q "ERROR: rank 2: injected failure" err.txt || { echo "FAIL: no rank 2 error"; cat err.txt; exit 1; }
snapshots="$("$floe" sql --warehouse wh --format csv -c 'SELECT count(*) FROM "t$snapshots"' | tail -1)"
[ "$snapshots" = "0" ] || { echo "FAIL: $snapshots snapshots after the failed INSERT"; exit 1; }
leftover="$(find wh -name '*.parquet' | wc -l)"
[ "$leftover" = "0" ] || { echo "FAIL: $leftover data files left after the failed INSERT"; exit 1; }

# A rank that dies mid-write (FLOE_TEST_KILL_RANK=2: SIGKILL while it writes files): the
# job ends on every rank, non-zero and without hanging, nothing is committed, and the
# surviving ranks, terminated by mpirun's SIGTERM, delete the files they wrote (the
# commit never began, so none of them was sealed).
set +e
timeout 120 "$mpiexec" -np 3 --oversubscribe -x FLOE_TEST_KILL_RANK=2 \
  "$floe" sql --warehouse wh -c "SET target_partitions = 6" -c "$insert" >out.txt 2>err.txt
code=$?
set -e
if [ "$code" -eq 0 ] || [ "$code" -eq 124 ]; then
  echo "FAIL: the INSERT with a killed rank exited with $code"; cat out.txt err.txt; exit 1
fi
snapshots="$("$floe" sql --warehouse wh --format csv -c 'SELECT count(*) FROM "t$snapshots"' | tail -1)"
[ "$snapshots" = "0" ] || { echo "FAIL: $snapshots snapshots after the killed INSERT"; exit 1; }
rows="$("$floe" sql --warehouse wh --format csv -c 'SELECT count(*) FROM t' | tail -1)"
[ "$rows" = "0" ] || { echo "FAIL: $rows rows after the killed INSERT"; exit 1; }
leftover="$(find wh -name '*.parquet' | wc -l)"
[ "$leftover" = "0" ] || { echo "FAIL: $leftover data files left after the killed INSERT"; cat err.txt; exit 1; }

timeout 120 "$mpiexec" -np 3 --oversubscribe \
  "$floe" sql --warehouse wh -c "SET target_partitions = 6" -c "$insert" >/dev/null
result="$("$floe" sql --warehouse wh --format csv \
  -c 'SELECT count(*), count(DISTINCT id), sum(id) FROM t' | tail -1)"
[ "$result" = "200000,200000,20000100000" ] || { echo "FAIL: rows after the INSERT: $result"; exit 1; }
snapshots="$("$floe" sql --warehouse wh --format csv -c 'SELECT count(*) FROM "t$snapshots"' | tail -1)"
[ "$snapshots" = "1" ] || { echo "FAIL: $snapshots snapshots after one INSERT"; exit 1; }
echo "ok"
