#!/usr/bin/env bash
# Scan planning from the command line: `floe iceberg plan` of a table of 100,000 data files
# in 1,000 deflate manifests that pyiceberg wrote (bench/iceberg_plan_table.py: one day of
# `ts` per manifest, partitioned by day(ts), bucket(16, id), metrics for 10 columns), on
# one processor, its output included (written to /dev/null). Prints each run's wall time
# and peak memory for --format text and --format json.
#
# usage: bench/iceberg_plan.sh [--runs R]
# env:   FLOE (the binary; default $BUILD_DIR/src/floe/cli/floe, BUILD_DIR default build)
#        BENCH_DATA_DIR (where the table is kept; default $BUILD_DIR/bench-data)
# Needs the Python peers (scripts/install-deps) for the first run. Not part of ctest.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    *) echo "iceberg_plan.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
dir="$data/plan-100k"
location="$dir/metadata-location"
if [ ! -s "$location" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  "$root/.deps/py/bin/python" "$root/bench/iceberg_plan_table.py" "$dir/warehouse" > "$location.tmp"
  mv "$location.tmp" "$location"
fi
metadata="$(sed 's|^file://||' "$location")"
for format in text json; do
  for run in $(seq 1 "$runs"); do
    /usr/bin/time -f "$format run $run: %e s wall, %U s user, %M KiB peak" \
      taskset -c 0 "$floe" iceberg plan "$metadata" --format "$format" > /dev/null
  done
done
