"""One SQLite catalog, three engines: Spark's JdbcCatalog, pyiceberg's SqlCatalog and floe
share each catalog file; run as `.deps/py/bin/python
test/interop/reference/catalog_three_engines.py PATH_TO_FLOE` from the repository root."""

# The steps (lib/three_engines.py) on four SQLite files, one per catalog: v0 and v1 made by
# Spark's JdbcCatalog (schema versions V0 and V1), py by pyiceberg and fl by floe. The same
# steps run on PostgreSQL in postgres_catalog.py.

import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from peers import Floe, Spark, jdbc_catalog, run_driver, sql_catalog  # noqa: E402
from three_engines import Engines, run  # noqa: E402


class World(Engines):
    """The engines over the four catalog files of one temporary directory."""

    def __init__(self, floe_binary, tmp):
        self.tmp = tmp
        self.files = {name: os.path.join(tmp, f"{name}.db") for name in ("v0", "v1", "py", "fl")}
        self.warehouses = {}
        for name in self.files:
            self.warehouses[name] = os.path.join(tmp, f"warehouse-{name}")
            os.makedirs(self.warehouses[name])
        self.floe = Floe(floe_binary, tmp, {
            name: {"type": "sql", "uri": f"sqlite:///{path}", "warehouse": self.warehouses[name]}
            for name, path in self.files.items()
        })
        self.spark = Spark(tmp, {
            "v0": jdbc_catalog(self.files["v0"], self.warehouses["v0"]),
            "v1": jdbc_catalog(self.files["v1"], self.warehouses["v1"], schema_version="V1"),
            "py": jdbc_catalog(self.files["py"], self.warehouses["py"]),
            "fl": jdbc_catalog(self.files["fl"], self.warehouses["fl"]),
        })
        self.pyiceberg = {}

    def py(self, catalog):
        if catalog not in self.pyiceberg:
            self.pyiceberg[catalog] = sql_catalog(catalog, self.files[catalog],
                                                  self.warehouses[catalog])
        return self.pyiceberg[catalog]

    def schema(self, catalog):
        with sqlite3.connect(self.files[catalog]) as db:
            return "; ".join(sorted(r[0] for r in db.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'table'")))

    def prepare_floe(self, catalog):
        # floe opens a configured SQLite catalog only when its database file exists (a
        # mistyped path is an error, not a new catalog): an empty file is an empty one.
        open(self.files[catalog], "a").close()

    def insert_null_property(self, catalog, namespace, key):
        with sqlite3.connect(self.files[catalog]) as db:
            db.execute("INSERT INTO iceberg_namespace_properties VALUES (?, ?, ?, NULL)",
                       (catalog, namespace, key))


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/catalog_three_engines.py", "catalog_three_engines",
                        World, run))
