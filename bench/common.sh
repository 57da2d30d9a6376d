# Sourced by the benchmark scripts: sets root (the repository), build ($BUILD_DIR, default
# build, relative to root), floe ($FLOE, default the build's binary) and data
# ($BENCH_DATA_DIR, default $build/bench-data), and exits with 2 when floe is not built.
root="$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)"
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
floe="${FLOE:-$build/src/floe/cli/floe}"
data="${BENCH_DATA_DIR:-$build/bench-data}"
if [ ! -x "$floe" ]; then
  echo "$(basename "${BASH_SOURCE[1]}"): $floe not found; build first (make build) or set FLOE" >&2
  exit 2
fi
