"""The reference writes, floe reads: the reference tables (make_tables.py: written by Spark,
Iceberg's Java library, and pyiceberg at test time) queried by floe and by Spark, with the
same answers; run as `.deps/py/bin/python test/interop/reference/reference_writes.py
PATH_TO_FLOE` from the repository root, with FLOE_REFERENCE_TABLES naming the tables (the
ctest fixture `reference_tables` writes them and sets it)."""

# For the tables with row-level changes (merge-on-read position deletes of file and
# partition granularity, deletion vectors, copy-on-write in v1 and v2, deletes left
# dangling by a rewrite), schema and partition evolution, rewrite and expiry, a tag and a
# branch, and pyiceberg's appends, deletes, overwrites and upserts: a set of queries (all
# rows, counts, filters on partition and other columns, aggregates) gives floe the rows
# Spark gives, the metadata tables hold Spark's values, and time travel by snapshot id,
# timestamp and ref reads what Spark reads there. Spark opens the tables through the same
# catalogs floe does: its Hadoop catalog over the Spark tables, a JdbcCatalog over
# pyiceberg's SQLite catalog.

import datetime
import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from metadata import same_metadata  # noqa: E402
from peers import Floe, Spark, check, jdbc_catalog, run_driver  # noqa: E402

SPARK = "gen"  # as in make_tables.py
PY = "py"

# Queries over a table {t} with columns (id bigint, cat string, v int, amt decimal(10,2),
# d date): the same text in both engines.
QUERIES = [
    "SELECT id, cat, v, amt, d FROM {t}",
    "SELECT count(*) FROM {t}",
    "SELECT id, v FROM {t} WHERE cat = 'b'",
    "SELECT id, amt FROM {t} WHERE v > 50",
    "SELECT id FROM {t} WHERE d >= DATE '2024-01-15'",
    "SELECT cat, count(*), sum(v) FROM {t} GROUP BY cat",
    "SELECT id FROM {t} WHERE amt IS NULL",
]


def canon(value):
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return value


def canon_rows(rows):
    return sorted((tuple(canon(v) for v in r) for r in rows), key=repr)


def tables_dir():
    folder = os.environ.get("FLOE_REFERENCE_TABLES")
    if not folder or not os.path.exists(os.path.join(folder, "expected.json")):
        sys.exit("FLOE_REFERENCE_TABLES must name the reference tables (run through ctest, "
                 "whose fixture reference_tables writes them)")
    return folder


class World:
    def __init__(self, floe_binary, tmp):
        out = tables_dir()
        spark_warehouse = os.path.join(out, "spark")
        py_db = os.path.join(out, "pyiceberg.db")
        py_warehouse = os.path.join(out, "pyiceberg")
        self.catalog = SPARK
        self.spark = Spark(tmp, {
            SPARK: {"type": "hadoop", "warehouse": "file://" + spark_warehouse},
            PY: jdbc_catalog(py_db, py_warehouse, schema_version="V1"),
        })
        self.floe = Floe(floe_binary, tmp, {
            SPARK: {"type": "hadoop", "warehouse": spark_warehouse},
            PY: {"type": "sql", "uri": f"sqlite:///{py_db}", "warehouse": py_warehouse},
        })

    def spark_query(self, text):
        return canon_rows(self.spark.rows(text))

    def floe_query(self, catalog, text):
        out = self.floe.ok(catalog, text, fmt="jsonl")
        rows = [json.loads(line, parse_float=Decimal) for line in out.splitlines() if line]
        # Dates come as ISO text, the canonical form of a date.
        return canon_rows(tuple(r.values()) for r in rows)

    def same_answers(self, table, queries=QUERIES, spark_table=None, floe_table=None,
                     catalog=SPARK):
        """Every query over `table` gives floe Spark's rows; the number of queries."""
        for q in queries:
            theirs = self.spark_query(q.format(t=spark_table or f"{catalog}.{table}"))
            mine = self.floe_query(catalog, q.format(t=floe_table or table))
            check(f"floe's rows of `{q.format(t=table)}` (Spark's {len(theirs)})", mine, theirs)
        return f"{len(queries)} queries"


def run(world, report):
    for name in ("mor_v2_file", "mor_v2_partition", "mor_v3_dv", "cow_v2", "cow_v1",
                 "dangling"):
        table = f"db.{name}"
        report.step(f"{name}: floe reads Spark's rows", world.same_answers, table)
        report.step(f"{name}: floe's metadata tables equal Spark's", same_metadata, world, table)

    evolve_queries = [
        "SELECT added, id, label, f, price, tmp FROM {t}",
        "SELECT id FROM {t} WHERE label = 'four'",
        "SELECT id, tmp FROM {t} WHERE tmp IS NULL",
        "SELECT count(*), sum(id), max(price) FROM {t}",
        "SELECT id FROM {t} WHERE id > 3000000000 OR f > 4",
    ]
    report.step("evolve: floe reads Spark's rows", world.same_answers, "db.evolve",
                evolve_queries)
    report.step("evolve: floe's metadata tables equal Spark's", same_metadata, world,
                "db.evolve")

    report.step("maint: floe reads the main branch", world.same_answers, "db.maint")
    report.step("maint: floe's metadata tables equal Spark's", same_metadata, world, "db.maint")
    for ref in ("before_rewrite", "audit"):
        report.step(f"maint: floe reads the ref {ref}", lambda ref=ref: world.same_answers(
            "db.maint", QUERIES[:3], spark_table=f"{SPARK}.db.maint VERSION AS OF '{ref}'",
            floe_table=f"iceberg_scan('db.maint', ref => '{ref}')"))

    def time_travel():
        t = f"{SPARK}.db.travel"
        history = world.spark.rows(
            f"SELECT snapshot_id, committed_at FROM {t}.snapshots ORDER BY committed_at")
        for snapshot_id, committed_at in history:
            world.same_answers("db.travel", QUERIES[:2],
                               spark_table=f"{t} VERSION AS OF {snapshot_id}",
                               floe_table=f"iceberg_scan('db.travel', snapshot_id => "
                                          f"{snapshot_id})")
            stamp = committed_at.strftime("%Y-%m-%d %H:%M:%S.%f")
            world.same_answers("db.travel", QUERIES[:2],
                               spark_table=f"{t} TIMESTAMP AS OF '{stamp}'",
                               floe_table=f"iceberg_scan('db.travel', as_of => TIMESTAMP "
                                          f"'{stamp}')")
        return f"{len(history)} snapshots, by id and by time"
    report.step("travel: floe's time travel equals Spark's", time_travel)

    report.step("py writes: floe reads pyiceberg's rows",
                lambda: world.same_answers("db.writes", catalog=PY))
    report.step("py writes: floe's metadata tables equal Spark's", same_metadata, world,
                "db.writes", PY)


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/reference_writes.py", "reference_writes", World,
                        run))
