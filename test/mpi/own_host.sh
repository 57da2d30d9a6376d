#!/usr/bin/env bash
# Runs one MPI rank as if it were alone on a host of its own (many_hosts.py): in
# HOSTS/host<rank>, the rank's working directory, with the configuration file there
# (floe.yaml, as FLOE_CONFIG: rank 0's) and no home directory of the machine's; and, where
# `unshare --mount` works, in a mount namespace of its own whose /tmp is HOSTS/host<rank>/tmp,
# so that no other rank's temp files, and nothing else of this machine's /tmp, is visible
# to it. Where it does not, TMPDIR points there instead. The binary is run through a file
# descriptor opened before the mount, as it may itself live under /tmp.
# Prints "own-host: mount namespace" or "own-host: TMPDIR" on stderr once per rank.
# usage: mpirun ... own_host.sh HOSTS BINARY ARGS...
set -euo pipefail
hosts="$1"
binary="$2"
shift 2
host="$hosts/host${OMPI_COMM_WORLD_RANK:?not run by mpirun}"
cd "$host"
export FLOE_CONFIG=floe.yaml  # relative: the working directory stays reachable
export HOME=/nonexistent
unset TMPDIR
exec 3<"$binary"
if unshare --mount true 2>/dev/null; then
  echo "own-host: mount namespace" >&2
  exec unshare --mount --propagation private \
    sh -c 'mount --bind "$0" /tmp && exec /proc/self/fd/3 "$@"' "$host/tmp" "$@"
fi
echo "own-host: TMPDIR" >&2
export TMPDIR="$host/tmp"
exec /proc/self/fd/3 "$@"
