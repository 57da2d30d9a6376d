"""floe changes a table over time, the reference reads it: schema evolution, partition and
sort-order evolution, CALL overwrite and replace_partitions and snapshot expiry done by
floe, read by Spark and pyiceberg, and floe's metadata tables against Spark's; run as
`.deps/py/bin/python test/interop/reference/floe_history.py PATH_TO_FLOE` from the
repository root."""

# After every change floe makes, Spark and pyiceberg read the same rows floe reads, and
# Spark's metadata tables (snapshots, files with readable_metrics, partitions, manifests,
# history, refs) hold the same values as floe's `$` tables: same files, counts, bounds,
# summaries. Reordering columns is not covered: floe's SQL (as PostgreSQL's) has no way to
# move a column.

import json
import os
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from metadata import canon, same_metadata  # noqa: E402
from peers import Floe, Spark, check, jdbc_catalog, run_driver, sql_catalog  # noqa: E402

CATALOG = "fh"
class World:
    def __init__(self, floe_binary, tmp):
        self.catalog = CATALOG
        self.db = os.path.join(tmp, "catalog.db")
        self.warehouse = os.path.join(tmp, "warehouse")
        os.makedirs(self.warehouse)
        open(self.db, "a").close()
        self.floe = Floe(floe_binary, tmp, {
            CATALOG: {"type": "sql", "uri": f"sqlite:///{self.db}", "warehouse": self.warehouse}})
        self.floe.ok(CATALOG, "CREATE SCHEMA db")
        self.spark = Spark(tmp, {CATALOG: jdbc_catalog(self.db, self.warehouse)})
        self.py = sql_catalog(CATALOG, self.db, self.warehouse)

    def floe_json(self, query):
        out = self.floe.ok(CATALOG, query, fmt="jsonl")
        return [json.loads(line, parse_float=Decimal) for line in out.splitlines() if line]

    def same_rows(self, table, columns):
        """floe's, Spark's and pyiceberg's rows of `columns` are the same."""
        mine = sorted((tuple(canon(v) for v in r.values())
                       for r in self.floe_json(f"SELECT {columns} FROM {table}")), key=repr)
        theirs = sorted((tuple(canon(v) for v in r)
                         for r in self.spark.rows(f"SELECT {columns} FROM {CATALOG}.{table}")),
                        key=repr)
        check(f"Spark's rows of {table} (floe's {len(mine)})", theirs, mine)
        names = [c.strip() for c in columns.split(",")]
        arrow = self.py.load_table(table).scan(selected_fields=tuple(names)).to_arrow()
        py_rows = sorted((tuple(canon(r[n]) for n in names) for r in arrow.to_pylist()), key=repr)
        check(f"pyiceberg's rows of {table}", py_rows, mine)
        return f"{len(mine)} rows"


def run(world, report):
    t = "db.evo"
    columns = ["id, name, f, price, gone, tmp"]

    def step(name, statements, cols):
        def do():
            world.floe.ok(CATALOG, *statements)
            columns[0] = cols
            return world.same_rows(t, cols)
        report.step(name, do)
        report.step(f"{name}: the metadata tables", same_metadata, world, t)

    step("floe creates a partitioned table and writes",
         [f"""CREATE TABLE {t} (id int NOT NULL, name text, f real, price numeric(9, 2),
                                gone text, tmp text)
              WITH (format_version = 2, partitioning = 'bucket(2, id)')""",
          f"INSERT INTO {t} VALUES (1, 'one', 1.5, 1.25, 'x', 't1'), "
          "(2, NULL, NULL, NULL, NULL, NULL), (3, 'three', 'NaN', -3.5, 'z', 't3')"],
         "id, name, f, price, gone, tmp")
    step("floe adds a column",
         [f"ALTER TABLE {t} ADD COLUMN added bigint",
          f"INSERT INTO {t} VALUES (4, 'four', 4.5, 4.25, 'w', 't4', 44)"],
         "id, name, f, price, gone, tmp, added")
    step("floe drops, renames and promotes columns",
         [f"ALTER TABLE {t} DROP COLUMN gone", f"ALTER TABLE {t} RENAME COLUMN name TO label",
          f"ALTER TABLE {t} ALTER COLUMN id TYPE bigint",
          f"ALTER TABLE {t} ALTER COLUMN f TYPE double precision",
          f"ALTER TABLE {t} ALTER COLUMN price TYPE numeric(18, 2)",
          f"INSERT INTO {t} VALUES (5000000000, 'five', 5.25, 1234567890.12, 't5', 55)"],
         "id, label, f, price, tmp, added")
    step("floe drops a column and adds it again under its name",
         [f"ALTER TABLE {t} DROP COLUMN tmp", f"ALTER TABLE {t} ADD COLUMN tmp int",
          f"INSERT INTO {t} VALUES (6, 'six', 6.5, 6.66, 66, 6)"],
         "id, label, f, price, added, tmp")
    step("floe evolves the partition spec and the sort order",
         [f"ALTER TABLE {t} SET (partitioning = 'truncate(2, label)')",
          f"INSERT INTO {t} VALUES (7, 'seven', 7.5, 7.77, 77, 7)",
          f"ALTER TABLE {t} SET (sorted_by = 'id DESC', partitioning = 'bucket(3, id), label')",
          f"INSERT INTO {t} VALUES (9, 'nine', 9.5, 9.99, 99, 9), (8, 'eight', 8.5, 8.88, 88, 8)"],
         "id, label, f, price, added, tmp")

    def specs():
        spec_ids = sorted(r[0] for r in world.spark.rows(
            f"SELECT DISTINCT spec_id FROM {CATALOG}.{t}.files"))
        check("spec ids of the live files", spec_ids, [0, 1, 2])
        orders = world.spark.rows(f"SELECT DISTINCT sort_order_id FROM {CATALOG}.{t}.files "
                                  "WHERE spec_id = 2")
        check("sort order of the newest files", [r[0] for r in orders], [1])
        table = world.py.load_table(t)
        check("pyiceberg's current spec",
              [(f.name, str(f.transform)) for f in table.spec().fields],
              [("id_bucket_3", "bucket[3]"), ("label", "identity")])
        check("pyiceberg's sort order", [(f.source_id, str(f.direction)) for f in
                                         table.sort_order().fields],
              [(1, "DESC")])
    report.step("Spark and pyiceberg see the specs and the sort order", specs)

    step("floe's CALL replace_partitions",
         [f"CALL replace_partitions('{t}', 'SELECT 9, ''nine'', 0.5, 0.99, 0, 0')"],
         "id, label, f, price, added, tmp")
    step("floe's CALL overwrite",
         [f"CALL overwrite('{t}', 'SELECT id * 10, label, f, price, added, tmp FROM {t} "
          "WHERE id < 5')"],
         "id, label, f, price, added, tmp")

    def expire():
        newest = world.floe_json(f'SELECT max(committed_at) AS t FROM db."evo$snapshots"')[0]["t"]
        args = [world.floe.binary, "iceberg", "expire-snapshots", "--catalog", CATALOG,
                "--older-than", newest.replace("+00", ""), "--retain-last", "2", t]
        p = subprocess.run(args, capture_output=True, text=True,
                           env=dict(os.environ, FLOE_CONFIG=world.floe.config), timeout=300)
        check("expire-snapshots exit status", (p.returncode, p.stderr.strip()), (0, ""))
        return world.same_rows(t, columns[0])
    report.step("floe expires snapshots", expire)
    report.step("floe expires snapshots: the metadata tables", same_metadata, world, t)


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/floe_history.py", "floe_history", World, run))
