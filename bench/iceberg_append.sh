#!/usr/bin/env bash
# Iceberg append benchmark: `floe iceberg append` of 10M rows into a table partitioned by
# day(ts) (365 days) against DuckDB's partitioned COPY of the same rows. Prints a markdown
# table with rows/s and the ratio floe/DuckDB.
#
# usage: bench/iceberg_append.sh [--rows N] [--threads T] [--runs R]
# env:   FLOE (the binary; default $BUILD_DIR/src/floe/cli/floe, BUILD_DIR default build)
#        BENCH_DATA_DIR (where the generated input is kept; default $BUILD_DIR/bench-data)
# Needs node and the npm peers (scripts/install-deps). Not part of ctest.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
exec node "$root/bench/iceberg_append.mjs" "$floe" "$data" "$@"
