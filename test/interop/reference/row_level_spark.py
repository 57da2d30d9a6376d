"""floe's row-level changes, read by the reference: floe runs the DELETE, UPDATE and MERGE
sequences of row_level_differential.py on tables of a SQLite catalog (copy-on-write and
merge-on-read, format versions 2 and 3, partitioned and not); Spark (Iceberg's Java runtime, through
JdbcCatalog) then reads every table and must see exactly floe's rows. Spark then changes the
same tables with its own DELETE, UPDATE and MERGE (its merge-on-read writes position deletes
beside floe's), and floe must read exactly Spark's rows; floe changes them once more and
Spark reads again.

usage: .deps/py/bin/python test/interop/reference/row_level_spark.py PATH_TO_FLOE
"""

import itertools
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
sys.path.insert(0, HERE)
from peers import Floe, Spark, check, jdbc_catalog, run_driver  # noqa: E402
from row_level_differential import (COLUMN_NAMES, COLUMNS, ROWS, SEQUENCES, SOURCE,  # noqa: E402
                                    SOURCE_ROWS, table_options)

CATALOG = "fl"
PARTITIONINGS = ["", "bucket(4, id)", "month(d)"]
MODES = ["copy-on-write", "merge-on-read"]
VERSIONS = [2, 3]

# Statements PostgreSQL refuses in the sequences (floe refuses them too: the differential
# suite checks that); they are left out here.
REFUSED = ("SELECT 1 AS id UNION ALL SELECT 1", "UPDATE t SET id = NULL")

SPARK_CHANGES = [
    "DELETE FROM {t} WHERE id % 2 = 1",
    "UPDATE {t} SET s = concat(coalesce(s, ''), '-spark'), k = coalesce(k, 0) + 7 WHERE id < 20",
    """MERGE INTO {t} AS x USING (SELECT 500 AS id, 5 AS k UNION ALL SELECT 2, 22) AS y
       ON x.id = y.id
       WHEN MATCHED THEN UPDATE SET x.k = y.k
       WHEN NOT MATCHED THEN INSERT (id, k, s) VALUES (y.id, y.k, 'from spark')""",
]

FLOE_AFTER_SPARK = [
    "DELETE FROM t WHERE k = 22",
    "UPDATE t SET amount = 1.25 WHERE s LIKE '%spark%'",
]


class World:
    def __init__(self, floe_binary, tmp):
        self.db = os.path.join(tmp, "catalog.db")
        self.warehouse = os.path.join(tmp, "warehouse")
        os.makedirs(self.warehouse)
        self.floe = Floe(floe_binary, tmp, {
            CATALOG: {"type": "sql", "uri": f"sqlite:///{self.db}", "warehouse": self.warehouse}})
        open(self.db, "a").close()
        self.floe.ok(CATALOG, "CREATE SCHEMA db")
        self.spark = Spark(tmp, {CATALOG: jdbc_catalog(self.db, self.warehouse)})
        self.tables = []
        self.versions = {}


def text_columns(cast):
    return ", ".join(f"coalesce({cast(c)}, '<null>')" for c in COLUMN_NAMES)


# Format version 3 tables are compared with their row lineage too: every kept row keeps its
# _row_id and _last_updated_sequence_number, an updated row keeps its _row_id.
LINEAGE = ["_row_id", "_last_updated_sequence_number"]


def floe_rows(world, namespace, lineage=False):
    columns = text_columns(lambda c: f'{c}::text')
    if lineage:
        columns += ", " + ", ".join(f"{c}::text" for c in LINEAGE)
    return sorted(world.floe.rows(CATALOG, f"SELECT {columns} FROM {namespace}.t"))


def spark_rows(world, namespace, lineage=False):
    columns = text_columns(lambda c: f'CAST({c} AS STRING)')
    if lineage:
        columns += ", " + ", ".join(f"CAST({c} AS STRING)" for c in LINEAGE)
    query = f"SELECT {columns} FROM {CATALOG}.{namespace}.t"
    return sorted(tuple(str(v) for v in r) for r in world.spark.rows(query))


def floe_changes(world, namespace, statements):
    world.floe.ok(CATALOG, f"SET search_path = {namespace}", *statements)


def make_table(world, index, partitioning, mode, version, sequence):
    namespace = f"n{index}"
    world.versions[namespace] = version
    statements = [s for s in SEQUENCES[sequence] if not any(r in s for r in REFUSED)]
    world.floe.ok(CATALOG, f"CREATE SCHEMA {namespace}")
    floe_changes(world, namespace, [
        f"CREATE TABLE t ({COLUMNS}) WITH ({table_options(partitioning, mode, version)})",
        SOURCE, SOURCE_ROWS, ROWS])
    # One statement per floe process: each commits on its own, as a user's would.
    for statement in statements:
        floe_changes(world, namespace, [statement])
    world.tables.append(namespace)
    return namespace


def spark_reads_floe(world, namespace):
    lineage = world.versions[namespace] >= 3
    want = floe_rows(world, namespace, lineage)
    check(f"{namespace}: Spark's rows of floe's table", spark_rows(world, namespace, lineage),
          want)
    return f"{len(want)} rows" + (", row lineage included" if lineage else "")


def floe_reads_spark(world, namespace):
    for statement in SPARK_CHANGES:
        world.spark.sql(statement.format(t=f"{CATALOG}.{namespace}.t"))
    lineage = world.versions[namespace] >= 3
    want = spark_rows(world, namespace, lineage)
    check(f"{namespace}: floe's rows after Spark's changes", floe_rows(world, namespace, lineage),
          want)
    floe_changes(world, namespace, FLOE_AFTER_SPARK)
    check(f"{namespace}: Spark's rows after floe changed Spark's changes",
          spark_rows(world, namespace, lineage), floe_rows(world, namespace, lineage))
    files = world.spark.rows(
        f"SELECT content, count(*) FROM {CATALOG}.{namespace}.t.files GROUP BY content")
    return "files by content " + ", ".join(f"{c}:{n}" for c, n in sorted(files))


def run(world, report):
    index = 0
    for sequence in SEQUENCES:
        for partitioning, mode, version in itertools.product(PARTITIONINGS, MODES, VERSIONS):
            index += 1
            label = f"{sequence} '{partitioning}' {mode} v{version}"
            namespace = report.step(f"floe changes ({label})", make_table, world, index,
                                    partitioning, mode, version, sequence)
            if namespace is None:
                continue
            report.step(f"Spark reads floe's table ({label})", spark_reads_floe, world,
                        namespace)
            report.step(f"floe and Spark change it in turn ({label})", floe_reads_spark,
                        world, namespace)


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/row_level_spark.py", "row_level_spark",
                        World, run))
