"""Concurrent commits across engines: floe, Spark and pyiceberg append to one table through
one SQLite catalog at the same time; run as `.deps/py/bin/python
test/interop/reference/concurrent_commits.py PATH_TO_FLOE` from the repository root."""

# Three writers start each of ten rounds together (a barrier), each committing one append
# of its own ids to the same table per round: Spark (Iceberg's Java library, which retries a conflicting commit itself), a floe
# process (which does too), and pyiceberg (which raises CommitFailedException on a conflict:
# the writer reloads the table and appends again, as an application would). Afterwards every
# append is there exactly once (no row lost or doubled, in Spark's and in floe's reading),
# the table has exactly one snapshot per append, and the snapshot log is linear: each
# snapshot's parent is the one before it, and every one is an ancestor of the current one.

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from peers import (Floe, Mismatch, Spark, check, jdbc_catalog, pyiceberg_append_racing,  # noqa: E402
                   run_driver, sql_catalog)

CATALOG = "cc"
TABLE = "db.races"
APPENDS = 10
ROWS = 5  # rows per append


def ids(writer, n):
    """The ids of append n of a writer: 5 consecutive ids in the writer's own range."""
    base = {"spark": 100000, "floe": 200000, "pyiceberg": 300000}[writer]
    return [base + n * ROWS + k for k in range(ROWS)]


class World:
    def __init__(self, floe_binary, tmp):
        self.db = os.path.join(tmp, "catalog.db")
        self.warehouse = os.path.join(tmp, "warehouse")
        os.makedirs(self.warehouse)
        open(self.db, "a").close()
        self.floe = Floe(floe_binary, tmp, {
            CATALOG: {"type": "sql", "uri": f"sqlite:///{self.db}", "warehouse": self.warehouse}})
        # floe creates the table; every engine retries a lost commit up to 50 times.
        self.floe.ok(CATALOG, "CREATE SCHEMA db",
                     f"""CREATE TABLE {TABLE} (id bigint NOT NULL, writer text)
                         WITH (format_version = 2, "commit.retry.num-retries" = '50',
                               "commit.retry.min-wait-ms" = '5',
                               "commit.retry.max-wait-ms" = '200')""")
        self.spark = Spark(tmp, {CATALOG: jdbc_catalog(self.db, self.warehouse)})
        self.py = sql_catalog(CATALOG, self.db, self.warehouse)


def spark_writer(world, errors, barrier):
    try:
        for n in range(APPENDS):
            barrier.wait()
            values = ", ".join(f"({i}, 'spark')" for i in ids("spark", n))
            world.spark.sql(f"INSERT INTO {CATALOG}.{TABLE} VALUES {values}")
    except Exception as e:  # reported by the step
        errors.append(f"spark: {e}")
        barrier.abort()


def floe_writer(world, errors, barrier):
    for n in range(APPENDS):
        barrier.wait()
        values = ", ".join(f"({i}, 'floe')" for i in ids("floe", n))
        r = world.floe.run(CATALOG, f"INSERT INTO {TABLE} VALUES {values}")
        if r.returncode != 0:
            errors.append(f"floe: append {n}: exit {r.returncode}: {r.stderr.strip()}")
            barrier.abort()
            return


def pyiceberg_writer(world, errors, barrier):
    try:
        for n in range(APPENDS):
            barrier.wait()
            pyiceberg_append_racing(world.py, TABLE, ids("pyiceberg", n), "pyiceberg")
    except Exception as e:
        errors.append(f"pyiceberg: {e}")
        barrier.abort()


def run(world, report):
    def race():
        errors = []
        # The three start each round's append together, so that every round races.
        barrier = threading.Barrier(3, timeout=300)
        threads = [threading.Thread(target=w, args=(world, errors, barrier))
                   for w in (spark_writer, floe_writer, pyiceberg_writer)]
        start = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        check("writers' errors", errors, [])
        return f"{3 * APPENDS} appends in {time.monotonic() - start:.1f} s"
    report.step("Spark, floe and pyiceberg append at the same time", race)

    want = sorted((i, w) for w in ("spark", "floe", "pyiceberg") for n in range(APPENDS)
                  for i in ids(w, n))

    def spark_rows():
        check("Spark's rows", sorted(world.spark.rows(f"SELECT id, writer FROM {CATALOG}.{TABLE}")),
              want)
    report.step("every appended row is there once (Spark)", spark_rows)

    def floe_rows():
        import csv
        import io
        out = world.floe.ok(CATALOG, f"SELECT id, writer FROM {TABLE}")
        rows = [(int(r[0]), r[1]) for r in list(csv.reader(io.StringIO(out)))[1:]]
        check("floe's rows", sorted(rows), want)
    report.step("every appended row is there once (floe)", floe_rows)

    def linear_log():
        snaps = world.spark.rows(
            f"SELECT snapshot_id, parent_id, operation FROM {CATALOG}.{TABLE}.snapshots "
            "ORDER BY committed_at, snapshot_id")
        check("operations", [s[2] for s in snaps], ["append"] * (3 * APPENDS))
        by_id = {s[0]: s for s in snaps}
        current = world.spark.rows(
            f"SELECT snapshot_id FROM {CATALOG}.{TABLE}.history WHERE is_current_ancestor")
        check("snapshots that are ancestors of the current one", len(current), len(snaps))
        # Walk from the current snapshot to the first through parents: every snapshot once.
        children = {s[1] for s in snaps}
        heads = [s[0] for s in snaps if s[0] not in children]
        check("snapshots without a child (the current one)", len(heads), 1)
        chain, node = [], heads[0]
        while node is not None:
            chain.append(node)
            node = by_id[node][1]
        check("length of the parent chain", len(chain), len(snaps))
        # The writers really raced: their commits interleave in the chain.
        writer_of = dict(world.spark.rows(
            f"SELECT snapshot_id, readable_metrics.writer.lower_bound FROM {CATALOG}.{TABLE}.entries"))
        order = [writer_of[s] for s in reversed(chain)]
        switches = sum(1 for a, b in zip(order, order[1:]) if a != b)
        if switches < 3:
            raise Mismatch(f"the writers did not overlap: commits in order {order}")
        return f"{len(snaps)} snapshots in one chain, the writer changes {switches} times"
    report.step("the snapshot log is linear, one snapshot per append", linear_log)


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/concurrent_commits.py", "concurrent_commits", World,
                        run))
