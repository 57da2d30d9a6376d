#!/usr/bin/env bash
# Row-level changes benchmark (bench/row_level.mjs): DELETE and UPDATE of 1% of TPC-H
# lineitem by merge-on-read (v2, v3) and copy-on-write against a full scan of the same
# Iceberg table, and the read cost after 1, 10 and 50 merge-on-read deletes. Generates the
# TPC-H data first when it is missing (bench/tpch.mjs). Prints a markdown table.
#
# usage: bench/row_level.sh [--sf N] [--threads T] [--runs R]
# env:   FLOE (the binary; default $BUILD_DIR/src/floe/cli/floe, BUILD_DIR default build)
#        BENCH_DATA_DIR (where the generated tables are kept; default $BUILD_DIR/bench-data)
# Needs node and the npm peers (scripts/install-deps). Not part of ctest.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
sf=1
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [ "${args[$i]}" = "--sf" ]; then sf="${args[$((i + 1))]}"; fi
done
if [ ! -f "$data/tpch-sf$sf/lineitem.parquet" ]; then
  node "$root/bench/tpch.mjs" "$floe" "$data" --sf "$sf" --queries 6 --runs 1 > /dev/null
fi
exec node "$root/bench/row_level.mjs" "$floe" "$data" "$@"
