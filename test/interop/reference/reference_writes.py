"""The reference writes, floe reads: tables Spark (Iceberg's Java library) and pyiceberg
write, with row-level deletes, evolution, maintenance, branches and tags, read by floe with
the same answers as Spark's; run as `.deps/py/bin/python
test/interop/reference/reference_writes.py PATH_TO_FLOE` from the repository root."""

# Spark writes, in a SQLite catalog floe opens under the same name:
#   - merge-on-read DELETE, UPDATE and MERGE in format version 2 (position deletes, with
#     write.delete.granularity file and partition) and 3 (deletion vectors);
#   - copy-on-write DELETE, UPDATE and MERGE;
#   - schema evolution (add, drop, rename, reorder, int -> long, float -> double, decimal
#     widening, a column dropped and added again under its name) and partition evolution
#     with the old files still live;
#   - rewrite_data_files and expire_snapshots, branches and tags, and time travel by
#     snapshot id, timestamp and ref;
# pyiceberg appends, overwrites, deletes and upserts. For every table, a set of queries
# (all rows, counts, filters on partition and other columns, aggregates) gives floe the
# same rows as Spark, and floe's metadata tables hold Spark's values (delete files too).

import datetime
import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from metadata import same_metadata  # noqa: E402
from peers import Floe, Spark, check, jdbc_catalog, run_driver, sql_catalog  # noqa: E402

CATALOG = "sp"

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


def seed_rows(n=60):
    """(id, cat, v, amt, d) rows: three categories, NULLs in amt, 30 days."""
    rows = []
    for i in range(1, n + 1):
        amt = None if i % 11 == 0 else Decimal(i * 3) / 4
        rows.append((i, "abc"[i % 3], i * 2, amt, datetime.date(2024, 1, 1) +
                     datetime.timedelta(days=i % 30)))
    return rows


def values_sql(rows):
    def lit(v):
        if v is None:
            return "NULL"
        if isinstance(v, str):
            return f"'{v}'"
        if isinstance(v, Decimal):
            return f"CAST({v} AS DECIMAL(10, 2))"
        if isinstance(v, datetime.date):
            return f"DATE '{v.isoformat()}'"
        return str(v)
    return ", ".join("(" + ", ".join(lit(v) for v in r) + ")" for r in rows)


COLUMNS = "(id BIGINT, cat STRING, v INT, amt DECIMAL(10, 2), d DATE)"


class World:
    def __init__(self, floe_binary, tmp):
        self.catalog = CATALOG
        self.db = os.path.join(tmp, "catalog.db")
        self.warehouse = os.path.join(tmp, "warehouse")
        os.makedirs(self.warehouse)
        self.spark = Spark(tmp, {CATALOG: jdbc_catalog(self.db, self.warehouse,
                                                       schema_version="V1")})
        self.spark.sql(f"CREATE NAMESPACE {CATALOG}.db")
        self.floe = Floe(floe_binary, tmp, {
            CATALOG: {"type": "sql", "uri": f"sqlite:///{self.db}", "warehouse": self.warehouse}})
        self.py = sql_catalog(CATALOG, self.db, self.warehouse)

    def spark_query(self, text):
        return canon_rows(self.spark.rows(text))

    def floe_query(self, text):
        out = self.floe.ok(CATALOG, text, fmt="jsonl")
        rows = [json.loads(line, parse_float=Decimal) for line in out.splitlines() if line]
        # Dates come as ISO text, the canonical form of a date.
        return canon_rows(tuple(r.values()) for r in rows)

    def same_answers(self, table, queries=QUERIES, spark_table=None, floe_table=None):
        """Every query over `table` gives floe Spark's rows; the number of queries."""
        for q in queries:
            theirs = self.spark_query(q.format(t=spark_table or f"{CATALOG}.{table}"))
            mine = self.floe_query(q.format(t=floe_table or table))
            check(f"floe's rows of `{q.format(t=table)}` (Spark's {len(theirs)})", mine, theirs)
        return f"{len(queries)} queries"

    def create(self, table, partitioned_by, properties, rows=None):
        props = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
        self.spark.sql(f"CREATE TABLE {CATALOG}.{table} {COLUMNS} USING iceberg "
                       f"PARTITIONED BY ({partitioned_by}) TBLPROPERTIES ({props})")
        self.spark.sql(f"INSERT INTO {CATALOG}.{table} VALUES {values_sql(rows or seed_rows())}")

    def row_level_changes(self, table):
        t = f"{CATALOG}.{table}"
        self.spark.sql(f"DELETE FROM {t} WHERE id % 7 = 0")
        self.spark.sql(f"UPDATE {t} SET v = v * 10, cat = 'b' WHERE id % 5 = 0")
        self.spark.sql(f"DELETE FROM {t} WHERE cat = 'c' AND d < DATE '2024-01-10'")
        self.spark.sql(f"""MERGE INTO {t} AS target
            USING (SELECT id, cat, v, amt, d FROM VALUES
                     (3, 'a', 1000, CAST(1.25 AS DECIMAL(10, 2)), DATE '2024-02-01'),
                     (4, 'x', 0, NULL, NULL),
                     (200, 'c', 7, CAST(2.50 AS DECIMAL(10, 2)), DATE '2024-01-20'),
                     (201, 'a', 8, NULL, DATE '2024-01-21')
                   AS s(id, cat, v, amt, d)) AS source
            ON target.id = source.id
            WHEN MATCHED AND source.cat = 'x' THEN DELETE
            WHEN MATCHED THEN UPDATE SET *
            WHEN NOT MATCHED THEN INSERT *""")


def run(world, report):
    # Row-level changes: merge-on-read (v2 position deletes of either granularity, v3
    # deletion vectors) and copy-on-write.
    mor = {"write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read",
           "write.merge.mode": "merge-on-read"}
    cow = {"write.delete.mode": "copy-on-write", "write.update.mode": "copy-on-write",
           "write.merge.mode": "copy-on-write"}
    variants = [
        ("mor_v2_file", "bucket(4, id)",
         {**mor, "format-version": "2", "write.delete.granularity": "file"}),
        ("mor_v2_partition", "cat",
         {**mor, "format-version": "2", "write.delete.granularity": "partition"}),
        ("mor_v3_dv", "days(d)", {**mor, "format-version": "3"}),
        ("cow_v2", "cat", {**cow, "format-version": "2"}),
        ("cow_v1", "bucket(3, id)", {"format-version": "1"}),
    ]
    for name, spec, props in variants:
        table = f"db.{name}"

        def write(table=table, spec=spec, props=props):
            world.create(table, spec, props)
            world.row_level_changes(table)
            kinds = world.spark.rows(
                f"SELECT content, count(*) FROM {CATALOG}.{table}.all_delete_files "
                "GROUP BY content ORDER BY content")
            return f"delete files by content: {kinds}"
        report.step(f"{name}: Spark deletes, updates and merges", write)
        report.step(f"{name}: floe reads Spark's rows", world.same_answers, table)
        report.step(f"{name}: floe's metadata tables equal Spark's", same_metadata, world, table)

    def deletion_vectors():
        rows = world.spark.rows(f"SELECT file_format, count(*) FROM {CATALOG}.db.mor_v3_dv."
                                "delete_files GROUP BY file_format")
        check("the v3 table's delete files", [r[0] for r in rows], ["PUFFIN"])
    report.step("mor_v3_dv: Spark wrote deletion vectors (Puffin)", deletion_vectors)

    # Schema evolution, every kind, with a write after each change.
    def evolve():
        t = f"{CATALOG}.db.evolve"
        world.spark.sql(f"""CREATE TABLE {t} (id INT, name STRING, f FLOAT,
                            price DECIMAL(9, 2), gone STRING, tmp STRING)
                            USING iceberg PARTITIONED BY (bucket(2, id))
                            TBLPROPERTIES ('format-version' = '2')""")
        world.spark.sql(f"INSERT INTO {t} VALUES (1, 'one', 1.5, 1.25, 'x', 't1'), "
                        "(2, NULL, NULL, NULL, NULL, NULL)")
        world.spark.sql(f"ALTER TABLE {t} ADD COLUMN added BIGINT")
        world.spark.sql(f"INSERT INTO {t} VALUES (3, 'three', 3.5, 3.75, 'y', 't3', 33)")
        world.spark.sql(f"ALTER TABLE {t} DROP COLUMN gone")
        world.spark.sql(f"ALTER TABLE {t} RENAME COLUMN name TO label")
        world.spark.sql(f"ALTER TABLE {t} ALTER COLUMN id TYPE BIGINT")
        world.spark.sql(f"ALTER TABLE {t} ALTER COLUMN f TYPE DOUBLE")
        world.spark.sql(f"ALTER TABLE {t} ALTER COLUMN price TYPE DECIMAL(18, 2)")
        world.spark.sql(f"ALTER TABLE {t} ALTER COLUMN added FIRST")
        world.spark.sql(f"INSERT INTO {t} VALUES (44, 4000000000, 'four', 4.25, 12345678.91, 't4')")
        # Dropped and added again under the same name: a new column, NULL in old rows.
        world.spark.sql(f"ALTER TABLE {t} DROP COLUMN tmp")
        world.spark.sql(f"ALTER TABLE {t} ADD COLUMN tmp INT")
        world.spark.sql(f"INSERT INTO {t} VALUES (55, 5, 'five', 5.5, 5.55, 5)")
        # Partition evolution: the old files stay live under the old spec.
        world.spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD truncate(2, label)")
        world.spark.sql(f"INSERT INTO {t} VALUES (57, 7, 'seven', 7.5, 7.77, NULL)")
        world.spark.sql(f"ALTER TABLE {t} DROP PARTITION FIELD bucket(2, id)")
        world.spark.sql(f"INSERT INTO {t} VALUES (66, 6, 'six', 6.5, 6.66, 6)")
        specs = world.spark.rows(f"SELECT DISTINCT spec_id FROM {t}.files ORDER BY spec_id")
        check("spec ids of live files", [r[0] for r in specs], [0, 1, 2])
    report.step("evolve: Spark evolves the schema and the partition spec", evolve)
    evolve_queries = [
        "SELECT added, id, label, f, price, tmp FROM {t}",
        "SELECT id FROM {t} WHERE label = 'four'",
        "SELECT id, tmp FROM {t} WHERE tmp IS NULL",
        "SELECT count(*), sum(id), max(price) FROM {t}",
        "SELECT id FROM {t} WHERE id > 3000000000 OR f > 4",
    ]
    report.step("evolve: floe reads Spark's rows", world.same_answers, "db.evolve", evolve_queries)

    # Maintenance, branches, tags and time travel.
    snaps = {}

    def maintain():
        t = f"{CATALOG}.db.maint"
        world.create("db.maint", "cat", {"format-version": "2"}, seed_rows(20))
        snaps["first"] = world.spark.rows(
            f"SELECT snapshot_id, committed_at FROM {t}.snapshots ORDER BY committed_at")[-1]
        for i in range(3):
            world.spark.sql(f"INSERT INTO {t} VALUES {values_sql(seed_rows(3 + i))}")
        world.spark.sql(f"ALTER TABLE {t} CREATE TAG before_rewrite")
        world.spark.sql(f"CALL {CATALOG}.system.rewrite_data_files(table => 'db.maint', "
                        "options => map('min-input-files', '2'))")
        world.spark.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
        world.spark.sql(f"INSERT INTO {t}.branch_audit VALUES {values_sql([(999, 'z', 1, None, None)])}")
        world.spark.sql(f"DELETE FROM {t} WHERE id = 1")
        newest = world.spark.rows(f"SELECT max(committed_at) FROM {t}.snapshots")[0][0]
        world.spark.sql(f"CALL {CATALOG}.system.expire_snapshots(table => 'db.maint', "
                        f"older_than => TIMESTAMP '{newest}', retain_last => 1)")
        return f"{len(world.spark.rows(f'SELECT * FROM {t}.snapshots'))} snapshots left"
    report.step("maint: Spark rewrites, tags, branches and expires", maintain)
    report.step("maint: floe reads the main branch", world.same_answers, "db.maint")
    report.step("maint: floe reads the tag",
                lambda: world.same_answers(
                    "db.maint", QUERIES[:3], spark_table=f"{CATALOG}.db.maint VERSION AS OF "
                    "'before_rewrite'", floe_table="iceberg_scan('db.maint', ref => "
                    "'before_rewrite')"))
    report.step("maint: floe reads the branch",
                lambda: world.same_answers(
                    "db.maint", QUERIES[:3], spark_table=f"{CATALOG}.db.maint VERSION AS OF "
                    "'audit'", floe_table="iceberg_scan('db.maint', ref => 'audit')"))

    def time_travel():
        t = f"{CATALOG}.db.travel"
        world.create("db.travel", "bucket(2, id)", {"format-version": "2"}, seed_rows(10))
        history = []
        for i in range(3):
            world.spark.sql(f"INSERT INTO {t} VALUES {values_sql([(100 + i, 'a', i, None, None)])}")
        world.spark.sql(f"DELETE FROM {t} WHERE id < 5")
        for snapshot_id, committed_at in world.spark.rows(
                f"SELECT snapshot_id, committed_at FROM {t}.snapshots ORDER BY committed_at"):
            history.append((snapshot_id, committed_at))
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

    # pyiceberg writes: appends, an overwrite, a delete and an upsert.
    def pyiceberg_writes():
        import pyarrow as pa
        from pyiceberg.expressions import EqualTo, GreaterThan

        world.spark.sql(f"CREATE TABLE {CATALOG}.db.py {COLUMNS} USING iceberg "
                        "PARTITIONED BY (cat) TBLPROPERTIES ('format-version' = '2')")
        table = world.py.load_table("db.py")
        schema = table.schema().as_arrow()

        def arrow(rows):
            cols = list(zip(*rows))
            return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, schema)],
                                        schema=schema)
        table.append(arrow(seed_rows(30)))
        table.append(arrow([(31, "a", 62, Decimal("1.00"), datetime.date(2024, 3, 1))]))
        table.delete(delete_filter=GreaterThan("v", 50))
        table.overwrite(arrow([(40, "b", 1, None, None), (41, "b", 2, Decimal("0.50"), None)]),
                        overwrite_filter=EqualTo("cat", "b"))
        table.upsert(arrow([(1, "b", 100, Decimal("9.99"), datetime.date(2024, 5, 5)),
                            (50, "c", 3, None, None)]), join_cols=["id"])
        ops = world.spark.rows(f"SELECT operation FROM {CATALOG}.db.py.snapshots "
                               "ORDER BY committed_at")
        return "snapshots: " + ", ".join(r[0] for r in ops)
    report.step("py: pyiceberg appends, deletes, overwrites and upserts", pyiceberg_writes)
    report.step("py: floe reads pyiceberg's rows", world.same_answers, "db.py")


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/reference_writes.py", "reference_writes", World,
                        run))
