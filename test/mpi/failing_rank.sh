#!/usr/bin/env bash
# Under mpirun -np 3, every task on rank 2 fails (FLOE_TEST_FAIL_RANK=2): a parallel
# INSERT must fail with rank 2's message and a non-zero exit, commit no snapshot and
# leave no data file, and no rank may hang. A rank killed mid-write ends the job and
# leaves nothing either. Then the same INSERT without the failure commits exactly one
# snapshot with every row once.
# usage: failing_rank.sh FLOE_BINARY MPIEXEC
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
create_table_t

insert="INSERT INTO t SELECT g, DATE '2024-01-01' + CAST(g % 30 AS int), 'row ' || g FROM generate_series(1, 200000) s(g)"
insert_with() {  # extra mpirun arguments
  run_status timeout 120 "$mpiexec" -np 3 --oversubscribe "$@" \
    "$floe" sql --warehouse wh -c "SET target_partitions = 6" -c "$insert"
}

insert_with -x FLOE_TEST_FAIL_RANK=2
[ "$code" -ne 0 ] && [ "$code" -ne 124 ] || fail "the INSERT with a failing rank exited with $code"
grep -q "ERROR: rank 2: injected failure" err.txt || fail "no rank 2 error"
expect_nothing_written "the failed INSERT"

# A rank that dies mid-write (FLOE_TEST_KILL_RANK=2: SIGKILL while it writes files): the
# job ends on every rank, non-zero and without hanging, nothing is committed, and the
# surviving ranks, terminated by mpirun's SIGTERM, delete the files they wrote and rank 0
# the dead rank's (the commit never began, so none of them was sealed). The dead rank's
# spill directory is removed by the next floe process that makes one.
insert_with -x FLOE_TEST_KILL_RANK=2
[ "$code" -ne 0 ] && [ "$code" -ne 124 ] || fail "the INSERT with a killed rank exited with $code"
expect_nothing_written "the killed INSERT"
[ "$(scalar 'SELECT count(*) FROM t')" = "0" ] || fail "rows after the killed INSERT"

insert_with
[ "$code" -eq 0 ] || fail "the INSERT exited with $code"
result="$(scalar 'SELECT count(*), count(DISTINCT id), sum(id) FROM t')"
[ "$result" = "200000,200000,20000100000" ] || fail "rows after the INSERT: $result"
snapshots="$(scalar 'SELECT count(*) FROM "t$snapshots"')"
[ "$snapshots" = "1" ] || fail "$snapshots snapshots after one INSERT"
expect_no_spill_left
echo "ok"
