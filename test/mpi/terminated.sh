#!/usr/bin/env bash
# A statement ended by SIGTERM (a user, or mpirun when the job is stopped) leaves nothing:
# an INSERT terminated mid-write, in one process and under mpirun -np 2 (SIGTERM to
# mpirun, which passes it to every rank), exits non-zero, commits no snapshot and leaves no
# data file; each process says how many unfinished files it deleted. Then an INSERT runs
# to its end and commits.
# usage: terminated.sh FLOE_BINARY MPIEXEC
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
create_table_t

# A small memory limit: the writers' gathered rows reach files early.
limit="SET memory_limit = '128MB'"
big="INSERT INTO t SELECT g, DATE '2024-01-01' + CAST(g % 30 AS int), 'row ' || g FROM generate_series(1, 20000000) s(g)"

# Starts the INSERT with the given launcher words before floe, sends SIGTERM once it has
# data files on disk (it is writing), and waits for it; its exit status in $code.
terminate_while_writing() {
  "$@" "$floe" sql --warehouse wh -c "$limit" -c "$big" >out.txt 2>err.txt &
  local pid=$!
  for _ in $(seq 600); do
    [ "$(find wh -name '*.parquet' | wc -l)" -gt 0 ] && break
    sleep 0.05
  done
  [ "$(find wh -name '*.parquet' | wc -l)" -gt 0 ] || fail "no file was written"
  kill -TERM "$pid"
  timeout 60 tail -s 0.1 --pid="$pid" -f /dev/null || fail "the INSERT did not end"
  set +e
  wait "$pid"
  code=$?
  set -e
  grep -q "terminated by SIGTERM; deleted [1-9][0-9]* unfinished data file" err.txt ||
    fail "no termination message"
}

terminate_while_writing
[ "$code" -eq 143 ] || fail "the terminated INSERT exited with $code"
expect_nothing_written "the terminated INSERT"

terminate_while_writing "$mpiexec" -np 2
[ "$code" -ne 0 ] || fail "the terminated mpirun INSERT exited with 0"
expect_nothing_written "the terminated INSERT under mpirun"

"$floe" sql --warehouse wh -c "INSERT INTO t SELECT g, DATE '2024-01-01', 'x' FROM generate_series(1, 1000) s(g)" >/dev/null
[ "$(scalar 'SELECT count(*) FROM t')" = "1000" ] || fail "rows after the last INSERT"
echo "ok"
