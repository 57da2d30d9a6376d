"""Tables on S3 shared with the reference: Spark (Iceberg's S3FileIO) and floe (its own
S3FileIO) read and write tables in one SQLite catalog whose warehouse is a bucket on moto's
S3 server (authenticating); run as `.deps/py/bin/python test/interop/reference/s3_tables.py
PATH_TO_FLOE` from the repository root."""

# Spark writes a partitioned table with a merge-on-read delete: floe reads Spark's rows;
# and a format-version 3 table whose delete is a deletion vector in a Puffin file.
# floe creates a partitioned table and appends twice: Spark reads floe's rows and files.
# Every file of both tables is an object in the bucket, and nothing floe prints holds the
# secret key.

import datetime
import json
import os
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from peers import Floe, MotoS3, Spark, check, expect, jdbc_catalog, run_driver  # noqa: E402
from values import sql_values  # noqa: E402

CATALOG = "lake"


def canon(rows):
    def one(v):
        if isinstance(v, (datetime.date, Decimal)):
            return str(v)
        return v
    return sorted((tuple(one(v) for v in r) for r in rows), key=repr)


class World:
    def __init__(self, floe_binary, tmp):
        self.moto = MotoS3().__enter__()
        self.db = os.path.join(tmp, "catalog.db")
        open(self.db, "a").close()
        self.warehouse = f"s3://{self.moto.bucket}/lake"
        props = jdbc_catalog(self.db, "/unused")
        props["warehouse"] = self.warehouse
        props.update(self.moto.spark_properties())
        try:
            self.spark = Spark(tmp, {CATALOG: props})
        except Exception:
            self.moto.__exit__()
            raise
        self.floe = Floe(floe_binary, tmp, {CATALOG: {
            "type": "sql", "uri": f"sqlite:///{self.db}", "warehouse": self.warehouse,
            **self.moto.floe_properties()}})
        self.outputs = []

    def floe_rows(self, query):
        r = self.floe.run(CATALOG, query, fmt="jsonl")
        self.outputs += [r.stdout, r.stderr]
        expect(r.returncode == 0, f"floe failed on {query}: {r.stderr.strip()}")
        return canon(tuple(json.loads(line, parse_float=Decimal).values())
                     for line in r.stdout.splitlines() if line)

    def floe_ok(self, *statements):
        r = self.floe.run(CATALOG, *statements)
        self.outputs += [r.stdout, r.stderr]
        expect(r.returncode == 0, f"floe failed on {list(statements)}: {r.stderr.strip()}")


ROWS = [(i, "abc"[i % 3], (Decimal(i) / 4).quantize(Decimal("0.01")),
         datetime.date(2024, 1, 1 + i % 5)) for i in range(1, 41)]


def run(world, report):
    t = f"{CATALOG}.db.spark_t"

    def spark_writes():
        world.spark.sql(f"CREATE NAMESPACE {CATALOG}.db")
        world.spark.sql(f"""CREATE TABLE {t} (id BIGINT, cat STRING, amt DECIMAL(10, 2), d DATE)
                            USING iceberg PARTITIONED BY (days(d))
                            TBLPROPERTIES ('format-version' = '2',
                                           'write.delete.mode' = 'merge-on-read')""")
        world.spark.sql(f"INSERT INTO {t} VALUES {sql_values(ROWS)}")
        world.spark.sql(f"DELETE FROM {t} WHERE id % 7 = 0")
        paths = [r[0] for r in world.spark.rows(f"SELECT file_path FROM {t}.files")]
        expect(all(p.startswith(world.warehouse + "/db/spark_t/") for p in paths),
               f"Spark's files are not all in the bucket: {paths}")
        return f"{len(paths)} files on S3"
    report.step("Spark writes a table on S3", spark_writes)

    def floe_reads_spark():
        theirs = canon(world.spark.rows(f"SELECT id, cat, amt, d FROM {t}"))
        check("floe's rows of Spark's table", world.floe_rows("SELECT id, cat, amt, d FROM "
                                                              "db.spark_t"), theirs)
        check("floe's filtered rows", world.floe_rows(
            "SELECT id FROM db.spark_t WHERE d = DATE '2024-01-03'"),
            canon(world.spark.rows(f"SELECT id FROM {t} WHERE d = DATE '2024-01-03'")))
        return f"{len(theirs)} rows"
    report.step("floe reads Spark's table on S3", floe_reads_spark)

    v3 = f"{CATALOG}.db.spark_dv"

    def floe_reads_deletion_vectors():
        """Format version 3: Spark's DELETE writes deletion vectors into Puffin files on S3."""
        world.spark.sql(f"""CREATE TABLE {v3} (id BIGINT, cat STRING) USING iceberg
                            TBLPROPERTIES ('format-version' = '3',
                                           'write.delete.mode' = 'merge-on-read')""")
        world.spark.sql(f"INSERT INTO {v3} SELECT id, cat FROM {t}")
        world.spark.sql(f"DELETE FROM {v3} WHERE id % 3 = 0")
        deletes = [r[0] for r in world.spark.rows(f"SELECT file_path FROM {v3}.delete_files")]
        expect(deletes and all(p.startswith(world.warehouse + "/db/spark_dv/") and
                               p.endswith(".puffin") for p in deletes),
               f"Spark's deletion vectors are not Puffin files in the bucket: {deletes}")
        theirs = canon(world.spark.rows(f"SELECT id, cat FROM {v3}"))
        check("floe's rows of Spark's v3 table", world.floe_rows("SELECT id, cat FROM db.spark_dv"),
              theirs)
        return f"{len(theirs)} rows, {len(deletes)} Puffin file(s)"
    report.step("floe reads Spark's deletion vectors (Puffin) on S3", floe_reads_deletion_vectors)

    def floe_writes():
        world.floe_ok("CREATE TABLE db.floe_t (id bigint, cat text, amt decimal(10, 2), d date) "
                      "WITH (partitioning = 'day(d)')",
                      f"INSERT INTO db.floe_t VALUES {sql_values(ROWS[:20])}",
                      f"INSERT INTO db.floe_t VALUES {sql_values(ROWS[20:])}")
        paths = [r[0] for r in world.spark.rows(f"SELECT file_path FROM {CATALOG}.db.floe_t.files")]
        expect(paths and all(p.startswith(world.warehouse + "/db/floe_t/") for p in paths),
               f"floe's files are not all in the bucket: {paths}")
        check("Spark's rows of floe's table",
              canon(world.spark.rows(f"SELECT id, cat, amt, d FROM {CATALOG}.db.floe_t")),
              canon(ROWS))
        snapshots = world.spark.rows(f"SELECT count(*) FROM {CATALOG}.db.floe_t.snapshots")
        check("snapshots of floe's table", snapshots[0][0], 2)
        return f"{len(paths)} files on S3"
    report.step("floe writes a table on S3, Spark reads it", floe_writes)

    def cli_scan():
        """`floe iceberg scan s3://...` (no catalog) with the AWS environment's settings."""
        env = dict(os.environ, AWS_ACCESS_KEY_ID=world.moto.access_key_id,
                   AWS_SECRET_ACCESS_KEY=world.moto.secret_access_key,
                   AWS_ENDPOINT_URL_S3=world.moto.endpoint, AWS_REGION=world.moto.region)
        r = subprocess.run([world.floe.binary, "iceberg", "scan", world.warehouse + "/db/spark_t",
                            "--format", "csv"], capture_output=True, text=True, env=env,
                           timeout=300)
        world.outputs += [r.stdout, r.stderr]
        expect(r.returncode == 0, f"floe iceberg scan failed: {r.stderr.strip()}")
        rows = len([line for line in r.stdout.splitlines() if line]) - 1
        check("rows of floe iceberg scan s3://...", rows,
              world.spark.rows(f"SELECT count(*) FROM {t}")[0][0])
        return f"{rows} rows"
    report.step("floe iceberg scan reads Spark's table by its S3 location", cli_scan)

    def no_secret():
        for out in world.outputs:
            expect(world.moto.secret_access_key not in out, "floe printed the secret key")
        r = world.floe.run(CATALOG, "SELECT * FROM db.missing")
        expect(r.returncode != 0 and world.moto.secret_access_key not in r.stderr + r.stdout,
               "a failing statement printed the secret key")
        return f"{len(world.outputs) + 2} outputs searched"
    report.step("nothing floe printed holds the secret", no_secret)


def stop_all(world, report):
    try:
        run(world, report)
    finally:
        world.moto.__exit__()


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/s3_tables.py", "s3_tables", World, stop_all))
