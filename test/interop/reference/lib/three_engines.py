"""Three engines on shared SQL catalogs: Spark's JdbcCatalog, pyiceberg's SqlCatalog and floe
each create, list, read and append to tables in catalogs that each engine made first, on one
database or another (catalog_three_engines.py: SQLite files; postgres_catalog.py:
PostgreSQL databases).

Four catalogs, each made by a different engine, so that every schema version of the catalog
tables is covered:
  v0  made by Spark's JdbcCatalog with its defaults (the V0 schema: no iceberg_type column)
  v1  made by Spark's JdbcCatalog with jdbc.schema-version=V1 (iceberg_type, and a view)
  py  made by pyiceberg's SqlCatalog (V1, NOT NULL property values)
  fl  made by floe
In each catalog every engine creates a namespace and a partitioned table and writes rows
(the catalog name in the database is the engine's catalog name, the same for all three);
then every engine lists every namespace and table and reads every table, and each appends to
a table another engine made; the rows are compared exactly. floe never changes the catalog
tables' schema (a V0 catalog stays V0, as pyiceberg leaves it), never lists a view as a
table, and reads namespace properties whose value is NULL (which the JDBC catalog allows).

A driver's world provides `spark`, `floe` (peers.Floe) and:
  py(catalog)             pyiceberg's SqlCatalog of a catalog
  schema(catalog)         the catalog tables' layout as text (it names iceberg_type in V1)
  prepare_floe(catalog)   what floe needs before it opens a catalog no engine made yet
  insert_null_property(catalog, namespace, key)
                          a namespace property row with a NULL value, written with SQL
"""

import datetime
import json
from decimal import Decimal

from peers import check, expect
from values import sql_values

ENGINES = ("spark", "pyiceberg", "floe")
# The engine that makes each catalog first.
CREATOR = {"v0": "spark", "v1": "spark", "py": "pyiceberg", "fl": "floe"}
BASE = {"spark": 100, "pyiceberg": 200, "floe": 300}
D = datetime.date


def rows_of(engine, base):
    """The rows `engine` writes into its own table: (id, name, amount, day)."""
    return [
        (base + 1, f"{engine}-a", Decimal("1.50"), D(2024, 1, 1)),
        (base + 2, None, Decimal("-2.25"), D(2024, 1, 2)),
        (base + 3, f"{engine}-c", None, None),
    ]


def canon(value):
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, float):
        return Decimal(repr(value))
    return value


def canon_rows(rows):
    return sorted(tuple(canon(v) for v in r) for r in rows)


def py_append(table, rows):
    """Appends rows (tuples in the table's column order) through pyiceberg."""
    import pyarrow as pa

    arrow_schema = table.schema().as_arrow()
    columns = list(zip(*rows))
    table.append(pa.Table.from_arrays(
        [pa.array(c, type=f.type) for c, f in zip(columns, arrow_schema)], schema=arrow_schema))


class Engines:
    """One engine's actions on a catalog; a driver's world derives from it."""

    def create(self, engine, catalog):
        ns, table = f"ns_{engine}", f"ns_{engine}.t_{engine}"
        rows = rows_of(engine, BASE[engine])
        if engine == "spark":
            self.spark.sql(f"CREATE NAMESPACE {catalog}.{ns}")
            self.spark.sql(f"""CREATE TABLE {catalog}.{table}
                               (id BIGINT NOT NULL, name STRING, amount DECIMAL(10, 2), day DATE)
                               USING iceberg PARTITIONED BY (days(day))""")
            self.spark.sql(f"INSERT INTO {catalog}.{table} VALUES {sql_values(rows)}")
        elif engine == "pyiceberg":
            from pyiceberg.partitioning import PartitionField, PartitionSpec
            from pyiceberg.schema import Schema
            from pyiceberg.transforms import DayTransform
            from pyiceberg.types import (DateType, DecimalType, LongType, NestedField,
                                         StringType)

            cat = self.py(catalog)
            cat.create_namespace(ns)
            schema = Schema(
                NestedField(1, "id", LongType(), required=True),
                NestedField(2, "name", StringType(), required=False),
                NestedField(3, "amount", DecimalType(10, 2), required=False),
                NestedField(4, "day", DateType(), required=False))
            spec = PartitionSpec(PartitionField(source_id=4, field_id=1000,
                                                transform=DayTransform(), name="day_day"))
            py_append(cat.create_table(table, schema=schema, partition_spec=spec), rows)
        else:
            self.floe.ok(
                catalog, f"CREATE SCHEMA {ns}",
                f"""CREATE TABLE {table} (id bigint NOT NULL, name text, amount numeric(10, 2),
                                          day date) WITH (partitioning = 'day(day)')""",
                f"INSERT INTO {table} VALUES {sql_values(rows)}")

    def namespaces(self, engine, catalog):
        if engine == "spark":
            return sorted(r[0] for r in self.spark.rows(f"SHOW NAMESPACES IN {catalog}"))
        if engine == "pyiceberg":
            return sorted(".".join(n) for n in self.py(catalog).list_namespaces())
        return sorted(r["schema_name"] for r in self.floe_json(catalog, "SHOW SCHEMAS"))

    def tables(self, engine, catalog, ns):
        if engine == "spark":
            return sorted(r[1] for r in self.spark.rows(f"SHOW TABLES IN {catalog}.{ns}"))
        if engine == "pyiceberg":
            return sorted(t[-1] for t in self.py(catalog).list_tables(ns))
        return sorted(r["table_name"] for r in self.floe_json(catalog, f"SHOW TABLES FROM {ns}"))

    def read(self, engine, catalog, table):
        if engine == "spark":
            return canon_rows(self.spark.rows(
                f"SELECT id, name, amount, day FROM {catalog}.{table}"))
        if engine == "pyiceberg":
            t = self.py(catalog).load_table(table)
            arrow = t.scan(selected_fields=("id", "name", "amount", "day")).to_arrow()
            return canon_rows((r["id"], r["name"], r["amount"], r["day"])
                              for r in arrow.to_pylist())
        return canon_rows((r["id"], r["name"], r["amount"], r["day"]) for r in self.floe_json(
            catalog, f"SELECT id, name, amount, day FROM {table}"))

    def append(self, engine, catalog, table, rows):
        if engine == "spark":
            self.spark.sql(f"INSERT INTO {catalog}.{table} VALUES {sql_values(rows)}")
        elif engine == "pyiceberg":
            py_append(self.py(catalog).load_table(table), rows)
        else:
            self.floe.ok(catalog, f"INSERT INTO {table} VALUES {sql_values(rows)}")

    def floe_json(self, catalog, query):
        out = self.floe.ok(catalog, query, fmt="jsonl")
        return [json.loads(line, parse_float=Decimal) for line in out.splitlines() if line]


def run(world, report):
    """Every step, on the four catalogs of `world`."""
    expected = {}  # (catalog, table) -> rows

    def make_catalog(catalog):
        creator = CREATOR[catalog]
        if creator == "pyiceberg":
            world.py(catalog)  # pyiceberg creates the catalog tables when it opens a catalog
        elif creator == "floe":
            world.prepare_floe(catalog)
            world.floe.ok(catalog, "SHOW SCHEMAS")
        else:
            world.spark.rows(f"SHOW NAMESPACES IN {catalog}")
        return world.schema(catalog)

    schemas = {}
    for catalog in CREATOR:
        schemas[catalog] = report.step(f"{CREATOR[catalog]} makes catalog {catalog}",
                                       make_catalog, catalog)

    def schema_version(catalog, want_v1):
        text = schemas[catalog] or ""
        check(f"the catalog tables of {catalog} have iceberg_type", "iceberg_type" in text,
              want_v1)

    report.step("Java's default catalog tables are V0 (no iceberg_type)", schema_version, "v0",
                False)
    report.step("jdbc.schema-version=V1 adds iceberg_type", schema_version, "v1", True)
    report.step("pyiceberg makes V1 catalog tables", schema_version, "py", True)
    report.step("floe makes V1 catalog tables", schema_version, "fl", True)

    for catalog in CREATOR:
        order = [CREATOR[catalog]] + [e for e in ENGINES if e != CREATOR[catalog]]
        for engine in order:
            def create(engine=engine, catalog=catalog):
                world.create(engine, catalog)
                expected[(catalog, f"ns_{engine}.t_{engine}")] = canon_rows(
                    rows_of(engine, BASE[engine]))
            report.step(f"{catalog}: {engine} creates a namespace and a table", create)

    for catalog in CREATOR:
        for engine in ENGINES:
            report.step(f"{catalog}: {engine} lists every namespace",
                        lambda e=engine, c=catalog: check(
                            "namespaces", world.namespaces(e, c),
                            sorted(f"ns_{x}" for x in ENGINES)))
            for maker in ENGINES:
                report.step(f"{catalog}: {engine} lists {maker}'s table",
                            lambda e=engine, c=catalog, m=maker: check(
                                f"tables of ns_{m}", world.tables(e, c, f"ns_{m}"), [f"t_{m}"]))
                table = f"ns_{maker}.t_{maker}"
                report.step(f"{catalog}: {engine} reads {maker}'s table",
                            lambda e=engine, c=catalog, t=table: check(
                                f"rows of {t}", world.read(e, c, t), expected[(c, t)]))

    # Each engine appends to the next engine's table; then everyone reads everything.
    for catalog in CREATOR:
        for i, engine in enumerate(ENGINES):
            target = ENGINES[(i + 1) % len(ENGINES)]
            table = f"ns_{target}.t_{target}"
            extra = [(BASE[engine] * 10 + 7, f"{engine}-to-{target}", Decimal("7.77"),
                      D(2025, 7, 7))]

            def append(e=engine, c=catalog, t=table, rows=extra):
                world.append(e, c, t, rows)
                expected[(c, t)] = sorted(expected[(c, t)] + canon_rows(rows))
            report.step(f"{catalog}: {engine} appends to {target}'s table", append)
        for engine in ENGINES:
            for maker in ENGINES:
                table = f"ns_{maker}.t_{maker}"
                report.step(f"{catalog}: {engine} reads {maker}'s table after the appends",
                            lambda e=engine, c=catalog, t=table: check(
                                f"rows of {t}", world.read(e, c, t), expected[(c, t)]))

    # floe leaves the catalog tables' schema as it found it.
    for catalog in CREATOR:
        report.step(f"{catalog}: the catalog tables' schema is unchanged",
                    lambda c=catalog: check("catalog schema", world.schema(c), schemas[c]))

    # A view in a V1 catalog is not a table to floe, and floe leaves it working.
    def view():
        world.spark.sql("CREATE VIEW v1.ns_spark.big AS "
                        "SELECT id FROM v1.ns_spark.t_spark WHERE id > 101")
        check("floe's tables in ns_spark", world.tables("floe", "v1", "ns_spark"), ["t_spark"])
        r = world.floe.run("v1", "SELECT * FROM ns_spark.big")
        expect(r.returncode != 0 and "big" in r.stderr,
               f"floe reading a view as a table: exit {r.returncode}, {r.stderr.strip()}")
        world.floe.ok("v1", "INSERT INTO ns_spark.t_spark VALUES (104, 'floe', 4.00, DATE "
                      "'2024-01-04')")
        check("Spark reads the view after floe's write",
              sorted(r[0] for r in world.spark.rows("SELECT id FROM v1.ns_spark.big")),
              [102, 103, 104, 3007])
        return "not listed, not read as a table, still read by Spark"
    report.step("v1: a Spark view is not a floe table", view)

    # Namespace properties whose value is NULL (the JDBC catalog allows it).
    def null_property():
        world.insert_null_property("v0", "ns_spark", "comment")
        check("floe's namespaces with a NULL property", world.namespaces("floe", "v0"),
              sorted(f"ns_{x}" for x in ENGINES))
        check("floe reads a table in that namespace", world.read("floe", "v0", "ns_spark.t_spark"),
              expected[("v0", "ns_spark.t_spark")])
        world.floe.ok("v0", "CREATE TABLE ns_spark.more (id bigint)",
                      "INSERT INTO ns_spark.more VALUES (1)")
        check("Spark lists floe's new table",
              world.tables("spark", "v0", "ns_spark"), ["more", "t_spark"])
    report.step("v0: a namespace property with a NULL value", null_property)
