"""Spark + Iceberg's JdbcCatalog and pyiceberg's SqlCatalog share one table; run from the repository root as `.deps/py/bin/python test/interop/reference/peers_smoke.py`."""

# Proves that the reference peers installed by scripts/install-deps work together:
#   1. Spark (pyspark from .deps/py, Iceberg's Spark runtime and sqlite-jdbc from
#      .deps/jars) opens an Iceberg JdbcCatalog on a SQLite file, creates a namespace and
#      a partitioned table, inserts rows and reads them back;
#   2. pyiceberg's SqlCatalog opens the same SQLite file under the same catalog name and
#      reads the same rows through pyarrow;
#   3. pyiceberg appends rows, and Spark (after REFRESH TABLE) sees them.
# Every result is compared exactly; any mismatch exits non-zero with a message. The
# temporary directory (SQLite file, warehouse, Spark's scratch space) is removed at the
# end, and the Spark JVM is stopped.

import datetime
import os
import shutil
import sys
import tempfile
import time
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from peers import Mismatch, Spark, check, jdbc_catalog  # noqa: E402

CATALOG = "ref"  # Spark's catalog name is the catalog_name column JdbcCatalog writes
TABLE = "db.events"


def spark_rows(spark):
    rows = spark.sql(f"SELECT id, category, amount, day FROM {CATALOG}.{TABLE} ORDER BY id")
    return [tuple(r) for r in rows.collect()]


def arrow_rows(table):
    rows = [(r["id"], r["category"], r["amount"], r["day"]) for r in table.to_pylist()]
    return sorted(rows, key=lambda r: r[0])


D = datetime.date
SPARK_ROWS = [
    (1, "a", Decimal("1.50"), D(2024, 1, 1)),
    (2, "b", Decimal("-2.25"), D(2024, 1, 2)),
    (3, "a", Decimal("100.00"), D(2024, 2, 29)),
    (4, None, None, None),
    (5, "c", Decimal("0.01"), D(1969, 12, 31)),
]
PYICEBERG_ROWS = [
    (6, "b", Decimal("6.60"), D(2025, 6, 30)),
    (7, "d", Decimal("-0.07"), D(2000, 1, 1)),
]


def run(tmp):
    import pyarrow as pa
    from pyiceberg.catalog.sql import SqlCatalog

    sqlite_file = os.path.join(tmp, "catalog.db")
    warehouse = os.path.join(tmp, "warehouse")
    os.makedirs(warehouse)
    timings = {}

    t0 = time.monotonic()
    spark = Spark(tmp, {CATALOG: jdbc_catalog(sqlite_file, warehouse)})
    timings["spark start"] = time.monotonic() - t0
    try:
        # 1. Spark writes and reads back.
        t0 = time.monotonic()
        spark.sql(f"CREATE NAMESPACE {CATALOG}.db")
        spark.sql(f"""CREATE TABLE {CATALOG}.{TABLE}
                      (id BIGINT NOT NULL, category STRING, amount DECIMAL(10, 2), day DATE)
                      USING iceberg PARTITIONED BY (category)""")
        values = ", ".join(
            "({}, {}, {}, {})".format(
                i,
                "NULL" if c is None else f"'{c}'",
                "CAST(NULL AS DECIMAL(10, 2))" if a is None else f"CAST({a} AS DECIMAL(10, 2))",
                "CAST(NULL AS DATE)" if d is None else f"DATE '{d.isoformat()}'")
            for i, c, a, d in SPARK_ROWS)
        spark.sql(f"INSERT INTO {CATALOG}.{TABLE} VALUES {values}")
        check("Spark reads what Spark wrote", spark_rows(spark), SPARK_ROWS)
        timings["spark write+read"] = time.monotonic() - t0

        # 2. pyiceberg reads the same table from the same SQLite catalog.
        t0 = time.monotonic()
        catalog = SqlCatalog(CATALOG, uri=f"sqlite:///{sqlite_file}",
                             warehouse="file://" + warehouse)
        check("pyiceberg lists the namespace", catalog.list_namespaces(), [("db",)])
        check("pyiceberg lists the table", catalog.list_tables("db"), [("db", "events")])
        table = catalog.load_table(TABLE)
        spec = [(f.name, str(f.transform)) for f in table.spec().fields]
        check("partition spec seen by pyiceberg", spec, [("category", "identity")])
        check("pyiceberg reads what Spark wrote", arrow_rows(table.scan().to_arrow()),
              SPARK_ROWS)

        # 3. pyiceberg appends; Spark sees the new rows.
        arrow_schema = table.schema().as_arrow()
        columns = list(zip(*PYICEBERG_ROWS))
        batch = pa.Table.from_arrays(
            [pa.array(col, type=field.type) for col, field in zip(columns, arrow_schema)],
            schema=arrow_schema)
        table.append(batch)
        check("pyiceberg reads its own append", arrow_rows(catalog.load_table(TABLE).scan().to_arrow()),
              SPARK_ROWS + PYICEBERG_ROWS)
        timings["pyiceberg read+append"] = time.monotonic() - t0

        t0 = time.monotonic()
        spark.sql(f"REFRESH TABLE {CATALOG}.{TABLE}")
        check("Spark reads pyiceberg's append", spark_rows(spark), SPARK_ROWS + PYICEBERG_ROWS)
        snapshots = spark.sql(
            f"SELECT operation FROM {CATALOG}.{TABLE}.snapshots ORDER BY committed_at").collect()
        check("snapshots seen by Spark", [r[0] for r in snapshots], ["append", "append"])
        partitions = spark.sql(
            f"SELECT partition.category, record_count FROM {CATALOG}.{TABLE}.partitions "
            "ORDER BY partition.category NULLS FIRST").collect()
        check("partitions seen by Spark", [tuple(r) for r in partitions],
              [(None, 1), ("a", 2), ("b", 2), ("c", 1), ("d", 1)])
        timings["spark refresh+read"] = time.monotonic() - t0
    finally:
        t0 = time.monotonic()
        spark.stop()
        timings["spark stop"] = time.monotonic() - t0
    return timings


def main():
    start = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="floe-peers-smoke-")
    try:
        timings = run(tmp)
    except Mismatch as e:
        print(f"peers_smoke: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("peers_smoke: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    print(f"peers_smoke: ok in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
