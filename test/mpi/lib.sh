# Shared by the test/mpi scripts (sourced): each is called as SCRIPT FLOE_BINARY MPIEXEC and
# works in a scratch directory that is removed on exit.
set -euo pipefail
floe="$1"
mpiexec="$2"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
# Spill directories (and mpirun's session directory) go to a temp directory of the test's
# own, so that what a test leaves there is its own.
export TMPDIR="$scratch/tmp"
mkdir "$TMPDIR"

fail() { echo "FAIL: $*"; cat out.txt err.txt 2>/dev/null; exit 1; }

# The last line of a query's CSV output against the warehouse `wh`.
scalar() { "$floe" sql --warehouse wh --format csv -c "$1" | tail -1; }

# The table t of the write tests: partitioned by bucket and day.
create_table_t() {
  "$floe" sql --warehouse wh \
    -c "CREATE TABLE t (id bigint, day date, s text) WITH (partitioning = 'bucket(4, id), day(day)')" \
    >/dev/null
}

# Runs a command with its output in out.txt and err.txt; its exit status in $code.
run_status() {
  set +e
  "$@" >out.txt 2>err.txt
  code=$?
  set -e
}

# After a statement that must have written nothing: no snapshot of t, no data file.
expect_nothing_written() {  # what
  local snapshots leftover
  snapshots="$(scalar 'SELECT count(*) FROM "t$snapshots"')"
  [ "$snapshots" = "0" ] || fail "$snapshots snapshots after $1"
  leftover="$(find wh -name '*.parquet' | wc -l)"
  [ "$leftover" = "0" ] || fail "$leftover data files left after $1"
}

# No spill directory is left in the test's temp directory.
expect_no_spill_left() {
  local left
  left="$(cd "$TMPDIR" && find . -maxdepth 1 -name 'floe-spill-*' | sort | tr '\n' ' ')"
  [ -z "$left" ] || fail "spill directories left: $left"
}
