#!/usr/bin/env bash
# A statement ended by a signal leaves nothing: an INSERT terminated mid-write by SIGTERM (a
# user, or mpirun when the job is stopped), SIGINT (Ctrl-C) or SIGHUP (its terminal closed)
# in one process, and by SIGTERM under mpirun -np 2 (to mpirun, which passes it to every
# rank), exits non-zero (128 + the signal in one process), commits no snapshot and leaves
# no data file and no spill directory; each process says how many unfinished files it
# deleted. Then an INSERT runs to its end and commits.
# usage: terminated.sh FLOE_BINARY MPIEXEC
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
create_table_t

# A small memory limit: the writers' gathered rows reach files early.
limit="SET memory_limit = '128MB'"
big="INSERT INTO t SELECT g, DATE '2024-01-01' + CAST(g % 30 AS int), 'row ' || g FROM generate_series(1, 20000000) s(g)"

# Starts the INSERT with the given launcher words before floe, sends the signal $sig once
# it has data files on disk (it is writing), and waits for it; its exit status in $code.
# The signal's default action is restored first: a background job of a script starts with
# SIGINT ignored, which floe keeps.
mkdir spill
terminate_while_writing() {
  env --default-signal="$sig" "$@" "$floe" sql --warehouse wh \
    -c "SET spill_directory = '$PWD/spill'" -c "$limit" -c "$big" >out.txt 2>err.txt &
  local pid=$!
  for _ in $(seq 600); do
    [ "$(find wh -name '*.parquet' | wc -l)" -gt 0 ] && break
    sleep 0.05
  done
  [ "$(find wh -name '*.parquet' | wc -l)" -gt 0 ] || fail "no file was written"
  kill -"$sig" "$pid"
  timeout 60 tail -s 0.1 --pid="$pid" -f /dev/null || fail "the INSERT did not end"
  set +e
  wait "$pid"
  code=$?
  set -e
  grep -q "terminated by SIG$sig; deleted [1-9][0-9]* unfinished data file" err.txt ||
    fail "no termination message"
  [ -z "$(ls -A spill)" ] || fail "spill directories left after SIG$sig: $(ls spill)"
}

for sig in TERM INT HUP; do
  terminate_while_writing
  want=$((128 + $(kill -l "$sig")))
  [ "$code" -eq "$want" ] || fail "the INSERT terminated by SIG$sig exited with $code, not $want"
  expect_nothing_written "the INSERT terminated by SIG$sig"
done

sig=TERM
terminate_while_writing "$mpiexec" -np 2
[ "$code" -ne 0 ] || fail "the terminated mpirun INSERT exited with 0"
expect_nothing_written "the terminated INSERT under mpirun"

"$floe" sql --warehouse wh -c "INSERT INTO t SELECT g, DATE '2024-01-01', 'x' FROM generate_series(1, 1000) s(g)" >/dev/null
[ "$(scalar 'SELECT count(*) FROM t')" = "1000" ] || fail "rows after the last INSERT"
echo "ok"
