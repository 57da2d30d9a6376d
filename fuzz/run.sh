#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-14 (AddressSanitizer + UBSan, the whole project
# instrumented) in build-fuzz/ and runs fuzz_parquet_reader for SECONDS seconds on the
# seed corpus fuzz/corpus/parquet (new inputs go to fuzz/corpus-run/, ignored by git).
#
# usage: fuzz/run.sh [SECONDS]      (default 60)
# env:   JOBS (build parallelism, default 2), FUZZ_BUILD_DIR (default build-fuzz)
# Exits non-zero when the build fails or the fuzzer finds a crash, leak or timeout; the
# reproducer is written to $FUZZ_BUILD_DIR/artifacts/.
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${JOBS:-2}"

if [ ! -f "$build/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFLOE_BUILD_FUZZ=ON -DFLOE_BUILD_TESTS=OFF -DFLOE_BUILD_BENCH=OFF \
    -DFLOE_SANITIZE=address,undefined \
    -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link
fi
cmake --build "$build" --target fuzz_parquet_reader -j "$jobs"

run_corpus="$root/fuzz/corpus-run/parquet"
artifacts="$build/artifacts"
mkdir -p "$run_corpus" "$artifacts"
echo "fuzz: running fuzz_parquet_reader for ${seconds}s"
"$build/fuzz/fuzz_parquet_reader" \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" \
  "$run_corpus" "$root/fuzz/corpus/parquet"
