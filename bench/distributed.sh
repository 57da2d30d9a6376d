#!/usr/bin/env bash
# The TPC-H-shaped queries over the Iceberg tables of `node bench/tpch.mjs FLOE DATA
# --iceberg` (run that first: it loads DATA/tpch-sf1-iceberg), and a partitioned INSERT,
# each run by one floe process with THREADS threads and under `mpirun -np N` for every N
# given: wall time and total CPU time (user + system of every process) per run, best of
# RUNS, and the ratios to the single process; then every query once in one session (one
# process against one mpirun, whose fixed start-up then counts once). Then, from one
# EXPLAIN ANALYZE of each case (the INSERT's commits one more snapshot), the statement's
# own time in one process and under each N (without process start-up, which costs mpirun
# a fixed few tenths of a second) and the bytes the ranks exchanged.
#
set -euo pipefail
floe="$(realpath "$1")"
data="$(realpath "$2")"
threads="${3:-2}"
runs="${4:-3}"
nps="${5:-1 2}"
queries="${6:-01 03 05 06 10 12 14 18}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
warehouse="$data/tpch-sf1-iceberg"
[ -d "$warehouse/tpch" ] || { echo "no Iceberg tables in $warehouse: run bench/tpch.mjs --iceberg first" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_mtl=^ofi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# best "wall cpu" of RUNS runs of a command (GNU time: %e wall, %U+%S CPU of the process
# and every child it waited for, the ranks included).
best() {
  local best_wall="" best_cpu=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$scratch/time" "$@" >"$scratch/out" 2>"$scratch/err" ||
      { cat "$scratch/err" >&2; return 1; }
    read -r wall user sys <"$scratch/time"
    cpu=$(echo "$user + $sys" | bc)
    if [ -z "$best_wall" ] || (($(echo "$wall < $best_wall" | bc))); then
      best_wall=$wall best_cpu=$cpu
    fi
  done
  echo "$best_wall $best_cpu"
}

# One row of the wall/CPU table: a floe process against mpirun -np N for each N.
time_case() {  # name, then the floe arguments
  local name="$1"
  shift
  local line="| $name"
  read -r w1 c1 < <(best "$floe" sql --threads "$threads" "$@")
  line+=$(printf " | %6.2f | %6.2f" "$w1" "$c1")
  for np in $nps; do
    read -r w c < <(best mpirun -np "$np" --oversubscribe "$floe" sql "$@")
    line+=$(printf " | %6.2f | %6.2f | %4.2f | %4.2f" "$w" "$c" "$(echo "$w / $w1" | bc -l)" \
                   "$(echo "$c / $c1" | bc -l)")
  done
  echo "$line |"
}

run_case() {  # name, then the floe arguments
  time_case "$@"
  local name="$1"
  shift
  # The statement's time and the exchanged bytes, from EXPLAIN ANALYZE of the last -c.
  local args=("$@")
  local last=$((${#args[@]} - 1))
  args[$last]="EXPLAIN ANALYZE ${args[$last]}"
  "$floe" sql --threads "$threads" --format csv "${args[@]}" >"$scratch/analyze"
  local ms1
  ms1="$(statement_ms)"
  local line="| $name"$(printf " | %8.1f" "$ms1")
  for np in $nps; do
    mpirun -np "$np" --oversubscribe "$floe" sql --format csv "${args[@]}" >"$scratch/analyze"
    local ms
    ms="$(statement_ms)"
    line+=$(printf " | %8.1f | %4.2f | %d" "$ms" "$(echo "$ms / $ms1" | bc -l)" "$(exchanged)")
  done
  analyzed+=("$line |")
}

# The statement time EXPLAIN ANALYZE reports ("Rows: N, time: T ms, ...").
statement_ms() { sed -nE 's/.*Rows: [0-9]+, time: ([0-9.]+) ms.*/\1/p' "$scratch/analyze" | tail -1; }
# Bytes the ranks sent each other (each is received once: the sum of "sent" over ranks).
exchanged() {
  sed -nE 's/.*rank [0-9]+: tasks=.* exchange sent=([0-9]+) received=.*/\1/p' "$scratch/analyze" |
    awk '{ s += $1 } END { print s + 0 }'
}
analyzed=()

header="| query | 1 process wall s | CPU s"
for np in $nps; do header+=" | np $np wall s | CPU s | wall ratio | CPU ratio"; done
echo "$header |"
session=()
for q in $queries; do
  sql="$(grep -v '^--' "$root/bench/tpch/q$q.sql" | sed -E 's/\{(\w+)\}/tpch.\1 AS \1/g')"
  run_case "Q$q" --warehouse "$warehouse" -c "SET target_partitions = $threads" -c "$sql"
  session+=(-c "$sql")
done
# Every query once in one session: one process, or one mpirun (its start-up paid once).
time_case "the queries in one session" --warehouse "$warehouse" \
  -c "SET target_partitions = $threads" "${session[@]}"
# A partitioned INSERT: lineitem into a day-partitioned table (a copy of the warehouse; every
# run appends one more snapshot).
cp -r "$warehouse" "$scratch/wh"
"$floe" sql --warehouse "$scratch/wh" -c "CREATE TABLE tpch.li_day WITH (partitioning = \
  'day(l_shipdate)') AS SELECT * FROM tpch.lineitem WHERE false" >/dev/null
run_case "INSERT lineitem by day" --warehouse "$scratch/wh" -c "SET target_partitions = $threads" \
  -c "INSERT INTO tpch.li_day SELECT * FROM tpch.lineitem"

echo
header="| query | 1 process statement ms"
for np in $nps; do header+=" | np $np statement ms | ratio | bytes exchanged"; done
echo "$header |"
printf '%s\n' "${analyzed[@]}"
