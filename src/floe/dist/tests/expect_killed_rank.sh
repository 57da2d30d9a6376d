#!/usr/bin/env bash
# Runs an mpirun job in which rank RANK kills itself with SIGKILL (FLOE_DIST_TEST_KILL_RANK)
# and checks how the job ends: mpirun exits with 137 (128 + SIGKILL) and names that rank as
# killed, instead of the other ranks hanging.
# usage: expect_killed_rank.sh RANK COMMAND...
set -uo pipefail
rank="$1"
shift
out="$("$@" 2>&1)"
code=$?
if [ "$code" -ne 137 ]; then
  printf '%s\n' "$out"
  echo "FAIL: the job exited with $code, not 137 (rank $rank killed by SIGKILL)"
  exit 1
fi
if ! grep -q "process rank $rank with PID .* exited on signal 9 (Killed)" <<<"$out"; then
  printf '%s\n' "$out"
  echo "FAIL: mpirun did not name rank $rank as killed by signal 9"
  exit 1
fi
echo "ok: rank $rank was killed and the job ended with 137"
