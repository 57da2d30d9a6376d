#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (AddressSanitizer + UBSan, the whole project
# instrumented) in build-fuzz/ and runs each target for its share of SECONDS on its seed
# corpus fuzz/corpus/<name> (new inputs go to fuzz/corpus-run/<name>, ignored by git).
# The SQL targets use the dictionary fuzz/sql.dict; sql_exec also starts from every statement
# of PostgreSQL's regression-test scripts in ../shared/pg-regress/sql (beside the repository),
# one seed each, split into fuzz/corpus-run/sql_exec-pg at each run (never committed).
#
# usage: fuzz/run.sh [SECONDS] [TARGET...]   (default 60 seconds, every target)
#   targets: parquet_reader avro_reader iceberg_metadata plan_decode sql_frontend sql_exec formatting
#            text_reader
# env:   JOBS (build parallelism, default 2), FUZZ_BUILD_DIR (default build-fuzz)
# Exits non-zero when the build fails or a fuzzer finds a crash, leak or timeout; the
# reproducer is written to $FUZZ_BUILD_DIR/artifacts/.
set -euo pipefail

seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${JOBS:-2}"

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  for src in "$root"/fuzz/*_fuzz.cc; do
    name="$(basename "$src" _fuzz.cc)"
    targets+=("$name")
  done
fi

if [ ! -f "$build/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFLOE_BUILD_FUZZ=ON -DFLOE_BUILD_TESTS=OFF -DFLOE_BUILD_BENCH=OFF \
    -DFLOE_SANITIZE=address,undefined \
    -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link
fi
build_targets=("${targets[@]/#/fuzz_}")
[[ " ${targets[*]} " == *" sql_exec "* ]] && build_targets+=(fuzz_split_statements)
cmake --build "$build" --target "${build_targets[@]}" -j "$jobs"
pg_regress="$root/../shared/pg-regress/sql"

share=$(( seconds / ${#targets[@]} ))
[ "$share" -ge 1 ] || share=1
artifacts="$build/artifacts"
mkdir -p "$artifacts"
# Targets that need files (the SQL front end's warehouse) make them in TMPDIR; libFuzzer
# ends a run without running exit handlers, so the directory goes here.
export TMPDIR="$(mktemp -d)"
trap 'rm -rf "$TMPDIR"' EXIT
# The SQL front end accepts expressions nested up to 1000 levels. The release build takes
# about 2 MiB of stack for that; AddressSanitizer's frames are ten times larger (16 MiB did
# not do, 32 MiB did), so the fuzzers get a stack of 128 MiB: with the default 8 MiB a deep
# but accepted statement overflowed the instrumented build only.
ulimit -s 131072
for name in "${targets[@]}"; do
  run_corpus="$root/fuzz/corpus-run/$name"
  seeds="$root/fuzz/corpus/$name"
  mkdir -p "$run_corpus" "$seeds"
  extra=()
  case "$name" in sql_*) extra+=(-dict="$root/fuzz/sql.dict") ;; esac
  corpora=("$run_corpus" "$seeds")
  if [ "$name" = sql_exec ] && compgen -G "$pg_regress/*.sql" > /dev/null; then
    rm -rf "$run_corpus-pg"
    "$build/fuzz/fuzz_split_statements" "$run_corpus-pg" "$pg_regress"/*.sql
    corpora+=("$run_corpus-pg")
  fi
  echo "fuzz: running fuzz_$name for ${share}s"
  "$build/fuzz/fuzz_$name" \
    -max_total_time="$share" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${extra[@]}" \
    "${corpora[@]}"
done
