"""floe writes, the reference reads: tables floe writes are read value by value through
Spark (Iceberg's Java library) and pyiceberg; run as `.deps/py/bin/python
test/interop/reference/floe_writes.py PATH_TO_FLOE` from the repository root."""

# floe creates its tables in a SQLite catalog that Spark (JdbcCatalog) and pyiceberg
# (SqlCatalog) open under the same catalog name:
#   - every Iceberg type (decimal up to 38 digits, uuid, fixed, binary, time, timestamp,
#     timestamptz, nested struct/list/map with NULLs at every level), written by CREATE TABLE
#     AS from a Parquet file pyarrow wrote, in format versions 1 and 2: Spark's and
#     pyiceberg's rows equal the file's;
#   - every partition transform (identity; bucket over int, long, string, decimal, date,
#     timestamp, uuid, binary; truncate over int, long, string, decimal, binary; year, month,
#     day, hour; void): Spark writes the same rows into a table of the same schema and spec,
#     and every row's partition tuple (Spark's _partition) in floe's table equals the one in
#     Spark's; the spec equals the one Spark makes from its own DDL;
#     pyiceberg's partition-pruned scans return the rows its filter selects; floe reads the
#     rows Spark wrote into every one of those tables, value by value.
# Every disagreement is a floe bug: the reference is the judge unless the spec says
# otherwise.

import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from peers import Floe, Spark, check, jdbc_catalog, run_driver, sql_catalog  # noqa: E402
from values import all_types_table, arrow_rows, canon_rows  # noqa: E402

CATALOG = "fl"


class World:
    def __init__(self, floe_binary, tmp):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.tmp = tmp
        self.db = os.path.join(tmp, "catalog.db")
        self.warehouse = os.path.join(tmp, "warehouse")
        os.makedirs(self.warehouse)
        self.source = all_types_table()
        self.source_file = os.path.join(tmp, "all_types.parquet")
        pq.write_table(self.source, self.source_file)
        # Spark cannot load a table with a time column at all ("Spark does not support time
        # fields"): the tables Spark reads hold every other column, and time is read back
        # through pyiceberg alone (db.times_v*).
        self.columns = [n for n in self.source.schema.names if n != "tm"]
        self.want = canon_rows(arrow_rows(self.source, self.columns), self.source.schema,
                               self.columns)
        # pyiceberg reads a NULL list<struct<...>> as an empty list, from any writer's file
        # (apache/iceberg-python#3833); the data file floe writes holds the NULL (pyarrow
        # reads it back as None, and Spark does), so that one value is expected as [] here.
        types = [self.source.schema.field(n).type for n in self.columns]
        lists_of_structs = {i for i, t in enumerate(types)
                            if pa.types.is_list(t) and pa.types.is_struct(t.value_type)}
        self.want_pyiceberg = [
            tuple([] if (i in lists_of_structs and v is None) else v for i, v in enumerate(r))
            for r in self.want]
        self.floe = Floe(floe_binary, tmp, {
            CATALOG: {"type": "sql", "uri": f"sqlite:///{self.db}", "warehouse": self.warehouse}})
        # floe makes the catalog tables first (V1), before Spark opens the database; floe opens
        # a configured SQLite catalog only when its file exists, so an empty one is made.
        open(self.db, "a").close()
        self.floe.ok(CATALOG, "CREATE SCHEMA db")
        self.spark = Spark(tmp, {CATALOG: jdbc_catalog(self.db, self.warehouse)})
        self.py = sql_catalog(CATALOG, self.db, self.warehouse)

    def floe_ctas(self, table, options, query=None):
        query = query or (f"SELECT {', '.join(self.columns)} "
                          f"FROM read_parquet('{self.source_file}')")
        self.floe.ok(CATALOG, f"CREATE TABLE {table} WITH ({options}) AS {query}")

    def spark_rows(self, table, columns=None):
        names = columns or self.columns
        rows = self.spark.rows(f"SELECT {', '.join(names)} FROM {CATALOG}.{table}")
        return canon_rows(rows, self.source.schema, names)

    def floe_rows(self, table, columns=None):
        names = columns or self.columns
        out = self.floe.ok(CATALOG, f"SELECT {', '.join(names)} FROM {table}", fmt="jsonl")
        # floe prints a float -0.0 as -0, which JSON reads as an integer unless told.
        rows = [json.loads(line, parse_float=Decimal,
                           parse_int=lambda s: -0.0 if s == "-0" else int(s))
                for line in out.splitlines() if line]
        return canon_rows([tuple(r[n] for n in names) for r in rows], self.source.schema, names)

    def pyiceberg_rows(self, table, columns=None, row_filter=None):
        names = columns or self.columns
        t = self.py.load_table(table)
        scan = t.scan(selected_fields=tuple(names)) if row_filter is None else t.scan(
            row_filter=row_filter, selected_fields=tuple(names))
        return canon_rows(arrow_rows(scan.to_arrow(), names), self.source.schema, names)


# (name, floe partitioning, Spark PARTITIONED BY, a pyiceberg filter with the rows it keeps)
TRANSFORMS = [
    ("identity_int", "i", "i", ("i = 1", [1])),
    ("identity_str", "s", "s", ("s = ''", [3])),
    ("identity_date", "dt", "dt", ("dt = '2024-02-29'", [1])),
    ("identity_bool", "b", "b", ("b = true", [1, 4])),
    ("identity_dec", "dec9", "dec9", None),
    ("identity_ts", "ts", "ts", None),
    ("identity_uuid", "u", "u", None),
    ("bucket_int", "bucket(4, i)", "bucket(4, i)", ("i = -2147483648", [3])),
    ("bucket_long", "bucket(16, l)", "bucket(16, l)", ("l = 0", [4])),
    ("bucket_str", "bucket(8, s)", "bucket(8, s)", ("s = 'héllo wörld'", [1])),
    ("bucket_dec", "bucket(5, dec38)", "bucket(5, dec38)", None),
    ("bucket_date", "bucket(3, dt)", "bucket(3, dt)", None),
    ("bucket_ts", "bucket(7, ts)", "bucket(7, ts)", None),
    ("bucket_tstz", "bucket(7, tstz)", "bucket(7, tstz)", None),
    ("bucket_uuid", "bucket(6, u)", "bucket(6, u)", None),
    ("bucket_bin", "bucket(9, bin)", "bucket(9, bin)", None),
    ("truncate_int", "truncate(10, i)", "truncate(10, i)", None),
    ("truncate_long", "truncate(1000, l)", "truncate(1000, l)", None),
    ("truncate_str", "truncate(2, s)", "truncate(2, s)", ("s = 'héllo wörld'", [1])),
    ("truncate_dec", "truncate(100, dec9)", "truncate(100, dec9)", None),
    ("truncate_bin", "truncate(1, bin)", "truncate(1, bin)", None),
    ("year", "year(ts)", "years(ts)", ("ts >= '2024-01-01T00:00:00'", [1, 4])),
    ("month", "month(tstz)", "months(tstz)", None),
    ("day", "day(dt)", "days(dt)", ("dt < '2000-01-01'", [3, 4])),
    ("hour", "hour(ts)", "hours(ts)", None),
    ("multi", "day(tstz), bucket(4, id), truncate(1, s)", "days(tstz), bucket(4, id), truncate(1, s)",
     None),
]


def run(world, report):
    # Every type, format versions 1 and 2.
    for version in (1, 2):
        table = f"db.types_v{version}"
        report.step(f"floe writes every type in format version {version}", world.floe_ctas, table,
                    f"format_version = {version}")
        report.step(f"Spark reads floe's v{version} table value by value",
                    lambda t=table: check("rows", world.spark_rows(t), world.want))
        report.step(f"pyiceberg reads floe's v{version} table value by value",
                    lambda t=table: check("rows", world.pyiceberg_rows(t), world.want_pyiceberg))

        def times(version=version):
            t = f"db.times_v{version}"
            world.floe_ctas(t, f"format_version = {version}",
                            f"SELECT id, tm FROM read_parquet('{world.source_file}')")
            want = canon_rows(arrow_rows(world.source, ["id", "tm"]), world.source.schema,
                              ["id", "tm"])
            check("rows", world.pyiceberg_rows(t, ["id", "tm"]), want)
        report.step(f"pyiceberg reads floe's v{version} time column", times)
        report.step(f"Spark sees format version {version}",
                    lambda t=table, v=version: check(
                        "format-version",
                        world.spark.rows(f"SHOW TBLPROPERTIES {CATALOG}.{t} ('format-version')"),
                        [("format-version", str(v))]))

    # Every transform: the partition tuple of each row equals Spark's for the same rows.
    for name, floe_spec, spark_spec, pruned in TRANSFORMS:
        table = f"db.tr_{name}"
        ref = f"db.ref_{name}"

        exact = f"db.exact_{name}"

        def write(table=table, ref=ref, exact=exact, floe_spec=floe_spec, spark_spec=spark_spec):
            world.floe_ctas(table, f"partitioning = '{floe_spec}'")
            # Spark's own table from its DDL (its spec is compared below). Spark has no uuid
            # type (it reads uuids as strings), so its CTAS would make u a string column:
            # the rows' partition tuples are compared in a table with floe's schema and spec,
            # made by pyiceberg and written by Spark.
            world.spark.sql(f"CREATE TABLE {CATALOG}.{ref} USING iceberg "
                            f"PARTITIONED BY ({spark_spec}) AS "
                            f"SELECT * FROM {CATALOG}.db.types_v2")
            mine = world.py.load_table(table)
            world.py.create_table(exact, schema=mine.schema(), partition_spec=mine.spec())
            world.spark.sql(f"INSERT INTO {CATALOG}.{exact} SELECT * FROM {CATALOG}.{table}")
        report.step(f"{name}: floe and Spark write {floe_spec}", write)

        def same_partitions(table=table, exact=exact):
            mine = world.spark.rows(f"SELECT id, _partition FROM {CATALOG}.{table} ORDER BY id")
            theirs = world.spark.rows(f"SELECT id, _partition FROM {CATALOG}.{exact} ORDER BY id")
            check("each row's partition tuple (floe's table, Spark's)", mine, theirs)
            return f"{len({r[1] for r in mine})} partitions"
        report.step(f"{name}: each row's partition tuple equals Spark's", same_partitions)

        def same_spec(table=table, ref=ref):
            def spec(t):
                return [(f.name, str(f.transform)) for f in world.py.load_table(t).spec().fields]
            check("partition spec (floe's, Spark's)", spec(table), spec(ref))
        report.step(f"{name}: the partition spec equals Spark's", same_spec)

        report.step(f"{name}: Spark reads the rows",
                    lambda t=table: check("rows", world.spark_rows(t), world.want))
        report.step(f"{name}: floe reads the rows Spark wrote",
                    lambda t=exact: check("rows", world.floe_rows(t), world.want))
        if pruned:
            expr, ids = pruned

            def prune(table=table, expr=expr, ids=ids):
                got = [r[0] for r in world.pyiceberg_rows(table, ["id"], expr)]
                check(f"ids of pyiceberg's scan of {expr}", sorted(got), sorted(ids))
            report.step(f"{name}: pyiceberg's pruned scan of {expr}", prune)

    # void: the partition value is always NULL.
    def void():
        world.floe_ctas("db.tr_void", "partitioning = 'void(s)'")
        rows = world.spark.rows(f"SELECT DISTINCT _partition FROM {CATALOG}.db.tr_void")
        check("partition tuples of void(s)", [tuple(r[0]) for r in rows], [(None,)])
        check("rows", world.spark_rows("db.tr_void"), world.want)
        fields = [(f.name, str(f.transform))
                  for f in world.py.load_table("db.tr_void").spec().fields]
        check("spec", fields, [("s_null", "void")])
    report.step("void: Spark reads NULL partition values", void)


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/floe_writes.py", "floe_writes", World, run))
