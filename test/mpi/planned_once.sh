#!/usr/bin/env bash
# Files are planned once, on rank 0, and executors read exactly the planned files: under
# mpirun -np 2, rank 0 plans a scan and pauses (FLOE_TEST_PAUSE_AFTER_PLANNING) while
# another floe process replaces every row of the table (CALL overwrite commits a new
# snapshot); then the statement runs and must see the planned snapshot's rows, read by
# both ranks. Executors hold no catalog: a task that resolved the table again would see
# the overwritten rows.
# usage: planned_once.sh FLOE_BINARY MPIEXEC
set -euo pipefail
floe="$1"
mpiexec="$2"
scratch="$(mktemp -d)"
run=""
# On any exit: a paused mpirun still waiting is let go and stopped, then the files go.
cleanup() {
  touch "$scratch"/select.resume "$scratch"/analyze.resume
  [ -z "$run" ] || kill "$run" 2>/dev/null || true
  [ -z "$run" ] || wait "$run" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT
cd "$scratch"

fail() { echo "FAIL: $*"; for f in out.txt err.txt; do [ -f "$f" ] && cat "$f"; done; exit 1; }

"$floe" sql --warehouse wh -c "CREATE TABLE t (id bigint, v bigint) WITH (partitioning = 'bucket(4, id)')" \
  -c "INSERT INTO t SELECT g, 2 * g FROM generate_series(1, 40000) s(g)" >/dev/null

# Runs STATEMENT under mpirun -np 2 with rank 0 paused after planning; while it waits,
# runs the overwrite QUERY from another process, then lets rank 0 go on.
paused_run() {  # name, statement, overwrite query
  local pause="$scratch/$1"
  FLOE_TEST_PAUSE_AFTER_PLANNING="$pause" timeout 120 "$mpiexec" -np 2 --oversubscribe \
    -x FLOE_TEST_PAUSE_AFTER_PLANNING "$floe" sql --warehouse wh --format csv \
    -c "SET target_partitions = 4" -c "$2" >out.txt 2>err.txt &
  run=$!
  for _ in $(seq 600); do [ -f "$pause.planned" ] && break; sleep 0.1; done
  [ -f "$pause.planned" ] || fail "$1: rank 0 did not pause after planning"
  "$floe" sql --warehouse wh -c "CALL overwrite('t', '$3')" >/dev/null || fail "$1: the overwrite failed"
  touch "$pause.resume"
  wait "$run" || { run=""; fail "$1: the statement failed"; }
  run=""
}

# The planned snapshot: ids 1..40000 with v = 2 * id, in 4 files.
paused_run select "SELECT count(*), sum(v), min(v), max(v) FROM t WHERE v > 0" \
  "SELECT g, 3 * g FROM generate_series(1, 40000) s(g)"
[ "$(tail -1 out.txt)" = "40000,1600040000,2,80000" ] || fail "rows of the planned snapshot: $(tail -1 out.txt)"
now="$("$floe" sql --warehouse wh --format csv -c "SELECT count(*), sum(v) FROM t WHERE v > 0" | tail -1)"
[ "$now" = "40000,2400060000" ] || fail "the overwrite did not commit: $now"

# Again with EXPLAIN ANALYZE: the scan read the planned snapshot's 40000 rows (the table
# holds 10 when the tasks run), and rank 1 read some of them.
paused_run analyze "EXPLAIN ANALYZE SELECT sum(v) FROM t WHERE v > 0" \
  "SELECT g, g FROM generate_series(1, 10) s(g)"
scan="$(grep -m1 'IcebergScanExec' out.txt)" || fail "no IcebergScanExec line"
[[ "$scan" == *"]  rows=40000 batches="* ]] || fail "the scan did not read the planned 40000 rows: $scan"
rank1="$(grep -A8 'IcebergScanExec' out.txt | grep -m1 'on rank 1: rows=' || true)"
[ -n "$rank1" ] || fail "rank 1 read no planned file"
[[ "$rank1" != *"rows=0 "* ]] || fail "rank 1 read no rows: $rank1"
now="$("$floe" sql --warehouse wh --format csv -c "SELECT count(*), sum(v) FROM t" | tail -1)"
[ "$now" = "10,55" ] || fail "the second overwrite did not commit: $now"
echo "ok"
