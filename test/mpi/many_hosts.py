"""Ranks that share no disk: floe under `mpirun -np 3` as on three hosts, with the warehouse
on S3 (moto's server, authenticating) and the catalog on PostgreSQL, each reached by every
rank on its own.

Each rank runs through own_host.sh: in a working directory of its own, no home directory,
and (where `unshare --mount` works) a mount namespace whose /tmp is private to it; MPI's
transport is TCP, as between hosts. Only rank 0's directory holds a configuration file
(catalog and S3 settings): the other ranks get the storage settings with their stages. One
`floe sql` under mpirun then creates a day-partitioned table, inserts a million rows in
parallel (one snapshot, every rank writing objects straight to S3), reads them back, and
runs EXPLAIN ANALYZE of a scan and an aggregation that must spill under a small memory
limit. Checked: the rows, exactly; one snapshot; every data file an object under the
table's S3 location in a day partition; the scan and the spilling aggregation ran on every
rank, each rank with S3 reads of its own; every rank's spill directory appeared in its own
/tmp and in no other, and none is left; the ranks wrote nothing into their working
directories; the catalog password and the secret key are never printed; and a single floe
process with a configuration of its own sees the same table.

Run by ctest (labels mpi, s3, postgres) as
`.deps/py/bin/python test/mpi/many_hosts.py FLOE_BINARY MPIEXEC` from the repository root.
"""

import csv
import io
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "interop", "reference", "lib"))
import postgres  # noqa: E402
from peers import MotoS3, TempDir  # noqa: E402

RANKS = 3
ROWS = 1_000_000
DAYS = 31
# What `mpirun` needs for ranks that share no disk: TCP between the ranks (and to mpirun),
# as between hosts, and PMIx's key store in process memory rather than in a shared-memory
# file of mpirun's session directory under /tmp, which a rank with a private /tmp does not
# see.
MPI_ENV = {"OMPI_MCA_btl": "self,tcp", "OMPI_MCA_btl_tcp_if_include": "lo",
           "OMPI_MCA_oob_tcp_if_include": "lo", "OMPI_MCA_pml": "ob1",
           "OMPI_MCA_mtl": "^ofi", "PMIX_MCA_gds": "hash"}


class Failure(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failure(message)


def catalog_yaml(uri, s3):
    lines = ["catalog:", "  lake:", "    type: sql", f"    uri: {uri}",
             f"    warehouse: s3://{s3.bucket}/lake"]
    lines += [f"    {k}: {v}" for k, v in s3.floe_properties().items()]
    return "\n".join(lines) + "\n"


class TempWatcher:
    """Polls every host's private /tmp while the job runs and records the spill directories
    that appear in each (spill directories live as long as their query, so a poll every few
    milliseconds sees each)."""

    def __init__(self, hosts):
        self.hosts = hosts
        self.seen = {h: set() for h in hosts}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self.stop.is_set():
            for host in self.hosts:
                try:
                    names = os.listdir(os.path.join(host, "tmp"))
                except OSError:
                    continue
                self.seen[host].update(n for n in names if n.startswith("floe-spill-"))
            time.sleep(0.005)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        return False


def csv_rows(text):
    return [row for row in csv.reader(io.StringIO(text))]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: many_hosts.py FLOE_BINARY MPIEXEC")
    floe, mpiexec = (os.path.abspath(a) if os.path.exists(a) else a for a in sys.argv[1:])
    own_host = os.path.join(HERE, "own_host.sh")
    with TempDir("many-hosts") as tmp, MotoS3() as s3, postgres.PostgresServer() as pg:
        pg.create_database("lake")
        config = catalog_yaml(pg.uri("lake"), s3)
        hosts_dir = os.path.join(tmp, "hosts")
        hosts = [os.path.join(hosts_dir, f"host{r}") for r in range(RANKS)]
        for host in hosts:
            os.makedirs(os.path.join(host, "tmp"))
        # Only rank 0 reads the configuration and talks to the catalog: the other ranks get
        # the storage settings, credentials included, with their stages.
        with open(os.path.join(hosts[0], "floe.yaml"), "w") as f:
            f.write(config)
        statements = [
            "CREATE SCHEMA db",
            "CREATE TABLE db.events (id bigint, day date, payload text) "
            "WITH (partitioning = 'day(day)')",
            f"INSERT INTO db.events SELECT g, DATE '2026-01-01' + CAST(g % {DAYS} AS int), "
            f"'event ' || g FROM generate_series(1, {ROWS}) s(g)",
            "SELECT count(*), count(DISTINCT id), sum(id), count(DISTINCT day), min(day), "
            "max(day) FROM db.events",
            "EXPLAIN ANALYZE SELECT day, count(*) FROM db.events GROUP BY day",
            "SET memory_limit = '4MB'",
            "EXPLAIN ANALYZE SELECT count(*) FROM (SELECT payload, count(*) AS n FROM db.events "
            "GROUP BY payload) s WHERE n > 1",
        ]
        args = [mpiexec, "-np", str(RANKS), "--oversubscribe", own_host, hosts_dir, floe,
                "sql", "--catalog", "lake", "--format", "csv"]
        for s in statements:
            args += ["-c", s]
        env = dict(os.environ, **MPI_ENV)
        env.pop("FLOE_CONFIG", None)
        started = time.monotonic()
        with TempWatcher(hosts) as watcher:
            run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600,
                                 cwd=tmp)
        elapsed = time.monotonic() - started
        output = run.stdout + run.stderr
        print(f"mpirun -np {RANKS}: {elapsed:.1f} s")
        try:
            expect(run.returncode == 0, f"mpirun exited with {run.returncode}")
            mode = sorted(set(re.findall(r"own-host: (mount namespace|TMPDIR)", run.stderr)))
            expect(len(mode) == 1 and run.stderr.count("own-host:") == RANKS,
                   f"own_host.sh lines: {mode}")
            print(f"private /tmp by {mode[0]}")
            check_output(run.stdout)
            check_temp(hosts, watcher.seen)
            for host in hosts:
                left = sorted(set(os.listdir(host)) - {"floe.yaml", "tmp"})
                expect(not left, f"{host}: the rank wrote {left} into its working directory")
            for secret in (s3.secret_access_key, postgres.PASSWORD):
                expect(secret not in output, "a secret was printed")
            check_single_process(floe, tmp, config, s3)
        except Failure as e:
            print(f"FAIL: {e}\n--- stdout\n{run.stdout[-6000:]}\n--- stderr\n{run.stderr[-4000:]}")
            return 1
    print("ok")
    return 0


def check_output(stdout):
    want = f"{ROWS},{ROWS},{ROWS * (ROWS + 1) // 2},{DAYS},2026-01-01,2026-01-31"
    expect(f"\n{want}\n" in stdout or stdout.startswith(want), f"the rows read back: want {want}")
    plans = stdout.split("Ranks:")
    expect(len(plans) == 3, f"{len(plans) - 1} EXPLAIN ANALYZE rank sections, want 2")
    # The scan: its files are read on every rank, every row once.
    scan = re.findall(r"IcebergScanExec:.*?rows=(\d+) ", plans[0])
    expect(scan and int(scan[-1]) == ROWS, f"the scan's rows: {scan}")
    for r in range(RANKS):
        rows = [int(n) for n in re.findall(
            rf"partition \d+ on rank {r}: rows=(\d+) ", scan_section(plans[0]))]
        expect(rows and sum(rows) > 0, f"rank {r} read nothing in the scan")
        print(f"rank {r}: scanned {sum(rows)} rows")
    # The aggregation over a million distinct payloads under a 4 MB limit spills on every rank.
    agg = scan_section(plans[1], node="HashAggregateExec: mode=Final")
    for r in range(RANKS):
        spilled = [int(n) for n in re.findall(
            rf"partition \d+ on rank {r}: rows=\d+ .*?spilled=(\d+)", agg)]
        expect(spilled and sum(spilled) > 0, f"rank {r}'s final aggregation did not spill")
        print(f"rank {r}: spilled {sum(spilled)} bytes")
    for section in plans[1:]:
        for r in range(RANKS):
            line = re.search(rf"rank {r}: tasks=(\d+) rows=(\d+)", section)
            expect(line and int(line.group(1)) > 0, f"rank {r} ran no task")
    # Each rank read its files from S3 itself: its own GET requests and bytes.
    for r in range(RANKS):
        line = re.search(rf"rank {r}: tasks=.* s3 requests=\d+ \(get=(\d+)[^)]*\) read=(\d+)",
                         plans[1])
        expect(line and int(line.group(1)) > 0 and int(line.group(2)) > 0,
               f"rank {r} shows no S3 reads of its own")
        print(f"rank {r}: {line.group(1)} S3 GETs, {line.group(2)} bytes")


def scan_section(plan, node="IcebergScanExec"):
    """The lines of `node` and its partition lines."""
    lines = plan.splitlines()
    for i, line in enumerate(lines):
        if node in line:
            out = [line]
            for nxt in lines[i + 1:]:
                if "partition " not in nxt:
                    break
                out.append(nxt)
            return "\n".join(out)
    raise Failure(f"no {node} in the plan")


def check_temp(hosts, seen):
    # Every rank had its spill directories in its own /tmp, and none holds another rank's.
    pids = {}
    for host in hosts:
        expect(seen[host], f"{host}: no spill directory appeared in the rank's /tmp")
        pids[host] = {re.match(r"floe-spill-(\d+)-", n).group(1) for n in seen[host]}
        expect(len(pids[host]) == 1, f"{host}: spill directories of processes {pids[host]}")
        print(f"{os.path.basename(host)}: /tmp held {sorted(seen[host])}")
        left = [n for n in os.listdir(os.path.join(host, "tmp")) if n.startswith("floe-spill-")]
        expect(not left, f"{host}: spill directories left: {left}")
    expect(len({next(iter(p)) for p in pids.values()}) == RANKS,
           "two ranks' spill directories in one /tmp")


def check_single_process(floe, tmp, config, s3):
    """One floe process of a configuration of its own (as on a fourth host) sees the table:
    one snapshot, its data files all objects in day partitions under the table's location."""
    own = os.path.join(tmp, "fourth")
    os.makedirs(own)
    with open(os.path.join(own, "floe.yaml"), "w") as f:
        f.write(config)
    env = dict(os.environ, FLOE_CONFIG=os.path.join(own, "floe.yaml"), HOME=own)
    query = ("SELECT (SELECT count(*) FROM db.\"events$snapshots\"), count(*), "
             "count(*) FILTER (WHERE file_path LIKE 's3://" + s3.bucket +
             "/lake/db/events/data/day_day=2026-01-__/%.parquet'), sum(record_count) "
             "FROM db.\"events$files\"")
    run = subprocess.run([floe, "sql", "--catalog", "lake", "--format", "csv", "-c", query],
                         env=env, capture_output=True, text=True, timeout=120, cwd=own)
    expect(run.returncode == 0, f"the single process failed: {run.stderr}")
    snapshots, files, in_partitions, records = (int(v) for v in csv_rows(run.stdout)[-1])
    expect(snapshots == 1, f"{snapshots} snapshots after one INSERT")
    expect(files >= DAYS and in_partitions == files,
           f"{in_partitions} of {files} data files in the table's day partitions on S3")
    expect(records == ROWS, f"the data files hold {records} rows")


if __name__ == "__main__":
    sys.exit(main())
