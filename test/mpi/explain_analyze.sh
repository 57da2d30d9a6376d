#!/usr/bin/env bash
# EXPLAIN ANALYZE under mpirun -np 3 reports what each rank did: every operator's
# partitions with the rank that ran them, and one line per rank with its tasks, rows,
# time and the exchange bytes it sent and received. The counters add up to the
# single-process ones.
# usage: explain_analyze.sh FLOE_BINARY MPIEXEC
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

query="EXPLAIN ANALYZE SELECT x % 7 AS k, count(*), sum(x) FROM generate_series(1, 60000) AS g(x) GROUP BY x % 7"
timeout 120 "$mpiexec" -np 3 --oversubscribe "$floe" sql --warehouse wh --format csv \
  -c "SET target_partitions = 6" -c "$query" >out.txt 2>err.txt || fail "EXPLAIN ANALYZE failed"

# The series is read once in all: 60000 rows over its 6 partitions, whichever ranks ran them.
series="$(grep -m1 'GenerateSeriesExec' out.txt)" || fail "no GenerateSeriesExec line"
[[ "$series" == *" rows=60000 "* ]] || fail "the series' rows: $series"
partitions="$(grep -A7 'GenerateSeriesExec' out.txt | grep -c 'partition [0-5] on rank [0-2]: rows=10000 ')"
[ "$partitions" = "6" ] || fail "expected 6 partition lines of 10000 rows with their ranks, got $partitions"
# The final aggregate returns 7 groups.
grep -q "Rows: 7," out.txt || fail "the query did not return 7 rows"

# One line per rank; every rank ran tasks and took part in the exchange.
grep -q 'Ranks:' out.txt || fail "no Ranks section"
for r in 0 1 2; do
  line="$(grep -E "rank $r: tasks=[0-9]+ rows=[0-9]+ time=[0-9.]+ms exchange sent=[0-9]+ received=[0-9]+" out.txt)" ||
    fail "no summary line of rank $r"
  [[ "$line" != *"tasks=0 "* ]] || fail "rank $r ran no task: $line"
done
sent=0 received=0
while read -r s v; do sent=$((sent + s)); received=$((received + v)); done < <(
  sed -nE 's/.*rank [0-9]+: tasks=.* exchange sent=([0-9]+) received=([0-9]+).*/\1 \2/p' out.txt)
[ "$sent" -gt 0 ] || fail "no exchange bytes sent"
[ "$sent" = "$received" ] || fail "bytes sent ($sent) and received ($received) differ"

# Ranks with different task slots (an MPMD launch: rank 0 given one thread, rank 1
# seven): rank 0 places a stage's eight tasks by free slots, so rank 1 runs at least six
# of them (one each when both had one slot, as mpirun's binding gives them here).
query8="EXPLAIN ANALYZE SELECT x % 7 AS k, count(*) FROM generate_series(1, 400000) AS g(x) GROUP BY x % 7"
rank_args=(--warehouse wh --format csv -c "SET target_partitions = 8" -c "$query8")
timeout 120 "$mpiexec" --oversubscribe -np 1 "$floe" sql --threads 1 "${rank_args[@]}" : \
  -np 1 "$floe" sql --threads 7 "${rank_args[@]}" >out.txt 2>err.txt ||
  fail "EXPLAIN ANALYZE with uneven slots failed"
on_rank1="$(grep -A9 'GenerateSeriesExec' out.txt | grep -c 'partition [0-7] on rank 1: rows=50000 ')"
[ "$on_rank1" -ge 6 ] || fail "rank 1 (seven slots) ran $on_rank1 of the series' 8 partitions"

# One process reports no ranks.
"$floe" sql --warehouse wh --format csv -c "SET target_partitions = 6" -c "$query" >out.txt 2>err.txt ||
  fail "EXPLAIN ANALYZE failed in one process"
! grep -q 'Ranks:\|on rank' out.txt || fail "one process reports ranks"
echo "ok"
