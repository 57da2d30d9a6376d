"""Row-level changes racing each other in separate floe processes on one SQLite catalog, in
both strategies:

  - two processes delete the same rows at once (one file each time): whichever commits
    second either saw the first's result (DELETE 0) or fails cleanly with a commit conflict;
    no row is lost or doubled;
  - two processes add 1 to the same rows at once: the rows end up incremented once per
    statement that succeeded (no lost update, no doubled row);
  - a DELETE races an append of rows it does not match: both always succeed and the rows
    survive; racing an append of rows it matches, under serializable isolation it fails
    (commit conflict) unless one committed before the other began, under snapshot isolation
    it never fails;
  - a statement that failed leaves no file behind: every data and delete file under the
    table's location is referenced by some snapshot (pyiceberg's all_files).

usage: .deps/py/bin/python test/interop/reference/row_level_conflicts.py PATH_TO_FLOE
"""

import glob
import os
import subprocess
import sys
import tempfile
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
from peers import Floe, floe_from_args, sql_catalog  # noqa: E402

CATALOG = "fl"
ROUNDS = 6
FAILURES = []


def fail(message):
    print(f"FAIL {message}", flush=True)
    FAILURES.append(message)


def spawn(floe, statement):
    args = [floe.binary, "sql", "--catalog", CATALOG, "-c", statement]
    env = dict(os.environ, FLOE_CONFIG=floe.config)
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)


def race(floe, *statements):
    """Starts the statements at once; their (exit status, stdout, stderr)."""
    procs = [spawn(floe, s) for s in statements]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        out.append((p.returncode, stdout.strip(), stderr.strip()))
    return out


def clean_failure(result, what):
    code, stdout, stderr = result
    if code == 0:
        return False
    if "conflict" not in stderr.lower():
        fail(f"{what}: failed without a commit conflict: {stderr}")
    return True


def count(floe, query):
    rows = floe.rows(CATALOG, query)
    return int(rows[0][0])


def no_orphans(py, warehouse, table, what):
    t = py.load_table(table)
    referenced = {os.path.normpath(p.replace("file://", "")) for p in
                  t.inspect.all_files().column("file_path").to_pylist()}
    location = t.location().replace("file://", "")
    present = {os.path.normpath(p) for p in glob.glob(os.path.join(location, "data", "**",
                                                                   "*.parquet"), recursive=True)}
    orphans = present - referenced
    if orphans:
        fail(f"{what}: files no snapshot references: {sorted(orphans)[:3]}")


def setup(floe, table, mode, isolation, rows=2000):
    props = ", ".join(f'"write.{c}.mode" = \'{mode}\', "write.{c}.isolation-level" = '
                      f"'{isolation}'" for c in ("delete", "update", "merge"))
    floe.ok(CATALOG, f"CREATE TABLE {table} (id bigint NOT NULL, grp int, v int) WITH "
                     f"(format_version = 2, partitioning = 'grp', {props})",
            f"INSERT INTO {table} SELECT g, g % 4, 0 FROM generate_series(1, {rows}) s(g)")


def main():
    floe_binary = floe_from_args("test/interop/reference/row_level_conflicts.py")
    tmp = tempfile.mkdtemp(prefix="floe-row-level-conflicts-")
    try:
        db = os.path.join(tmp, "catalog.db")
        warehouse = os.path.join(tmp, "warehouse")
        os.makedirs(warehouse)
        open(db, "a").close()
        floe = Floe(floe_binary, tmp, {
            CATALOG: {"type": "sql", "uri": f"sqlite:///{db}", "warehouse": warehouse}})
        floe.ok(CATALOG, "CREATE SCHEMA db")
        py = sql_catalog(CATALOG, db, warehouse)
        n = 0
        for mode in ("copy-on-write", "merge-on-read"):
            for isolation in ("serializable", "snapshot"):
                n += 1
                table = f"db.t{n}"
                setup(floe, table, mode, isolation)
                label = f"{mode}, {isolation}"
                conflicts = 0
                # Two deletes of the same rows.
                for r in range(ROUNDS):
                    lo = r * 100 + 1
                    stmt = f"DELETE FROM {table} WHERE grp = 1 AND id BETWEEN {lo} AND {lo + 99}"
                    results = race(floe, stmt, stmt)
                    ok = [res for res in results if not clean_failure(res, f"{label} delete")]
                    conflicts += len(results) - len(ok)
                    if not ok:
                        fail(f"{label}: both deletes failed: {results}")
                    deleted = sum(int(res[1].split()[-1]) for res in ok if res[1])
                    if deleted != 25:
                        fail(f"{label}: the deletes of round {r} report {deleted} rows, not 25")
                want = 2000 - ROUNDS * 25
                got = count(floe, f"SELECT count(*) FROM {table}")
                if got != want:
                    fail(f"{label}: {got} rows after the deletes, not {want}")
                # Two increments of the same rows.
                successes = 0
                for r in range(ROUNDS):
                    stmt = f"UPDATE {table} SET v = v + 1 WHERE grp = 2"
                    results = race(floe, stmt, stmt)
                    for res in results:
                        if not clean_failure(res, f"{label} update"):
                            successes += 1
                        else:
                            conflicts += 1
                values = floe.rows(CATALOG, f"SELECT v, count(*), count(DISTINCT id) FROM "
                                            f"{table} WHERE grp = 2 GROUP BY v")
                if values != [(str(successes), "500", "500")]:
                    fail(f"{label}: after {successes} successful increments the rows of grp 2 "
                         f"are {values}")
                # A delete racing an append (of rows the delete would not match anyway).
                delete_failures = 0
                for r in range(ROUNDS):
                    base = 100000 + r * 1000
                    if r > 0:
                        floe.ok(CATALOG, f"INSERT INTO {table} SELECT g, 3, 0 FROM "
                                         f"generate_series({base + 500}, {base + 509}) s(g)")
                    results = race(
                        floe, f"DELETE FROM {table} WHERE grp = 3 AND v >= 0",
                        f"INSERT INTO {table} SELECT g, 3, -1 FROM generate_series({base}, "
                        f"{base + 9}) s(g)")
                    if results[1][0] != 0:
                        fail(f"{label}: the append failed: {results[1][2]}")
                    if clean_failure(results[0], f"{label} delete racing append"):
                        delete_failures += 1
                    if isolation == "snapshot" and results[0][0] != 0:
                        fail(f"{label}: under snapshot isolation the delete failed: "
                             f"{results[0][2]}")
                appended = count(floe, f"SELECT count(*) FROM {table} WHERE v = -1")
                if appended != 10 * ROUNDS:
                    fail(f"{label}: {appended} appended rows remain, not {10 * ROUNDS}")
                if delete_failures == 0:
                    left = count(floe, f"SELECT count(*) FROM {table} WHERE grp = 3 AND v >= 0")
                    if left != 0:
                        fail(f"{label}: every delete succeeded and {left} rows remain")
                # A delete racing an append of rows it matches: under serializable isolation
                # the delete fails unless one of them committed before the other began, so
                # appended rows that survive a successful delete were appended after it.
                for r in range(ROUNDS):
                    base = 200000 + r * 1000
                    results = race(
                        floe, f"DELETE FROM {table} WHERE grp = 3 AND v >= 0",
                        f"INSERT INTO {table} SELECT g, 3, 1 FROM generate_series({base}, "
                        f"{base + 9}) s(g)")
                    if results[1][0] != 0:
                        fail(f"{label}: the matching append failed: {results[1][2]}")
                    if clean_failure(results[0], f"{label} delete racing a matching append"):
                        delete_failures += 1
                        continue
                    survivors = count(floe, f"SELECT count(*) FROM {table} WHERE id BETWEEN "
                                            f"{base} AND {base + 9}")
                    namespace, name = table.split(".")
                    last = floe.rows(CATALOG, f'SELECT operation FROM {namespace}."{name}$snapshots"'
                                              ' ORDER BY committed_at DESC LIMIT 1')
                    if (isolation == "serializable" and survivors > 0
                            and last != [("append",)]):
                        fail(f"{label}: a delete committed after an append it matched and "
                             f"{survivors} appended rows survive")
                no_orphans(py, warehouse, table, label)
                print(f"ok   {label}: {conflicts} clean conflicts between changes, "
                      f"{delete_failures} deletes failed against appends", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print(f"row_level_conflicts: {len(FAILURES)} failures")
        return 1
    print("row_level_conflicts: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
