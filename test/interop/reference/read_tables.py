"""floe reads the reference tables (make_tables.py wrote them into FLOE_REFERENCE_TABLES, or
the directory given): every snapshot of every table scans to the live rows the reference
read there, and the current snapshot's rows equal the reference's value by value, through
floe's Hadoop catalog (Spark's tables) and its SQL catalog (pyiceberg's). Run as
`.deps/py/bin/python test/interop/reference/read_tables.py PATH_TO_FLOE [TABLES_DIR]` from
the repository root; no Spark is started."""

import json
import os
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from peers import Floe, Report, TempDir, check  # noqa: E402
from values import canon_rows  # noqa: E402


def tables_dir():
    if len(sys.argv) == 3:
        return os.path.abspath(sys.argv[2])
    folder = os.environ.get("FLOE_REFERENCE_TABLES")
    if not folder:
        sys.exit("usage: read_tables.py PATH_TO_FLOE [TABLES_DIR] (or FLOE_REFERENCE_TABLES)")
    return folder


def main():
    if len(sys.argv) not in (2, 3) or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: .deps/py/bin/python test/interop/reference/read_tables.py "
                 "PATH_TO_FLOE [TABLES_DIR]")
    binary = os.path.abspath(sys.argv[1])
    out = tables_dir()
    with open(os.path.join(out, "expected.json")) as f:
        expected = json.load(f)
    report = Report("read_tables")
    with TempDir("read-tables") as tmp:
        floe = Floe(binary, tmp, {
            "gen": {"type": "hadoop", "warehouse": os.path.join(out, "spark")},
            "py": {"type": "sql", "uri": "sqlite:///" + os.path.join(out, "pyiceberg.db"),
                   "warehouse": os.path.join(out, "pyiceberg")},
        })
        for table in expected:
            report.step(f"{table['group']} {table['table']}: every snapshot's live rows",
                        snapshot_rows, binary, out, table)
            report.step(f"{table['group']} {table['table']}: the reference's rows",
                        current_rows, floe, out, table)
        report.step("spark travel: by tag", by_tag, floe, expected)
    return report.finish()


def snapshot_rows(binary, out, table):
    """`floe iceberg scan` of the metadata file at every snapshot counts the reference's
    live rows (deletes of every kind, evolution, expired and replaced files)."""
    metadata = os.path.join(out, table["metadata"])
    for s in table["snapshots"]:
        r = subprocess.run([binary, "iceberg", "scan", metadata, "--snapshot",
                            str(s["snapshot_id"]), "--format", "csv"],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            check(f"floe's scan of snapshot {s['snapshot_id']}", r.stderr.strip(), "")
        rows = len([line for line in r.stdout.splitlines() if line]) - 1  # the header
        check(f"live rows at snapshot {s['snapshot_id']} ({s['operation']})", rows,
              s["expected_live_rows"])
    return f"{len(table['snapshots'])} snapshots"


def catalog_of(table):
    return "gen" if table["group"] == "spark" else "py"


def current_rows(floe, out, table):
    """SELECT * through floe's catalog gives the reference's rows, value by value."""
    from pyiceberg.table import StaticTable

    schema = StaticTable.from_metadata(
        "file://" + os.path.join(out, table["metadata"])).schema().as_arrow()
    text = floe.ok(catalog_of(table), f"SELECT * FROM db.{table['table']}", fmt="jsonl")
    rows = [tuple(json.loads(line, parse_float=Decimal).values())
            for line in text.splitlines() if line]
    mine = json.loads(json.dumps(canon_rows(rows, schema)))
    check(f"floe's rows of {table['table']}", mine, table["rows"])
    return f"{len(mine)} rows"


def by_tag(floe, expected):
    """A tag names the snapshot the reference tagged (three appends after the first)."""
    travel = next(t for t in expected if t["group"] == "spark" and t["table"] == "travel")
    want = travel["snapshots"][3]["expected_live_rows"]
    text = floe.ok("gen", "SELECT count(*) FROM iceberg_scan('db.travel', ref => "
                   "'three_appends')")
    check("rows at the tag three_appends", int(text.splitlines()[-1]), want)


if __name__ == "__main__":
    sys.exit(main())
