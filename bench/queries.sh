#!/usr/bin/env bash
# TPC-H benchmark: all 22 queries in floe and in DuckDB on
# the same Parquet files (generated once per scale factor), same thread count, one run.
# Prints a markdown table with per-query times, the ratio floe/DuckDB and whether the
# results agree.
#
# usage: bench/queries.sh [--sf N] [--threads T] [--runs R] [--queries 1,6]
# env:   FLOE (the binary; default $BUILD_DIR/src/floe/cli/floe, BUILD_DIR default build)
#        BENCH_DATA_DIR (where the generated tables are kept; default $BUILD_DIR/bench-data)
# Needs node and the npm peers (scripts/install-deps). Not part of ctest.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
exec node "$root/bench/tpch.mjs" "$floe" "$data" "$@"
