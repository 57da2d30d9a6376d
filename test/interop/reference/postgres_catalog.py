"""One PostgreSQL server, three engines: Spark's JdbcCatalog, pyiceberg's SqlCatalog and floe
share each catalog database; run as `.deps/py/bin/python
test/interop/reference/postgres_catalog.py PATH_TO_FLOE` from the repository root."""

# The server is the driver's own (lib/postgres.py: 127.0.0.1, a free port, stopped and
# removed at the end). The steps of lib/three_engines.py run on four databases, one per
# catalog: v0 and v1 made by Spark's JdbcCatalog (jdbc:postgresql://..., schema versions V0
# and V1), py by pyiceberg (postgresql+psycopg2://...) and fl by floe. floe reaches them
# through each URI form it takes: v0 and fl with libpq's postgresql:// and the password from
# PGPASSWORD, v1 with the password in the URI, py with pyiceberg's own SQLAlchemy URI, and
# catalog `java` (the v1 database again, under that catalog name) with the JDBC URI.
# Then floe's commits race Spark's and pyiceberg's on one table.

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import postgres  # noqa: E402
from peers import (Floe, Report, Spark, TempDir, check, floe_from_args,  # noqa: E402
                   jdbc_postgres_catalog, pyiceberg_append_racing, sql_postgres_catalog)
from three_engines import Engines, run  # noqa: E402

DATABASES = ("v0", "v1", "py", "fl")


class World(Engines):
    """The engines over the four databases of one server."""

    def __init__(self, floe_binary, tmp, pg):
        self.pg = pg
        self.warehouses = {}
        for name in DATABASES:
            pg.create_database(name)
            self.warehouses[name] = os.path.join(tmp, f"warehouse-{name}")
            os.makedirs(self.warehouses[name])
        # floe takes the password of the libpq URIs without one from the environment.
        os.environ["PGPASSWORD"] = postgres.PASSWORD
        uris = {"v0": pg.uri("v0", password=False), "v1": pg.uri("v1"),
                "py": pg.sqlalchemy_uri("py"), "fl": pg.uri("fl", password=False)}
        catalogs = {name: {"type": "sql", "uri": uris[name], "warehouse": self.warehouses[name]}
                    for name in DATABASES}
        catalogs["java"] = {"uri": pg.jdbc_uri("v1", credentials=True),
                            "warehouse": self.warehouses["v1"]}
        self.floe = Floe(floe_binary, tmp, catalogs)
        self.spark = Spark(tmp, {
            "v0": jdbc_postgres_catalog(pg, "v0", self.warehouses["v0"]),
            "v1": jdbc_postgres_catalog(pg, "v1", self.warehouses["v1"], schema_version="V1"),
            "py": jdbc_postgres_catalog(pg, "py", self.warehouses["py"]),
            "fl": jdbc_postgres_catalog(pg, "fl", self.warehouses["fl"]),
        })
        self.pyiceberg = {}

    def py(self, catalog):
        if catalog not in self.pyiceberg:
            self.pyiceberg[catalog] = sql_postgres_catalog(catalog, self.pg, catalog,
                                                           self.warehouses[catalog])
        return self.pyiceberg[catalog]

    def schema(self, catalog):
        return "; ".join(f"{t}({', '.join(self.pg.columns(catalog, t))})"
                         for t in ("iceberg_namespace_properties", "iceberg_tables"))

    def prepare_floe(self, catalog):
        pass  # the database exists; floe makes the catalog tables in it

    def insert_null_property(self, catalog, namespace, key):
        self.pg.sql(catalog, "INSERT INTO iceberg_namespace_properties VALUES (%s, %s, %s, NULL)",
                    (catalog, namespace, key))


def run_more(world, report):
    # The JDBC URI form reaches the same rows: catalog `java` is database v1 under another
    # catalog name, so it starts empty, and what it writes stays its own.
    def jdbc_form():
        check("namespaces of catalog java", world.namespaces("floe", "java"), [])
        world.floe.ok("java", "CREATE SCHEMA j", "CREATE TABLE j.t (id bigint)",
                      "INSERT INTO j.t VALUES (1), (2)")
        check("rows through the JDBC URI", world.floe_json("java", "SELECT id FROM j.t ORDER BY id"),
              [{"id": 1}, {"id": 2}])
        check("catalog names in database v1", sorted(r[0] for r in world.pg.sql(
            "v1", "SELECT DISTINCT catalog_name FROM iceberg_tables")), ["java", "v1"])
    report.step("floe opens a catalog from a JDBC URI", jdbc_form)

    # floe, Spark and pyiceberg append to one table at once, five rounds (as
    # concurrent_commits.py does on SQLite): every append lands once, in one line of snapshots.
    rounds, rows = 5, 3
    base = {"spark": 100000, "floe": 200000, "pyiceberg": 300000}

    def ids(writer, n):
        return [base[writer] + n * rows + k for k in range(rows)]

    def race():
        import threading

        world.floe.ok("fl", "CREATE SCHEMA race",
                      """CREATE TABLE race.t (id bigint NOT NULL, writer text)
                         WITH (format_version = 2, "commit.retry.num-retries" = '50',
                               "commit.retry.min-wait-ms" = '5',
                               "commit.retry.max-wait-ms" = '200')""")
        errors = []
        barrier = threading.Barrier(3, timeout=300)

        def writer(engine):
            try:
                for n in range(rounds):
                    barrier.wait()
                    values = ", ".join(f"({i}, '{engine}')" for i in ids(engine, n))
                    if engine == "spark":
                        world.spark.sql(f"INSERT INTO fl.race.t VALUES {values}")
                    elif engine == "floe":
                        world.floe.ok("fl", f"INSERT INTO race.t VALUES {values}")
                    else:
                        pyiceberg_append_racing(world.py("fl"), "race.t", ids(engine, n), engine)
            except Exception as e:  # noqa: BLE001 - reported by the step
                errors.append(f"{engine}: {e}")
                barrier.abort()

        threads = [threading.Thread(target=writer, args=(e,))
                   for e in ("spark", "floe", "pyiceberg")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        check("writers' errors", errors, [])
        want = sorted((i, w) for w in base for n in range(rounds) for i in ids(w, n))
        check("Spark's rows", sorted(world.spark.rows("SELECT id, writer FROM fl.race.t")), want)
        check("floe's rows", sorted((r["id"], r["writer"]) for r in world.floe_json(
            "fl", "SELECT id, writer FROM race.t")), want)
        snaps = world.spark.rows("SELECT snapshot_id, parent_id FROM fl.race.t.snapshots")
        check("snapshots", len(snaps), 3 * rounds)
        by_id = dict(snaps)
        heads = set(by_id) - set(by_id.values())
        check("snapshots without a child (the current one)", len(heads), 1)
        chain, node = [], heads.pop()
        while node is not None:
            chain.append(node)
            node = by_id[node]
        check("length of the parent chain", len(chain), len(snaps))
        return f"{3 * rounds} appends, one chain"
    report.step("fl: floe, Spark and pyiceberg append at the same time", race)

    # What floe printed or stored never holds the password.
    def no_password():
        r = world.floe.run("v1", "SELECT * FROM no_such_schema.t")
        check("floe fails on a missing table", r.returncode != 0, True)
        check("the password in floe's error", postgres.PASSWORD in r.stderr, False)
        rows = world.pg.sql("v1", "SELECT metadata_location FROM iceberg_tables")
        check("the password in stored locations",
              any(postgres.PASSWORD in (r[0] or "") for r in rows), False)
    report.step("no password in floe's errors or the catalog", no_password)


def main():
    script = "test/interop/reference/postgres_catalog.py"
    floe_binary = floe_from_args(script)
    report = Report("postgres_catalog")
    with TempDir("postgres_catalog") as tmp, postgres.PostgresServer() as pg:
        world = World(floe_binary, tmp, pg)
        try:
            run(world, report)
            run_more(world, report)
        finally:
            world.spark.stop()
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
