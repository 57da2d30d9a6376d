"""floe's REST catalog server and clients floe did not write: pyiceberg's RestCatalog and
Spark's REST catalog (Iceberg's Java client) work through `floe catalog serve` on tables that
floe's own REST client reads and writes too; run as `.deps/py/bin/python
test/interop/reference/rest_catalog_server.py PATH_TO_FLOE` from the repository root."""

# Two servers of the driver's own (lib/peers.py FloeRestServer: 127.0.0.1, a free port,
# stopped with SIGTERM at the end), each over a SQLite catalog in the temporary directory:
# `main` with one OAuth2 client and tokens of an hour, `ttl` with two clients and tokens of
# two seconds. Every engine reaches `main` with the same client credential.
# - pyiceberg creates a namespace and a partitioned table, appends, evolves the schema and
#   the partition spec, appends again, lists, renames and purges; floe reads each state
#   back, and pyiceberg reads what floe inserts.
# - Spark creates a partitioned table, inserts, creates one with CTAS (a staged create),
#   adds a column, deletes and updates (copy-on-write) and replaces a table with REPLACE
#   TABLE AS SELECT; floe reads Spark's rows, Spark reads a table floe created and wrote.
# - On `ttl`, a floe shell session of about 30 s inserts and counts, one statement after
#   another, while pyiceberg appends to a table of its own: every statement and append
#   succeeds, and the log shows the tokens renewed all along (client by client).
# - A wrong client secret: pyiceberg and floe fail with the server's invalid_client, and
#   the server logs exactly one refusal per attempt.
# - Nothing floe printed (servers' logs included) holds a client secret or a token.

import datetime
import json
import os
import re
import subprocess
import sys
import threading
import time
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from peers import Floe, FloeRestServer, Spark, check, expect, run_driver  # noqa: E402
from values import arrow_rows, canon_rows, sql_values  # noqa: E402

CLIENT, SECRET = "peers", "rest-peers-secret-7c41e9"
WRONG_SECRET = "not-the-secret-0f3c"
TTL_FLOE, TTL_FLOE_SECRET = "floe-app", "ttl-secret-floe-5d2a"
TTL_PY, TTL_PY_SECRET = "py-app", "ttl-secret-py-83b1"
SECRETS = (SECRET, WRONG_SECRET, TTL_FLOE_SECRET, TTL_PY_SECRET)
# floe's server grants tokens of 32 random bytes in hex.
TOKEN = re.compile(r"[0-9a-f]{64}")
# The length of the token-expiry session, and the fewest grants it must show for floe's
# client (one per token lifetime of 2 s would be 15).
SESSION_SECONDS = 30
MIN_FLOE_GRANTS = 10

D = datetime.date


def row(i, note=False):
    """Row i: (id, cat, amt, d), and a note when `note`; NULLs in every nullable column."""
    r = (i, None if i % 7 == 0 else "abc"[i % 3],
         None if i % 11 == 0 else (Decimal(i) / 4).quantize(Decimal("0.01")),
         D(2024, 1, 1 + i % 5))
    return r + (f"note {i}",) if note else r


def arrow_schema(note=False):
    import pyarrow as pa

    fields = [pa.field("id", pa.int64(), nullable=False), ("cat", pa.string()),
              ("amt", pa.decimal128(10, 2)), ("d", pa.date32())]
    if note:
        fields.append(("note", pa.string()))
    return pa.schema(fields)


def arrow_table(rows, note=False):
    import pyarrow as pa

    schema = arrow_schema(note)
    columns = list(zip(*rows))
    return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(columns, schema)],
                                schema=schema)


def canon(rows, note=False):
    return canon_rows(rows, arrow_schema(note))


class World:
    def __init__(self, floe_binary, tmp):
        self.tmp = tmp
        self.servers = {}
        self.warehouses = {}
        for name, credentials, ttl in (
                ("main", [f"{CLIENT}:{SECRET}"], None),
                ("ttl", [f"{TTL_FLOE}:{TTL_FLOE_SECRET}", f"{TTL_PY}:{TTL_PY_SECRET}"], 2)):
            warehouse = self.warehouses[name] = os.path.join(tmp, f"warehouse-{name}")
            os.makedirs(warehouse)
            try:
                self.servers[name] = FloeRestServer(floe_binary, tmp, name,
                                                    os.path.join(tmp, f"{name}.db"), warehouse,
                                                    credentials, token_ttl=ttl)
            except Exception:
                self.stop_servers()
                raise
        self.main = self.servers["main"]
        self.ttl = self.servers["ttl"]
        self.floe = Floe(floe_binary, tmp, {
            "rest": {"type": "rest", "uri": self.main.uri, "credential": f"{CLIENT}:{SECRET}"},
            "wrong": {"type": "rest", "uri": self.main.uri,
                      "credential": f"{CLIENT}:{WRONG_SECRET}"},
            "ttl": {"type": "rest", "uri": self.ttl.uri,
                    "credential": f"{TTL_FLOE}:{TTL_FLOE_SECRET}"},
        })
        try:
            self.spark = Spark(tmp, {"rest": {
                "type": "rest", "uri": self.main.uri, "credential": f"{CLIENT}:{SECRET}",
                # Every read loads the table's current metadata: other engines commit between.
                "cache-enabled": "false"}})
        except Exception:
            self.stop_servers()
            raise
        self.outputs = []
        self._py = None

    def stop_servers(self):
        for server in self.servers.values():
            server.stop()

    def py(self):
        """pyiceberg's RestCatalog on the main server."""
        if self._py is None:
            self._py = py_catalog(self.main.uri, f"{CLIENT}:{SECRET}")
        return self._py

    def floe_run(self, catalog, *statements, fmt="csv"):
        r = self.floe.run(catalog, *statements, fmt=fmt)
        self.outputs += [r.stdout, r.stderr]
        return r

    def floe_ok(self, *statements, catalog="rest"):
        r = self.floe_run(catalog, *statements)
        expect(r.returncode == 0, f"floe failed on {list(statements)}: {r.stderr.strip()}")
        return r.stdout

    def floe_rows(self, query, note=False, catalog="rest"):
        """The rows of `query` (its columns those of row(), and the note when `note`) in
        canonical form."""
        r = self.floe_run(catalog, query, fmt="jsonl")
        expect(r.returncode == 0, f"floe failed on {query}: {r.stderr.strip()}")
        records = [json.loads(line, parse_float=Decimal) for line in r.stdout.splitlines() if line]
        return canon([tuple(rec.values()) for rec in records], note)


def py_catalog(uri, credential):
    from pyiceberg.catalog import load_catalog

    return load_catalog("rest", type="rest", uri=uri, credential=credential)


def run_steps(world, report):
    py_steps(world, report)
    spark_steps(world, report)
    token_steps(world, report)
    wrong_secret_steps(world, report)
    secret_steps(world, report)


# ---------------------------------------------------------------------------------------
# pyiceberg's RestCatalog


def py_steps(world, report):
    rows1 = [row(i) for i in range(1, 31)]
    rows2 = [row(i, note=True) for i in range(31, 41)]
    rows3 = [row(i, note=True) for i in range(41, 46)]
    after2 = [r + (None,) for r in rows1] + rows2

    def create():
        from pyiceberg.partitioning import PartitionField, PartitionSpec
        from pyiceberg.schema import Schema
        from pyiceberg.transforms import DayTransform, IdentityTransform
        from pyiceberg.types import DateType, DecimalType, LongType, NestedField, StringType

        py = world.py()
        py.create_namespace("py", {"owner": "pyiceberg"})
        schema = Schema(NestedField(1, "id", LongType(), required=True),
                        NestedField(2, "cat", StringType()),
                        NestedField(3, "amt", DecimalType(10, 2)),
                        NestedField(4, "d", DateType()))
        spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "cat"),
                             PartitionField(4, 1001, DayTransform(), "d_day"))
        py.create_table("py.events", schema, partition_spec=spec)
        table = py.load_table("py.events")
        check("namespaces", py.list_namespaces(), [("py",)])
        check("namespace properties", py.load_namespace_properties("py"), {"owner": "pyiceberg"})
        check("schema", [(f.field_id, f.name, str(f.field_type), f.required)
                         for f in table.schema().fields],
              [(1, "id", "long", True), (2, "cat", "string", False),
               (3, "amt", "decimal(10, 2)", False), (4, "d", "date", False)])
        check("partition spec", [(f.source_id, str(f.transform), f.name)
                                 for f in table.spec().fields],
              [(2, "identity", "cat"), (4, "day", "d_day")])
        check("snapshots of the new table", table.metadata.snapshots, [])
    report.step("pyiceberg creates a namespace and a partitioned table", create)

    def append_and_read():
        table = world.py().load_table("py.events")
        table.append(arrow_table(rows1))
        got = world.py().load_table("py.events").scan().to_arrow()
        check("pyiceberg's rows", canon(arrow_rows(got, arrow_schema().names)), canon(rows1))
        check("floe's rows", world.floe_rows("SELECT id, cat, amt, d FROM py.events"),
              canon(rows1))
        return f"{len(rows1)} rows"
    report.step("pyiceberg appends and reads back; floe reads the same", append_and_read)

    def evolve():
        from pyiceberg.transforms import BucketTransform
        from pyiceberg.types import StringType

        table = world.py().load_table("py.events")
        with table.update_schema() as update:
            update.add_column("note", StringType())
        with table.update_spec() as update:
            update.add_field("id", BucketTransform(4), "id_bucket")
        table = world.py().load_table("py.events")
        check("evolved schema", [(f.field_id, f.name) for f in table.schema().fields],
              [(1, "id"), (2, "cat"), (3, "amt"), (4, "d"), (5, "note")])
        check("evolved spec", [(f.source_id, str(f.transform), f.name)
                               for f in table.spec().fields],
              [(2, "identity", "cat"), (4, "day", "d_day"), (1, "bucket[4]", "id_bucket")])
        check("spec ids", [s.spec_id for s in table.metadata.partition_specs], [0, 1])
        table.append(arrow_table(rows2, note=True))
        got = world.py().load_table("py.events").scan().to_arrow()
        check("pyiceberg's rows", canon(arrow_rows(got, arrow_schema(True).names), True),
              canon(after2, True))
        check("floe's rows", world.floe_rows("SELECT id, cat, amt, d, note FROM py.events", True),
              canon(after2, True))
        check("floe's rows of one partition",
              world.floe_rows("SELECT id, cat, amt, d, note FROM py.events WHERE cat = 'b'", True),
              canon([r for r in after2 if r[1] == "b"], True))
        out = world.floe_ok('SELECT count(*) AS n FROM py."events$snapshots"')
        check("floe's count of snapshots", out.split(), ["n", "2"])
        return f"{len(after2)} rows in two specs"
    report.step("pyiceberg adds a column and a partition field, appends; floe reads", evolve)

    def floe_inserts():
        world.floe_ok(f"INSERT INTO py.events VALUES {sql_values(rows3)}")
        table = world.py().load_table("py.events")
        got = table.scan().to_arrow()
        check("pyiceberg's rows", canon(arrow_rows(got, arrow_schema(True).names), True),
              canon(after2 + rows3, True))
        check("snapshots", len(table.metadata.snapshots), 3)
        # pyiceberg's first append went into spec 0; its second and floe's into spec 1.
        rows_by_spec = {}
        for f in table.inspect.files().to_pylist():
            rows_by_spec[f["spec_id"]] = rows_by_spec.get(f["spec_id"], 0) + f["record_count"]
        check("rows by partition spec", rows_by_spec,
              {0: len(rows1), 1: len(rows2) + len(rows3)})
        return f"{len(rows3)} rows"
    report.step("floe inserts through the server; pyiceberg reads its rows", floe_inserts)

    def list_rename_purge():
        py = world.py()
        py.create_namespace("py_other")
        check("namespaces", sorted(py.list_namespaces()), [("py",), ("py_other",)])
        check("floe's schemas", world.floe_ok("SHOW SCHEMAS").split()[1:], ["py", "py_other"])
        py.rename_table("py.events", "py_other.renamed")
        check("tables of py", py.list_tables("py"), [])
        check("tables of py_other", py.list_tables("py_other"), [("py_other", "renamed")])
        check("floe's rows of the renamed table",
              world.floe_rows("SELECT id, cat, amt, d, note FROM py_other.renamed", True),
              canon(after2 + rows3, True))
        # A rename keeps the table's files where they are.
        directory = py.load_table("py_other.renamed").location()
        check("location of the renamed table", directory,
              os.path.join(world.warehouses["main"], "py", "events"))
        files = [f for _, _, names in os.walk(directory) for f in names]
        expect(len(files) > 3, f"the table's files before the purge: {files}")
        py.purge_table("py_other.renamed")
        check("tables of py_other after the purge", py.list_tables("py_other"), [])
        check("files left by the purge",
              [f for _, _, names in os.walk(directory) for f in names], [])
        r = world.floe_run("rest", "SELECT * FROM py_other.renamed")
        expect(r.returncode != 0 and "does not exist" in r.stderr,
               f"floe reads a purged table: {r.returncode} {r.stderr.strip()}")
        py.drop_namespace("py_other")
        check("namespaces", py.list_namespaces(), [("py",)])
        return f"{len(files)} files purged"
    report.step("pyiceberg lists, renames and purges (floe sees each)", list_rename_purge)


# ---------------------------------------------------------------------------------------
# Spark's REST catalog


def spark_steps(world, report):
    spark = world.spark
    orders = "rest.sp.orders"
    rows = [row(i) for i in range(1, 41)]
    final = []

    def create_insert():
        spark.sql("CREATE NAMESPACE rest.sp")
        spark.sql(f"""CREATE TABLE {orders} (id BIGINT NOT NULL, cat STRING, amt DECIMAL(10, 2),
                                             d DATE)
                      USING iceberg PARTITIONED BY (cat, days(d))
                      TBLPROPERTIES ('format-version' = '2',
                                     'write.delete.mode' = 'copy-on-write',
                                     'write.update.mode' = 'copy-on-write')""")
        spark.sql(f"INSERT INTO {orders} VALUES {sql_values(rows[:20])}")
        spark.sql(f"INSERT INTO {orders} VALUES {sql_values(rows[20:])}")
        check("Spark's rows", canon(spark.rows(f"SELECT id, cat, amt, d FROM {orders}")),
              canon(rows))
        return f"{len(rows)} rows"
    report.step("Spark creates a partitioned table and inserts", create_insert)

    def floe_reads_orders():
        check("floe's rows of Spark's table",
              world.floe_rows("SELECT id, cat, amt, d FROM sp.orders"),
              canon(spark.rows(f"SELECT id, cat, amt, d FROM {orders}")))
        check("floe's rows of one day",
              world.floe_rows("SELECT id, cat, amt, d FROM sp.orders WHERE d = DATE '2024-01-03'"),
              canon([r for r in rows if r[3] == D(2024, 1, 3)]))
    report.step("floe reads Spark's table", floe_reads_orders)

    def ctas():
        spark.sql(f"""CREATE TABLE rest.sp.big USING iceberg PARTITIONED BY (cat)
                      AS SELECT id, cat, amt, d FROM {orders} WHERE amt >= 5""")
        want = canon([r for r in rows if r[2] is not None and r[2] >= 5])
        check("Spark's rows of the CTAS table",
              canon(spark.rows("SELECT id, cat, amt, d FROM rest.sp.big")), want)
        check("floe's rows of the CTAS table",
              world.floe_rows("SELECT id, cat, amt, d FROM sp.big"), want)
        check("snapshots of the CTAS table",
              spark.rows("SELECT operation FROM rest.sp.big.snapshots"), [("append",)])
        return f"{len(want)} rows"
    report.step("Spark's CTAS (a staged create); floe reads it", ctas)

    def evolve_and_change():
        spark.sql(f"ALTER TABLE {orders} ADD COLUMN note STRING")
        more = [row(i, note=True) for i in range(41, 46)]
        spark.sql(f"INSERT INTO {orders} VALUES {sql_values(more)}")
        # Whole partitions (days): a delete of files alone.
        spark.sql(f"DELETE FROM {orders} WHERE id % 5 = 0")
        spark.sql(f"UPDATE {orders} SET note = 'updated', amt = amt + 100 WHERE id % 3 = 0")
        want = []
        for r in [r + (None,) for r in rows] + more:
            if r[0] % 5 == 0:
                continue
            if r[0] % 3 == 0:
                r = (r[0], r[1], None if r[2] is None else r[2] + 100, r[3], "updated")
            want.append(r)
        final[:] = want
        check("Spark's rows", canon(spark.rows(f"SELECT id, cat, amt, d, note FROM {orders}"),
                                    True), canon(want, True))
        check("Spark's operations",
              [r[0] for r in spark.rows(f"SELECT operation FROM {orders}.snapshots "
                                        "ORDER BY committed_at")],
              ["append", "append", "append", "delete", "overwrite"])
        check("delete files (copy-on-write)",
              spark.rows(f"SELECT count(*) FROM {orders}.delete_files"), [(0,)])
        check("floe's rows of Spark's changed table",
              world.floe_rows("SELECT id, cat, amt, d, note FROM sp.orders", True),
              canon(want, True))
        return f"{len(want)} rows after DELETE and UPDATE"
    report.step("Spark adds a column, deletes and updates (copy-on-write); floe reads",
                evolve_and_change)

    def replace():
        spark.sql(f"""REPLACE TABLE rest.sp.big USING iceberg
                      AS SELECT id, note FROM {orders} WHERE note IS NOT NULL""")
        want = sorted((r[0], r[4]) for r in final if r[4] is not None)
        check("Spark's rows of the replaced table",
              sorted(spark.rows("SELECT id, note FROM rest.sp.big")), want)
        r = world.floe_run("rest", "SELECT id, note FROM sp.big", fmt="jsonl")
        expect(r.returncode == 0, f"floe failed: {r.stderr.strip()}")
        check("floe's rows of the replaced table",
              sorted(tuple(json.loads(line).values()) for line in r.stdout.splitlines() if line),
              want)
        check("columns of the replaced table (floe)",
              world.floe_ok("SELECT * FROM sp.big LIMIT 0").strip(), "id,note")
        return f"{len(want)} rows"
    report.step("Spark's REPLACE TABLE AS SELECT (fewer columns); floe reads", replace)

    def spark_reads_floe():
        fl = [row(i) for i in range(100, 130)]
        world.floe_ok("CREATE SCHEMA fl",
                      "CREATE TABLE fl.t (id bigint NOT NULL, cat text, amt decimal(10, 2), "
                      "d date) WITH (partitioning = 'bucket(4, id), day(d)')",
                      f"INSERT INTO fl.t VALUES {sql_values(fl[:15])}",
                      f"INSERT INTO fl.t VALUES {sql_values(fl[15:])}")
        check("Spark's rows of floe's table",
              canon(spark.rows("SELECT id, cat, amt, d FROM rest.fl.t")), canon(fl))
        check("Spark's rows of one bucket and day",
              canon(spark.rows("SELECT id, cat, amt, d FROM rest.fl.t "
                               "WHERE d = DATE '2024-01-02'")),
              canon([r for r in fl if r[3] == D(2024, 1, 2)]))
        check("snapshots of floe's table (Spark)",
              spark.rows("SELECT operation FROM rest.fl.t.snapshots ORDER BY committed_at"),
              [("append",), ("append",)])
        check("partition spec of floe's table (Spark)",
              [(r[0], r[1]) for r in spark.rows("DESCRIBE TABLE EXTENDED rest.fl.t")
               if r[0].startswith("Part ")],
              [("Part 0", "bucket(4, id)"), ("Part 1", "days(d)")])
        return f"{len(fl)} rows"
    report.step("floe creates and writes a table; Spark reads it", spark_reads_floe)


# ---------------------------------------------------------------------------------------
# Token expiry


def token_steps(world, report):
    def session():
        world.floe_ok("CREATE SCHEMA tt", "CREATE TABLE tt.t (id bigint NOT NULL)",
                      catalog="ttl")
        py = py_catalog(world.ttl.uri, f"{TTL_PY}:{TTL_PY_SECRET}")
        py.create_namespace("pyt")
        from pyiceberg.schema import Schema
        from pyiceberg.types import LongType, NestedField

        py.create_table("pyt.t", Schema(NestedField(1, "id", LongType(), required=True)))
        start = len(world.ttl.log_lines())

        # pyiceberg appends once a second in a thread of its own, through the same server.
        import pyarrow as pa

        py_ids, py_errors = [], []
        stop = threading.Event()

        def appends():
            i = 0
            while not stop.is_set():
                try:
                    table = py.load_table("pyt.t")
                    table.append(pa.Table.from_arrays(
                        [pa.array([i], type=pa.int64())],
                        schema=pa.schema([pa.field("id", pa.int64(), nullable=False)])))
                    py_ids.append(i)
                except Exception as e:  # noqa: BLE001 - reported by the step
                    py_errors.append(f"append {i}: {e!r}")
                i += 1
                stop.wait(1.0)

        thread = threading.Thread(target=appends)
        thread.start()
        # One floe shell session: an INSERT and a count, the next pair once the count of the
        # last one came, for SESSION_SECONDS.
        shell = subprocess.Popen([world.floe.binary, "shell", "--catalog", "ttl"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env=dict(os.environ, FLOE_CONFIG=world.floe.config))
        t0 = time.monotonic()
        n = 0
        out = []
        try:
            while time.monotonic() - t0 < SESSION_SECONDS:
                n += 1
                shell.stdin.write(f"INSERT INTO tt.t VALUES ({n});\n"
                                  "SELECT 'count ' || CAST(count(*) AS text) AS c FROM tt.t;\n")
                shell.stdin.flush()
                while True:
                    line = shell.stdout.readline()
                    out.append(line)
                    if not line or line.strip().startswith("count "):
                        break
                if not line:
                    break
            rest, err = shell.communicate(timeout=60)
            out.append(rest)
        finally:
            if shell.poll() is None:
                shell.kill()
                shell.wait()
            stop.set()
            thread.join(timeout=60)
        out = "".join(out)
        elapsed = time.monotonic() - t0
        world.outputs += [out, err]
        check("floe shell's exit status", shell.returncode, 0)
        check("floe shell's errors", err.strip(), "")
        check("INSERTs reported", out.count("INSERT 0 1"), n)
        check("counts after each INSERT", [int(c) for c in re.findall(r"count (\d+)", out)],
              list(range(1, n + 1)))
        check("pyiceberg's errors", py_errors, [])
        expect(len(py_ids) >= SESSION_SECONDS // 2, f"pyiceberg appended {len(py_ids)} times")

        lines = world.ttl.log_lines()[start:]
        grants = {client: [line for line in lines
                           if line.startswith(f"floe catalog serve: granted a token to client "
                                              f"'{client}' (")]
                  for client in (TTL_FLOE, TTL_PY)}
        check("log lines other than grants",
              [line for line in lines if "granted a token" not in line], [])
        expect(len(grants[TTL_FLOE]) >= MIN_FLOE_GRANTS,
               f"floe's client got {len(grants[TTL_FLOE])} tokens in {elapsed:.0f} s at a "
               f"TTL of 2 s (want at least {MIN_FLOE_GRANTS})")
        # floe's client renews a token in the last tenth of its life (RFC 8693 exchange of
        # the live token) while the session keeps calling; credentials only after a lapse.
        exchanges = sum("(token exchange," in line for line in grants[TTL_FLOE])
        expect(2 * exchanges >= len(grants[TTL_FLOE]),
               f"floe's client renewed {exchanges} of {len(grants[TTL_FLOE])} tokens by token "
               "exchange: the others lapsed before it renewed them")
        expect(len(grants[TTL_PY]) >= 2,
               f"pyiceberg got {len(grants[TTL_PY])} tokens in {elapsed:.0f} s")
        check("floe's rows after the session",
              world.floe_ok("SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM tt.t",
                            catalog="ttl").split(), ["n,lo,hi", f"{n},1,{n}"])
        check("pyiceberg's rows (read by floe)",
              world.floe_ok("SELECT count(*) AS n FROM pyt.t", catalog="ttl").split(),
              ["n", str(len(py_ids))])
        return (f"{2 * n} floe statements and {len(py_ids)} pyiceberg appends in "
                f"{elapsed:.0f} s; floe {len(grants[TTL_FLOE])} tokens ({exchanges} by "
                f"exchange), pyiceberg {len(grants[TTL_PY])}")
    report.step("tokens of 2 s: a 30 s floe shell session and pyiceberg appends", session)


# ---------------------------------------------------------------------------------------
# A wrong secret


def wrong_secret_steps(world, report):
    refusal = (f"floe catalog serve: refused a token to client '{CLIENT}' from 127.0.0.1:")

    def new_lines(start):
        return world.main.log_lines()[start:]

    def pyiceberg_refused():
        from pyiceberg.exceptions import OAuthError

        for attempt in range(2):
            start = len(world.main.log_lines())
            error = None
            try:
                py_catalog(world.main.uri, f"{CLIENT}:{WRONG_SECRET}")
            except OAuthError as e:
                error = str(e)
            check("pyiceberg's error", error,
                  "invalid_client: unknown client or wrong client secret")
            lines = new_lines(start)
            check(f"log lines of attempt {attempt + 1}",
                  [line.startswith(refusal) and line.endswith(": wrong client id or secret")
                   for line in lines], [True])
    report.step("pyiceberg with a wrong secret: invalid_client, one refusal each",
                pyiceberg_refused)

    def floe_refused():
        for attempt in range(2):
            start = len(world.main.log_lines())
            r = world.floe_run("wrong", "SHOW SCHEMAS")
            check("floe's exit status", r.returncode, 1)
            expect("rest catalog wrong: OAuth2 token request to " + world.main.uri +
                   "/v1/oauth/tokens: refused (invalid_client: unknown client or wrong client "
                   "secret); check credential and scope" in r.stderr,
                   f"floe's error: {r.stderr.strip()}")
            check("floe's output", r.stdout, "")
            lines = new_lines(start)
            check(f"log lines of attempt {attempt + 1}",
                  [line.startswith(refusal) and line.endswith(": wrong client id or secret")
                   for line in lines], [True])
    report.step("floe with a wrong secret: invalid_client, one refusal each", floe_refused)


# ---------------------------------------------------------------------------------------
# Secrets


def secret_steps(world, report):
    def no_secret():
        codes = {name: server.stop() for name, server in world.servers.items()}
        check("servers' exit status (SIGTERM)", codes, {"main": 143, "ttl": 143})
        for name, server in world.servers.items():
            check(f"{name} server's standard output", server.stdout, server.uri + "\n")
            world.outputs += [server.stdout, server.log()]
        for out in world.outputs:
            for secret in SECRETS:
                expect(secret not in out, f"floe printed a client secret: {out[:2000]}")
            tokens = TOKEN.findall(out)
            expect(not tokens, f"floe printed what looks like a token: {tokens[:1]}")
        grants = sum(server.log().count("granted a token") for server in world.servers.values())
        return f"{len(world.outputs)} outputs searched, {grants} grants logged"
    report.step("nothing floe printed holds a secret or a token", no_secret)


def run(world, report):
    try:
        run_steps(world, report)
    finally:
        world.stop_servers()


if __name__ == "__main__":
    sys.exit(run_driver("test/interop/reference/rest_catalog_server.py", "rest_catalog_server",
                        World, run))
