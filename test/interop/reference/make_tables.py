"""Writes the reference tables: Iceberg tables of every kind the suite reads, written by Spark
(Iceberg's Java library) and pyiceberg at test time, so that a clone of floe tests itself on
any Debian machine. Run by ctest (the `reference_tables` fixture) as `.deps/py/bin/python
test/interop/reference/make_tables.py OUT_DIR` from the repository root; OUT_DIR is emptied
first.

OUT_DIR holds:
  spark/db/<table>      Spark's tables, through its Hadoop catalog (metadata/vN.metadata.json
                        and version-hint.text, so their metadata files have names a test
                        can write down);
  pyiceberg/db/<table>  pyiceberg's, through its SQL catalog pyiceberg.db;
  eq-deletes/           the equality-delete files committed through the Java API;
  expected.json         every table: its metadata file (relative to OUT_DIR), format version
                        and snapshots, each with the live rows the reference reads at it
                        (`expected_live_rows`), in the layout of the fixtures' expected.json;
                        and the reference's rows of its current snapshot (`rows`, in the
                        canonical form of lib/values.py, sorted).

The kinds: format versions 1, 2 and 3; merge-on-read position deletes of file and partition
granularity, deletion vectors, equality deletes (unpartitioned and partition-scoped);
copy-on-write DML; overwrite; schema evolution (add, drop, rename, reorder, promotions,
drop and re-add); partition evolution with old files live; every transform, a void one in
v1; every type Spark writes and pyiceberg's time, uuid, fixed and timestamptz; a sort
order; tags, branches, rewrite_data_files and expired snapshots; pyiceberg's appends,
deletes, overwrites and upserts, and a file added without field ids (name mapping).
"""

import datetime
import gzip
import json
import os
import shutil
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from peers import Report, Spark, TempDir, check, jdbc_catalog, sql_catalog  # noqa: E402
from values import arrow_rows, canon_rows, sql_values  # noqa: E402

SPARK = "gen"  # Spark's Hadoop catalog over OUT/spark
PY = "py"  # pyiceberg's SQL catalog (and Spark's JdbcCatalog on the same file)
COLUMNS = "(id BIGINT, cat STRING, v INT, amt DECIMAL(10, 2), d DATE)"
# pyiceberg's tables whose reference reader is pyiceberg, not Spark: Spark cannot load a
# table with a time column (types) and reads columns whose names differ only in case as
# one (case_names); neither has deletes.
PYICEBERG_READS = ("types", "case_names")
MOR = {"write.delete.mode": "merge-on-read", "write.update.mode": "merge-on-read",
       "write.merge.mode": "merge-on-read"}
COW = {"write.delete.mode": "copy-on-write", "write.update.mode": "copy-on-write",
       "write.merge.mode": "copy-on-write"}


def seed_rows(n=60, first=1):
    """(id, cat, v, amt, d) rows: three categories, NULLs in amt, 30 days."""
    rows = []
    for i in range(first, first + n):
        amt = None if i % 11 == 0 else Decimal(i * 3) / 4
        rows.append((i, "abc"[i % 3], i * 2, amt,
                     datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 30)))
    return rows


class Tables:
    def __init__(self, out, tmp):
        self.out = out
        self.spark_warehouse = os.path.join(out, "spark")
        self.py_db = os.path.join(out, "pyiceberg.db")
        self.py_warehouse = os.path.join(out, "pyiceberg")
        os.makedirs(self.spark_warehouse)
        os.makedirs(self.py_warehouse)
        # One file of its own per engine's catalog; Spark reads pyiceberg's through a
        # JdbcCatalog on the same SQLite file (V1: pyiceberg's layout).
        self.py = sql_catalog(PY, self.py_db, self.py_warehouse)
        self.py.create_namespace("db")
        self.spark = Spark(tmp, {
            SPARK: {"type": "hadoop", "warehouse": "file://" + self.spark_warehouse},
            PY: jdbc_catalog(self.py_db, self.py_warehouse, schema_version="V1"),
        })
        self.spark.sql(f"CREATE NAMESPACE {SPARK}.db")
        self.tables = []  # (engine, name)

    def sql(self, text):
        return self.spark.sql(text)

    def create(self, name, partitioned_by, properties, rows=None, columns=COLUMNS):
        props = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
        partitioning = f"PARTITIONED BY ({partitioned_by})" if partitioned_by else ""
        self.sql(f"CREATE TABLE {SPARK}.db.{name} {columns} USING iceberg {partitioning} "
                 f"TBLPROPERTIES ({props})")
        if rows is not False:
            self.sql(f"INSERT INTO {SPARK}.db.{name} VALUES {sql_values(rows or seed_rows())}")
        self.tables.append(("spark", name))

    def row_level_changes(self, name):
        t = f"{SPARK}.db.{name}"
        self.sql(f"DELETE FROM {t} WHERE id % 7 = 0")
        self.sql(f"UPDATE {t} SET v = v * 10, cat = 'b' WHERE id % 5 = 0")
        self.sql(f"DELETE FROM {t} WHERE cat = 'c' AND d < DATE '2024-01-10'")
        self.sql(f"""MERGE INTO {t} AS target
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

    def delete_kinds(self, name):
        return self.spark.rows(f"SELECT content, file_format, count(*) FROM {SPARK}.db.{name}."
                               "all_delete_files GROUP BY content, file_format ORDER BY 1, 2")

    # -----------------------------------------------------------------------------------
    # Spark's tables

    def format_v1(self):
        """v1: identity partitions, appends and an INSERT OVERWRITE (Spark's default static
        mode: the whole table); a v1 void partition."""
        self.create("v1_identity", "cat", {"format-version": "1"})
        t = f"{SPARK}.db.v1_identity"
        self.sql(f"INSERT INTO {t} VALUES {sql_values(seed_rows(10, 100))}")
        self.sql(f"INSERT OVERWRITE {t} SELECT id + 1000, cat, v, amt, d FROM {t} "
                 "WHERE cat = 'a'")
        self.create("v1_void", "bucket(3, id), days(d)", {"format-version": "1"})
        self.sql(f"ALTER TABLE {SPARK}.db.v1_void DROP PARTITION FIELD days(d)")
        self.sql(f"INSERT INTO {SPARK}.db.v1_void VALUES {sql_values(seed_rows(12, 300))}")
        with open(self.metadata_file("spark", "v1_void")) as f:
            spec = json.load(f)["partition-spec"]
        check("v1_void's partition fields", [(p["name"], p["transform"]) for p in spec],
              [("id_bucket", "bucket[3]"), ("d_day", "void")])

    def merge_on_read(self):
        """Position deletes (v2, both granularities) and deletion vectors (v3)."""
        variants = [
            ("mor_v2_file", "bucket(4, id)",
             {**MOR, "format-version": "2", "write.delete.granularity": "file"}),
            ("mor_v2_partition", "cat",
             {**MOR, "format-version": "2", "write.delete.granularity": "partition"}),
            ("mor_v3_dv", "days(d)", {**MOR, "format-version": "3"}),
        ]
        kinds = {}
        for name, spec, props in variants:
            self.create(name, spec, props)
            self.row_level_changes(name)
            kinds[name] = self.delete_kinds(name)
        for name in ("mor_v2_file", "mor_v2_partition"):
            check(f"{name}'s delete file kinds", {k[:2] for k in kinds[name]}, {(1, "PARQUET")})
        check("mor_v3_dv's delete file kinds", {k[:2] for k in kinds["mor_v3_dv"]},
              {(1, "PUFFIN")})
        return ", ".join(f"{n}: {k}" for n, k in kinds.items())

    def plain(self):
        """A small unpartitioned table, 6 rows in two appends: the table
        test/interop/iceberg_errors.mjs damages copies of."""
        self.create("plain", None, {"format-version": "2"}, seed_rows(4))
        self.sql(f"INSERT INTO {SPARK}.db.plain VALUES {sql_values(seed_rows(2, 5))}")

    def copy_on_write(self):
        """Copy-on-write changes, in v2 and in v1 (where there are no delete files)."""
        self.create("cow_v2", "cat", {**COW, "format-version": "2"})
        self.row_level_changes("cow_v2")
        check("cow_v2's delete files", self.delete_kinds("cow_v2"), [])
        self.create("cow_v1", "bucket(3, id)", {"format-version": "1"})
        self.row_level_changes("cow_v1")

    def equality_deletes(self):
        """Equality deletes, which Spark's SQL never writes: Parquet files written here,
        committed through the Java API (a row delta), unpartitioned and partition-scoped."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        jvm = self.spark.session._jvm
        gateway = self.spark.session.sparkContext._gateway
        folder = os.path.join(self.out, "eq-deletes")
        os.makedirs(folder)

        def commit(name, file, columns, partition_path):
            table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(
                self.spark.session._jsparkSession, f"{SPARK}.db.{name}")
            schema = table.schema()
            ids = gateway.new_array(gateway.jvm.int, len(columns))
            for i, c in enumerate(columns):
                ids[i] = schema.findField(c).fieldId()
            builder = (jvm.org.apache.iceberg.FileMetadata.deleteFileBuilder(table.spec())
                       .ofEqualityDeletes(ids)
                       .withPath("file://" + file)
                       .withFormat("parquet")
                       .withFileSizeInBytes(os.path.getsize(file))
                       .withRecordCount(pq.read_metadata(file).num_rows))
            if partition_path:
                builder = builder.withPartitionPath(partition_path)
            table.newRowDelta().addDeletes(builder.build()).commit()

        def delete_file(name, fields, rows):
            """A Parquet file of the given (name, arrow type, field id) columns."""
            schema = pa.schema([pa.field(n, t, metadata={"PARQUET:field_id": str(fid)})
                                for n, t, fid in fields])
            table = pa.Table.from_pylist([dict(zip([f[0] for f in fields], r)) for r in rows],
                                         schema=schema)
            path = os.path.join(folder, name)
            pq.write_table(table, path)
            return path

        # Unpartitioned: deletes by id, then by (id, cat) with a row that matches nothing.
        self.create("eq_deletes", None, {"format-version": "2"}, seed_rows(20))
        self.sql(f"INSERT INTO {SPARK}.db.eq_deletes VALUES {sql_values(seed_rows(5, 21))}")
        commit("eq_deletes", delete_file("eq1.parquet", [("id", pa.int64(), 1)],
                                         [(1,), (2,), (22,)]), ["id"], None)
        commit("eq_deletes", delete_file("eq2.parquet",
                                         [("id", pa.int64(), 1), ("cat", pa.string(), 2)],
                                         [(3, "a"), (4, "b"), (5, "c")]), ["id", "cat"], None)
        # A later append is not deleted by the earlier deletes (sequence numbers).
        self.sql(f"INSERT INTO {SPARK}.db.eq_deletes VALUES (1, 'b', 0, NULL, NULL)")
        # Partition-scoped: a delete in cat=a does not reach the same id in cat=b.
        self.create("eq_deletes_partitioned", "cat", {"format-version": "2"},
                    [(1, "a", 1, None, None), (1, "b", 2, None, None), (2, "a", 3, None, None),
                     (3, "b", 4, None, None)])
        commit("eq_deletes_partitioned",
               delete_file("eq3.parquet", [("id", pa.int64(), 1)], [(1,), (3,)]),
               ["id"], "cat=a")
        got = sorted(self.spark.rows(f"SELECT id, cat FROM {SPARK}.db.eq_deletes_partitioned"))
        check("Spark's rows after the partition-scoped delete", got,
              [(1, "b"), (2, "a"), (3, "b")])
        return f"{self.spark.rows(f'SELECT count(*) FROM {SPARK}.db.eq_deletes')[0][0]} rows left"

    def evolution(self):
        """Every kind of schema change, and partition evolution with old files live."""
        t = f"{SPARK}.db.evolve"
        self.sql(f"""CREATE TABLE {t} (id INT, name STRING, f FLOAT, price DECIMAL(9, 2),
                     gone STRING, tmp STRING) USING iceberg PARTITIONED BY (bucket(2, id))
                     TBLPROPERTIES ('format-version' = '2')""")
        self.tables.append(("spark", "evolve"))
        self.sql(f"INSERT INTO {t} VALUES (1, 'one', 1.5, 1.25, 'x', 't1'), "
                 "(2, NULL, NULL, NULL, NULL, NULL)")
        self.sql(f"ALTER TABLE {t} ADD COLUMN added BIGINT")
        self.sql(f"INSERT INTO {t} VALUES (3, 'three', 3.5, 3.75, 'y', 't3', 33)")
        self.sql(f"ALTER TABLE {t} DROP COLUMN gone")
        self.sql(f"ALTER TABLE {t} RENAME COLUMN name TO label")
        self.sql(f"ALTER TABLE {t} ALTER COLUMN id TYPE BIGINT")
        self.sql(f"ALTER TABLE {t} ALTER COLUMN f TYPE DOUBLE")
        self.sql(f"ALTER TABLE {t} ALTER COLUMN price TYPE DECIMAL(18, 2)")
        self.sql(f"ALTER TABLE {t} ALTER COLUMN added FIRST")
        self.sql(f"INSERT INTO {t} VALUES (44, 4000000000, 'four', 4.25, 12345678.91, 't4')")
        self.sql(f"ALTER TABLE {t} DROP COLUMN tmp")
        self.sql(f"ALTER TABLE {t} ADD COLUMN tmp INT")
        self.sql(f"INSERT INTO {t} VALUES (55, 5, 'five', 5.5, 5.55, 5)")
        self.sql(f"ALTER TABLE {t} ADD PARTITION FIELD truncate(2, label)")
        self.sql(f"INSERT INTO {t} VALUES (57, 7, 'seven', 7.5, 7.77, NULL)")
        self.sql(f"ALTER TABLE {t} DROP PARTITION FIELD bucket(2, id)")
        self.sql(f"INSERT INTO {t} VALUES (66, 6, 'six', 6.5, 6.66, 6)")
        specs = self.spark.rows(f"SELECT DISTINCT spec_id FROM {t}.files ORDER BY spec_id")
        check("spec ids of live files", [r[0] for r in specs], [0, 1, 2])

    def transforms(self):
        """Every transform over every source type it takes, one table per family."""
        columns = ("(i INT, l BIGINT, s STRING, dec DECIMAL(20, 4), d DATE, ts TIMESTAMP, "
                   "ntz TIMESTAMP_NTZ, b BINARY)")
        rows = []
        for k in range(12):
            rows.append(f"({k * 37 - 100}, {k * 1000003 - 5000000}, 'str{k % 5}-{k}', "
                        f"CAST({k * 12.3456 - 40:.4f} AS DECIMAL(20, 4)), "
                        f"DATE '{datetime.date(2019, 12, 20) + datetime.timedelta(days=k * 41)}', "
                        f"TIMESTAMP '2023-06-{1 + k:02d} {k:02d}:30:00', "
                        f"TIMESTAMP_NTZ '2021-0{1 + k % 9}-15 {(k * 5) % 24:02d}:00:00', "
                        f"X'{k:02x}ab{k * 7 % 256:02x}')")
        rows.append("(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
        specs = {
            "bucket": "bucket(4, i), bucket(4, l), bucket(4, s), bucket(4, dec), bucket(4, d), "
                      "bucket(4, ts), bucket(4, b)",
            "truncate": "truncate(10, i), truncate(100, l), truncate(3, s), truncate(5, dec), "
                        "truncate(2, b)",
            "temporal": "years(d), months(ts), hours(ntz)",
            "day_identity": "days(ts), i, s, dec, b",
        }
        for name, spec in specs.items():
            self.create(f"transform_{name}", spec, {"format-version": "2"}, False, columns)
            self.sql(f"INSERT INTO {SPARK}.db.transform_{name} VALUES {', '.join(rows)}")
        return f"{len(specs)} tables of {len(rows)} rows"

    def types(self):
        """Every type Spark writes, nested values with NULLs at every level."""
        t = f"{SPARK}.db.types"
        self.sql(f"""CREATE TABLE {t} (id INT, bo BOOLEAN, i INT, l BIGINT, f FLOAT, db DOUBLE,
            d9 DECIMAL(9, 2), d18 DECIMAL(18, 6), d38 DECIMAL(38, 10), dt DATE, ts TIMESTAMP,
            ntz TIMESTAMP_NTZ, s STRING, b BINARY,
            st STRUCT<a: INT, b: STRING, inner: STRUCT<x: DOUBLE>>, li ARRAY<INT>,
            ls ARRAY<STRUCT<k: STRING, n: BIGINT>>, m MAP<STRING, INT>)
            USING iceberg TBLPROPERTIES ('format-version' = '2')""")
        self.tables.append(("spark", "types"))
        self.sql(f"""INSERT INTO {t} VALUES
            (1, true, 2147483647, 9223372036854775807, CAST(3.5 AS FLOAT), 2.718281828459045,
             1234567.89, 123456789012.345678,
             CAST('1234567890123456789012345678.0123456789' AS DECIMAL(38, 10)),
             DATE '2024-02-29', TIMESTAMP '2024-02-29 12:34:56.123456',
             TIMESTAMP_NTZ '1999-12-31 23:59:59.999999', 'héllo', X'00FF10',
             named_struct('a', 1, 'b', 'x', 'inner', named_struct('x', 1.5)), array(1, NULL, 3),
             array(named_struct('k', 'a', 'n', 1), NULL), map('one', 1, 'none', NULL)),
            (2, false, -2147483648, -9223372036854775808, CAST(-0.0 AS FLOAT), -1e300,
             -0.01, -0.000001, CAST('-0.0000000001' AS DECIMAL(38, 10)), DATE '1970-01-01',
             TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP_NTZ '1900-01-01 00:00:00', '',
             X'', named_struct('a', NULL, 'b', NULL, 'inner', NULL), array(), array(), map()),
            (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL)""")

    def sorted_table(self):
        self.create("sorted", "bucket(2, cat)", {"format-version": "2"}, False)
        self.sql(f"ALTER TABLE {SPARK}.db.sorted WRITE ORDERED BY v DESC NULLS LAST, id")
        self.sql(f"INSERT INTO {SPARK}.db.sorted VALUES {sql_values(seed_rows(40))}")

    def metadata_and_statistics(self):
        """Metadata JSON compressed with gzip (vN.gz.metadata.json); table statistics
        (compute_table_stats: theta sketches in a Puffin file the metadata lists);
        position deletes left dangling by rewrite_data_files."""
        self.create("gzip_metadata", "cat", {"format-version": "2",
                                             "write.metadata.compression-codec": "gzip"})
        self.sql(f"INSERT INTO {SPARK}.db.gzip_metadata VALUES {sql_values(seed_rows(5, 100))}")
        self.create("stats", "bucket(2, id)", {"format-version": "2"})
        self.sql(f"CALL {SPARK}.system.compute_table_stats(table => 'db.stats')")
        self.create("dangling", "cat", {**MOR, "format-version": "2"})
        self.row_level_changes("dangling")
        self.sql(f"CALL {SPARK}.system.rewrite_data_files(table => 'db.dangling', "
                 "options => map('rewrite-all', 'true'))")
        kinds = self.delete_kinds("dangling")
        check("dangling's delete files stay after the rewrite", bool(kinds), True)
        return f"dangling deletes: {kinds}"

    def maintenance(self):
        """rewrite_data_files, a tag, a branch, a delete and expire_snapshots."""
        t = f"{SPARK}.db.maint"
        self.create("maint", "cat", {"format-version": "2"}, seed_rows(20))
        for i in range(3):
            self.sql(f"INSERT INTO {t} VALUES {sql_values(seed_rows(3 + i, 100 + 10 * i))}")
        self.sql(f"ALTER TABLE {t} CREATE TAG before_rewrite")
        self.sql(f"CALL {SPARK}.system.rewrite_data_files(table => 'db.maint', "
                 "options => map('min-input-files', '2'))")
        self.sql(f"ALTER TABLE {t} CREATE BRANCH audit")
        self.sql(f"INSERT INTO {t}.branch_audit VALUES (999, 'z', 1, NULL, NULL)")
        self.sql(f"DELETE FROM {t} WHERE id = 1")
        newest = self.spark.rows(f"SELECT max(committed_at) FROM {t}.snapshots")[0][0]
        self.sql(f"CALL {SPARK}.system.expire_snapshots(table => 'db.maint', "
                 f"older_than => TIMESTAMP '{newest}', retain_last => 1)")
        return f"{len(self.spark.rows(f'SELECT * FROM {t}.snapshots'))} snapshots left"

    def history(self):
        """Appends, a position delete and an overwrite: a history to travel through."""
        t = f"{SPARK}.db.travel"
        self.create("travel", "bucket(2, id)", {**MOR, "format-version": "2"}, seed_rows(10))
        for i in range(3):
            self.sql(f"INSERT INTO {t} VALUES (1{i:02d}, 'a', {i}, NULL, NULL)")
        self.sql(f"ALTER TABLE {t} CREATE TAG three_appends")
        self.sql(f"DELETE FROM {t} WHERE id < 5")
        self.sql(f"INSERT OVERWRITE {t} SELECT * FROM {t} WHERE id >= 100")

    # -----------------------------------------------------------------------------------
    # pyiceberg's tables

    def pyiceberg_writes(self):
        """Appends, a delete, an overwrite and an upsert through pyiceberg."""
        import pyarrow as pa
        from pyiceberg.expressions import EqualTo, GreaterThan

        self.sql(f"CREATE TABLE {PY}.db.writes {COLUMNS} USING iceberg PARTITIONED BY (cat) "
                 "TBLPROPERTIES ('format-version' = '2')")
        self.tables.append(("pyiceberg", "writes"))
        table = self.py.load_table("db.writes")
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

    def pyiceberg_avro_codecs(self):
        """Manifests and manifest lists in the Avro codecs pyiceberg writes besides its
        default deflate (Java's manifests are always deflate): null, snappy and zstandard."""
        import pyarrow as pa

        for codec in ("null", "snappy", "zstd"):
            name = f"avro_{codec}"
            self.sql(f"CREATE TABLE {PY}.db.{name} {COLUMNS} USING iceberg PARTITIONED BY "
                     f"(cat) TBLPROPERTIES ('format-version' = '2', "
                     f"'write.avro.compression-codec' = '{codec}')")
            self.tables.append(("pyiceberg", name))
            table = self.py.load_table(f"db.{name}")
            schema = table.schema().as_arrow()
            for first in (1, 100):
                rows = seed_rows(6, first)
                table.append(pa.Table.from_arrays(
                    [pa.array(c, type=f.type) for c, f in zip(zip(*rows), schema)],
                    schema=schema))

    def pyiceberg_types(self):
        """The types Spark does not write (time, uuid, fixed) and timestamptz, identity
        partitions over time, timestamptz and fixed, and a schema change."""
        import uuid

        import pyarrow as pa
        from pyiceberg.partitioning import PartitionField, PartitionSpec
        from pyiceberg.schema import Schema
        from pyiceberg.transforms import IdentityTransform
        from pyiceberg.types import (FixedType, IntegerType, LongType, NestedField, StringType,
                                     TimestampType, TimestamptzType, TimeType, UUIDType)

        schema = Schema(
            NestedField(1, "id", IntegerType(), required=False),
            NestedField(2, "tm", TimeType(), required=False),
            NestedField(3, "u", UUIDType(), required=False),
            NestedField(4, "fx", FixedType(4), required=False),
            NestedField(5, "tz", TimestamptzType(), required=False),
            NestedField(6, "ts", TimestampType(), required=False),
            NestedField(7, "s", StringType(), required=False),
        )
        spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "tm"),
                             PartitionField(5, 1001, IdentityTransform(), "tz"))
        table = self.py.create_table("db.types", schema=schema, partition_spec=spec,
                                     properties={"format-version": "2"})
        self.tables.append(("pyiceberg", "types"))
        utc = datetime.timezone.utc
        rows = [
            (1, datetime.time(12, 34, 56), uuid.UUID("12151fd2-7586-11e9-8f9e-2a86e4085a59"),
             b"\x01\x02\x03\x04", datetime.datetime(2026, 1, 1, tzinfo=utc),
             datetime.datetime(2026, 1, 1, 8, 0), "click"),
            (2, datetime.time(8, 21, 9, 123456), uuid.UUID(int=0), b"\xff\xff\xff\xff",
             datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=utc),
             datetime.datetime(1960, 5, 5), "purchase"),
            (3, None, None, None, None, None, None),
        ]
        arrow_schema = table.schema().as_arrow()
        table.append(pa.Table.from_pylist(
            [dict(zip(arrow_schema.names, r)) for r in rows], schema=arrow_schema))
        with table.update_schema() as update:
            update.add_column("added", LongType())
            update.rename_column("s", "event")
        table = self.py.load_table("db.types")
        arrow_schema = table.schema().as_arrow()
        table.append(pa.Table.from_pylist([dict(zip(arrow_schema.names, (
            4, datetime.time(0, 0), uuid.UUID("550e8400-e29b-41d4-a716-446655440000"),
            b"abcd", datetime.datetime(2026, 1, 1, tzinfo=utc), None, "view", 44)))],
            schema=arrow_schema))
        return f"{len(table.scan().to_arrow())} rows"

    def pyiceberg_names_and_defaults(self):
        """Columns whose names differ only in case (user_id, uSeR_Id), and columns added
        with default values (initial-default for the rows written before, write-default)."""
        import datetime as dt
        import uuid

        import pyarrow as pa
        from pyiceberg.schema import Schema
        from pyiceberg.types import (BooleanType, DateType, DecimalType, DoubleType,
                                     FixedType, IntegerType, LongType, NestedField,
                                     StringType, TimestampType, UUIDType)

        schema = Schema(NestedField(1, "user_id", IntegerType(), required=False),
                        NestedField(2, "uSeR_Id", StringType(), required=False))
        table = self.py.create_table("db.case_names", schema=schema,
                                     properties={"format-version": "2"})
        self.tables.append(("pyiceberg", "case_names"))
        arrow_schema = table.schema().as_arrow()
        table.append(pa.Table.from_pylist([{"user_id": 1, "uSeR_Id": "one"},
                                           {"user_id": 2, "uSeR_Id": None}],
                                          schema=arrow_schema))

        table = self.py.create_table(
            "db.defaults", schema=Schema(NestedField(1, "id", IntegerType(), required=False)),
            properties={"format-version": "2"})
        self.tables.append(("pyiceberg", "defaults"))
        table.append(pa.Table.from_pylist([{"id": 1}, {"id": 2}],
                                          schema=table.schema().as_arrow()))
        with table.update_schema() as update:
            update.add_column("b", BooleanType(), default_value=True)
            update.add_column("i", IntegerType(), default_value=42)
            update.add_column("l", LongType(), default_value=-7)
            update.add_column("db", DoubleType(), default_value=2.5)
            update.add_column("dec", DecimalType(9, 2), default_value=Decimal("12.34"))
            update.add_column("s", StringType(), default_value="dflt")
            update.add_column("d", DateType(), default_value=dt.date(2024, 2, 29))
            update.add_column("ts", TimestampType(),
                              default_value=dt.datetime(2024, 1, 2, 3, 4, 5))
            update.add_column("u", UUIDType(),
                              default_value=uuid.UUID("12151fd2-7586-11e9-8f9e-2a86e4085a59"))
            update.add_column("fx", FixedType(2), default_value=b"\x01\x02")
        table = self.py.load_table("db.defaults")
        arrow_schema = table.schema().as_arrow()
        row = dict(zip(arrow_schema.names, (3, False, 0, 0, 0.0, Decimal("0.00"), "", None,
                                            None, None, None)))
        table.append(pa.Table.from_pylist([row], schema=arrow_schema))

    def pyiceberg_name_mapping(self):
        """A Parquet file without field ids, added with add_files: read through the table's
        name mapping (schema.name-mapping.default)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        data = pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                         "name": ["Alice", "Bob", None],
                         "scores": pa.array([[85, 90], [], None], pa.list_(pa.int32())),
                         "info": pa.array([{"email": "a@x", "ok": True}, None,
                                           {"email": None, "ok": False}],
                                          pa.struct([("email", pa.string()),
                                                     ("ok", pa.bool_())]))})
        table = self.py.create_table("db.name_mapping", schema=data.schema,
                                     properties={"format-version": "2"})
        self.tables.append(("pyiceberg", "name_mapping"))
        folder = os.path.join(self.py_warehouse, "added")
        os.makedirs(folder)
        path = os.path.join(folder, "no_field_ids.parquet")
        pq.write_table(data, path)
        table.add_files([path])
        table = self.py.load_table("db.name_mapping")
        check("the name mapping property is set",
              "schema.name-mapping.default" in table.properties, True)

    # -----------------------------------------------------------------------------------
    # expected.json

    def metadata_file(self, engine, name):
        if engine == "spark":
            folder = os.path.join(self.spark_warehouse, "db", name, "metadata")
            with open(os.path.join(folder, "version-hint.text")) as f:
                version = f.read().strip()
            plain = os.path.join(folder, f"v{version}.metadata.json")
            return plain if os.path.exists(plain) else os.path.join(
                folder, f"v{version}.gz.metadata.json")
        location = self.py.load_table(f"db.{name}").metadata_location
        return location[len("file://"):] if location.startswith("file://") else location

    def live_rows(self, engine, name, snapshot_id):
        if engine == "pyiceberg" and name in PYICEBERG_READS:
            return len(self.py.load_table(f"db.{name}").scan(snapshot_id=snapshot_id).to_arrow())
        catalog = SPARK if engine == "spark" else PY
        return self.spark.rows(
            f"SELECT count(*) FROM {catalog}.db.{name} VERSION AS OF {snapshot_id}")[0][0]

    def current_rows(self, engine, name, path):
        """The reference's rows of the table's current snapshot, canonical (lib/values.py)
        and sorted."""
        from pyiceberg.table import StaticTable

        schema = StaticTable.from_metadata("file://" + path).schema().as_arrow()
        if engine == "pyiceberg" and name in PYICEBERG_READS:
            rows = arrow_rows(self.py.load_table(f"db.{name}").scan().to_arrow())
        else:
            catalog = SPARK if engine == "spark" else PY
            rows = self.spark.rows(f"SELECT * FROM {catalog}.db.{name}")
        return json.loads(json.dumps(canon_rows(rows, schema)))

    def expected(self):
        entries = []
        for engine, name in self.tables:
            path = self.metadata_file(engine, name)
            with (gzip.open if path.endswith(".gz.metadata.json") else open)(path, "rt") as f:
                metadata = json.load(f)
            snapshots = []
            for s in metadata.get("snapshots", []):
                summary = s.get("summary", {})
                total = summary.get("total-records")
                snapshots.append({
                    "snapshot_id": s["snapshot-id"],
                    "sequence_number": s.get("sequence-number", 0),
                    "operation": summary.get("operation"),
                    "summary_total_records": int(total) if total is not None else None,
                    "expected_live_rows": self.live_rows(engine, name, s["snapshot-id"]),
                })
            entries.append({
                "group": engine,
                "table": name,
                "metadata": os.path.relpath(path, self.out),
                "format_version": metadata["format-version"],
                "current_snapshot_id": metadata.get("current-snapshot-id"),
                "snapshots": snapshots,
                "rows": self.current_rows(engine, name, path),
            })
        with open(os.path.join(self.out, "expected.json"), "w") as f:
            json.dump(entries, f, indent=1)
        return f"{len(entries)} tables, {sum(len(e['snapshots']) for e in entries)} snapshots"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: .deps/py/bin/python test/interop/reference/make_tables.py OUT_DIR")
    out = os.path.abspath(sys.argv[1])
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    report = Report("make_tables")
    with TempDir("make-tables") as tmp:
        tables = Tables(out, tmp)
        try:
            for step in (tables.format_v1, tables.plain, tables.merge_on_read,
                         tables.copy_on_write,
                         tables.equality_deletes, tables.evolution, tables.transforms,
                         tables.types, tables.sorted_table, tables.metadata_and_statistics,
                         tables.maintenance, tables.history,
                         tables.pyiceberg_writes, tables.pyiceberg_avro_codecs,
                         tables.pyiceberg_types, tables.pyiceberg_names_and_defaults,
                         tables.pyiceberg_name_mapping, tables.expected):
                report.step(step.__name__, step)
        finally:
            tables.spark.stop()
    status = report.finish()
    if status != 0:
        # A half-written set must not pass for the reference tables.
        shutil.rmtree(out, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
