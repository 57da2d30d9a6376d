#!/usr/bin/env bash
# A statement ended by SIGTERM (a user, or mpirun when the job is stopped) leaves nothing:
# an INSERT terminated mid-write, in one process and under mpirun -np 2 (SIGTERM to
# mpirun, which passes it to every rank), exits non-zero, commits no snapshot and leaves no
# data file; each process says how many unfinished files it deleted. Then an INSERT runs
# to its end and commits.
# usage: terminated.sh FLOE_BINARY MPIEXEC
set -euo pipefail
floe="$1"
mpiexec="$2"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"

"$floe" sql --warehouse wh \
  -c "CREATE TABLE t (id bigint, day date, s text) WITH (partitioning = 'bucket(4, id), day(day)')"
# A small memory limit: the writers' gathered rows reach files early.
limit="SET memory_limit = '128MB'"
big="INSERT INTO t SELECT g, DATE '2024-01-01' + CAST(g % 30 AS int), 'row ' || g FROM generate_series(1, 20000000) s(g)"

# Waits until the INSERT has data files on disk (it is writing), then sends SIGTERM.
terminate_while_writing() {  # pid
  for _ in $(seq 600); do
    [ "$(find wh -name '*.parquet' | wc -l)" -gt 0 ] && break
    sleep 0.05
  done
  [ "$(find wh -name '*.parquet' | wc -l)" -gt 0 ] || { echo "FAIL: no file was written"; exit 1; }
  kill -TERM "$1"
}

check_nothing_left() {  # what
  snapshots="$("$floe" sql --warehouse wh --format csv -c 'SELECT count(*) FROM "t$snapshots"' | tail -1)"
  [ "$snapshots" = "0" ] || { echo "FAIL: $snapshots snapshots after $1"; exit 1; }
  leftover="$(find wh -name '*.parquet' | wc -l)"
  [ "$leftover" = "0" ] || { echo "FAIL: $leftover data files left after $1"; cat err.txt; exit 1; }
  grep -q "terminated by SIGTERM; deleted [1-9][0-9]* unfinished data file" err.txt ||
    { echo "FAIL: no termination message after $1"; cat err.txt; exit 1; }
}

"$floe" sql --warehouse wh -c "$limit" -c "$big" >out.txt 2>err.txt &
pid=$!
terminate_while_writing "$pid"
set +e
timeout 60 tail -s 0.1 --pid="$pid" -f /dev/null
wait "$pid"
code=$?
set -e
[ "$code" -eq 143 ] || { echo "FAIL: the terminated INSERT exited with $code"; cat err.txt; exit 1; }
check_nothing_left "the terminated INSERT"

"$mpiexec" -np 2 "$floe" sql --warehouse wh -c "$limit" -c "$big" >out.txt 2>err.txt &
pid=$!
terminate_while_writing "$pid"
set +e
timeout 60 tail -s 0.1 --pid="$pid" -f /dev/null
wait "$pid"
code=$?
set -e
[ "$code" -ne 0 ] || { echo "FAIL: the terminated mpirun INSERT exited with 0"; exit 1; }
check_nothing_left "the terminated INSERT under mpirun"

"$floe" sql --warehouse wh -c "INSERT INTO t SELECT g, DATE '2024-01-01', 'x' FROM generate_series(1, 1000) s(g)" >/dev/null
result="$("$floe" sql --warehouse wh --format csv -c 'SELECT count(*) FROM t' | tail -1)"
[ "$result" = "1000" ] || { echo "FAIL: rows after the last INSERT: $result"; exit 1; }
echo "ok"
