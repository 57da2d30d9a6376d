#!/usr/bin/env bash
# The TPC-H-shaped queries over the Iceberg tables of `node bench/tpch.mjs FLOE DATA
# --iceberg` (run that first: it loads DATA/tpch-sf1-iceberg), and a partitioned INSERT,
# each run by one floe process with THREADS threads and under `mpirun -np N` for every N
# given: wall time and total CPU time (user + system of every process) per run, best of
# RUNS (the sides' runs interleaved), and the ratios to the single process; then every
# query once in one session (one process against one mpirun, whose fixed start-up then
# counts once), with the statements' own time (--timing) beside the wall time; then
# `SELECT 1`, the fixed cost of a run. Then, from one
# EXPLAIN ANALYZE of each case (the INSERT's commits one more snapshot), the statement's
# own time in one process and under each N (without process start-up, which costs mpirun
# a fixed few tenths of a second) and the bytes the ranks exchanged.
#
# Environment: SF=N reads DATA/tpch-sfN-iceberg (`bench/tpch.mjs ... --sf N --iceberg`;
# default 1); INSERT=0 leaves out the partitioned INSERT (minutes at larger scales).
#
set -euo pipefail
floe="$(realpath "$1")"
data="$(realpath "$2")"
threads="${3:-2}"
runs="${4:-3}"
nps="${5:-1 2}"
queries="${6:-01 03 05 06 10 12 14 18}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sf="${SF:-1}"
warehouse="$data/tpch-sf$sf-iceberg"
[ -d "$warehouse/tpch" ] || { echo "no Iceberg tables in $warehouse: run bench/tpch.mjs --sf $sf --iceberg first" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_mtl=^ofi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# One run of a command: "wall cpu statements_ms" (GNU time: %e wall, %U+%S CPU of the
# process and every child it waited for, the ranks included; the statements' own time is
# the sum of what --timing printed, 0 without it).
run_once() {
  /usr/bin/time -f "%e %U %S" -o "$scratch/time" "$@" >"$scratch/out" 2>"$scratch/err" ||
    { cat "$scratch/err" >&2; return 1; }
  read -r wall user sys <"$scratch/time"
  local statements
  statements=$(sed -nE 's/^Time: ([0-9.]+) ms$/\1/p' "$scratch/err" | awk '{ s += $1 } END { print s + 0 }')
  echo "$wall $(echo "$user + $sys" | bc) $statements"
}

# a / b to two places, or "-" when b rounds to zero (GNU time's CPU of a trivial process).
ratio() { if (($(echo "$2 > 0" | bc))); then printf %.2f "$(echo "$1 / $2" | bc -l)"; else echo -; fi; }

# One row of the wall/CPU table: a floe process against mpirun -np N for each N, the runs
# interleaved (this machine drifts: a side run all at once would see another machine), the
# best wall of RUNS for each. With TIMING=1 a note (printed after the table) gives the
# statements' own time, best of RUNS, without process start-up and MPI's launch and
# finalize.
time_case() {  # name, then the floe arguments
  local name="$1"
  shift
  local timing=()
  [ "${TIMING:-0}" = 1 ] && timing=(--timing)
  # Keyed "one" for the single process and by N for mpirun -np N.
  local -A best_wall best_cpu best_statements
  local side result wall cpu statements
  for _ in $(seq "$runs"); do
    for side in one $nps; do
      if [ "$side" = one ]; then
        result=$(run_once "$floe" sql --threads "$threads" "${timing[@]}" "$@")
      else
        result=$(run_once mpirun -np "$side" --oversubscribe "$floe" sql "${timing[@]}" "$@")
      fi
      read -r wall cpu statements <<<"$result"
      if [ -z "${best_wall[$side]:-}" ] || (($(echo "$wall < ${best_wall[$side]}" | bc))); then
        best_wall[$side]=$wall best_cpu[$side]=$cpu
      fi
      if [ -z "${best_statements[$side]:-}" ] ||
        (($(echo "$statements < ${best_statements[$side]}" | bc))); then
        best_statements[$side]=$statements
      fi
    done
  done
  local w1=${best_wall[one]} c1=${best_cpu[one]} s1=${best_statements[one]}
  local line="| $name"
  line+=$(printf " | %6.2f | %6.2f" "$w1" "$c1")
  for np in $nps; do
    line+=$(printf " | %6.2f | %6.2f | %s | %s" "${best_wall[$np]}" "${best_cpu[$np]}" \
                   "$(ratio "${best_wall[$np]}" "$w1")" "$(ratio "${best_cpu[$np]}" "$c1")")
  done
  echo "$line |"
  if [ "${TIMING:-0}" = 1 ]; then
    local note="$name, the statements' own time (best of $runs): 1 process $(printf %.0f "$s1") ms"
    for np in $nps; do
      note+=$(printf ", np %s %.0f ms (ratio %4.2f)" "$np" "${best_statements[$np]}" \
                     "$(echo "${best_statements[$np]} / $s1" | bc -l)")
    done
    notes+=("$note")
  fi
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
notes=()

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
TIMING=1 time_case "the queries in one session" --warehouse "$warehouse" \
  -c "SET target_partitions = $threads" "${session[@]}"
# The fixed cost of a run: a statement that does nothing (mpirun's launch, MPI_Init and
# MPI_Finalize of every rank, against one process's start-up).
time_case "SELECT 1 (start-up and shutdown)" --warehouse "$warehouse" -c "SELECT 1"
# A partitioned INSERT: lineitem into a day-partitioned table (a copy of the warehouse; every
# run appends one more snapshot).
if [ "${INSERT:-1}" != 0 ]; then
  cp -r "$warehouse" "$scratch/wh"
  "$floe" sql --warehouse "$scratch/wh" -c "CREATE TABLE tpch.li_day WITH (partitioning = \
    'day(l_shipdate)') AS SELECT * FROM tpch.lineitem WHERE false" >/dev/null
  run_case "INSERT lineitem by day" --warehouse "$scratch/wh" -c "SET target_partitions = $threads" \
    -c "INSERT INTO tpch.li_day SELECT * FROM tpch.lineitem"
fi

echo
printf '%s\n' "${notes[@]}"
echo
header="| query | 1 process statement ms"
for np in $nps; do header+=" | np $np statement ms | ratio | bytes exchanged"; done
echo "$header |"
printf '%s\n' "${analyzed[@]}"
