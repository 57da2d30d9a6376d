"""What the reference-interop drivers share: one Spark session with Iceberg's Java runtime,
pyiceberg catalogs, the floe CLI, exact checks and a report.

Every driver (test/interop/reference/*.py) runs many checks against one Spark session, so
that the JVM's start-up is paid once per file. It is run by ctest (label `reference`) as
`.deps/py/bin/python test/interop/reference/<name>.py PATH_TO_FLOE` from the repository
root; scripts/install-deps installs the peers (README, "Building and testing").
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
JARS = os.path.join(REPO, ".deps", "jars")


class Mismatch(Exception):
    """A check that failed: what was compared, what came, what was wanted."""


def check(what, got, want):
    if got == want:
        return
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        # Name the first row that differs, and within a row the first value.
        i = next(k for k in range(len(got)) if got[k] != want[k])
        g, w = got[i], want[i]
        where = f"row {i} of {len(got)}"
        if isinstance(g, tuple) and isinstance(w, tuple) and len(g) == len(w):
            j = next(k for k in range(len(g)) if g[k] != w[k])
            where += f", value {j}"
            g, w = g[j], w[j]
        raise Mismatch(f"{what} ({where}):\n    got  {g!r}\n    want {w!r}")
    raise Mismatch(f"{what}:\n    got  {got!r}\n    want {want!r}")


def expect(cond, message):
    if not cond:
        raise Mismatch(message)


class Report:
    """Runs named steps, prints one line each and the failures in full; the driver's exit
    status is 1 when any step failed."""

    def __init__(self, name):
        self.name = name
        self.failed = []
        self.passed = 0
        self.start = time.monotonic()

    def step(self, name, fn, *args):
        t0 = time.monotonic()
        try:
            note = fn(*args)
        except Mismatch as e:
            self.failed.append(name)
            print(f"FAIL {name}: {e}", flush=True)
            return None
        except Exception:  # a peer's error is a failed step too, with its trace
            self.failed.append(name)
            print(f"FAIL {name}:\n{traceback.format_exc()}", flush=True)
            return None
        self.passed += 1
        suffix = f" ({note})" if isinstance(note, str) and note else ""
        print(f"ok   {name} [{time.monotonic() - t0:.1f} s]{suffix}", flush=True)
        return note

    def finish(self):
        total = time.monotonic() - self.start
        if self.failed:
            print(f"{self.name}: {len(self.failed)} of {len(self.failed) + self.passed} steps "
                  f"failed in {total:.1f} s: {', '.join(self.failed)}", flush=True)
            return 1
        print(f"{self.name}: all {self.passed} steps passed in {total:.1f} s", flush=True)
        return 0


def run_driver(script, name, make_world, run):
    """A driver's main: the floe binary from the arguments, a temporary directory, the world
    `make_world(floe_binary, tmp)` builds (with a `spark`), `run(world, report)`, Spark
    stopped and the directory removed whatever happened; the exit status."""
    floe_binary = floe_from_args(script)
    report = Report(name)
    with TempDir(name) as tmp:
        world = make_world(floe_binary, tmp)
        try:
            run(world, report)
        finally:
            world.spark.stop()
    return report.finish()


def floe_from_args(script):
    if len(sys.argv) != 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit(f"usage: .deps/py/bin/python {script} PATH_TO_FLOE")
    return os.path.abspath(sys.argv[1])


class TempDir:
    """A temporary directory removed at exit (also when a step raised)."""

    def __init__(self, prefix):
        self.path = tempfile.mkdtemp(prefix=f"floe-ref-{prefix}-")

    def __enter__(self):
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)
        return False


# ---------------------------------------------------------------------------------------
# Spark


def jar(prefix):
    found = glob.glob(os.path.join(JARS, prefix + "-[0-9]*.jar"))
    if len(found) != 1:
        sys.exit(f"want one {prefix} jar in .deps/jars, found {found}; run scripts/install-deps")
    return found[0]


class Spark:
    """One local Spark session with Iceberg's runtime; catalogs are added by name (the Spark
    catalog name is the catalog_name a JdbcCatalog writes)."""

    def __init__(self, tmp, catalogs):
        """`catalogs`: {name: {property: value}} as Spark's spark.sql.catalog.<name>.<property>."""
        from pyspark.sql import SparkSession

        # The driver binds to the loopback address only and keeps its scratch files in the
        # test's temporary directory.
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
        os.environ["SPARK_LOCAL_DIRS"] = os.path.join(tmp, "spark-local")
        # Spark 4.1 needs Java 17 or later and does not start on Java 23 and later (Hadoop's
        # login code calls Subject.getSubject): without JAVA_HOME, Debian's Java 17 (which
        # scripts/install-deps installs) is taken when present, else `java` on the PATH.
        if "JAVA_HOME" not in os.environ:
            java17 = sorted(glob.glob("/usr/lib/jvm/java-17-openjdk-*/bin/java"))
            if java17:
                os.environ["JAVA_HOME"] = os.path.dirname(os.path.dirname(java17[0]))
        # The AWS bundle holds Iceberg's S3FileIO (and the AWS SDK it needs).
        jars = [jar("iceberg-spark-runtime-4.1_2.13"), jar("iceberg-aws-bundle"),
                jar("sqlite-jdbc"), jar("postgresql")]
        # For a 2-core machine: two local worker threads and two shuffle partitions (the
        # default 200 would be 200 tiny tasks), no web UI, a 1 GiB driver heap, the serial
        # collector and C1-only JIT (about half the CPU time of the defaults for these
        # short jobs, and less competition with a build beside them).
        builder = (
            SparkSession.builder.master("local[2]")
            .appName("floe-reference")
            .config("spark.jars", ",".join(jars))
            .config("spark.driver.memory", "1g")
            .config("spark.driver.extraJavaOptions", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.warehouse.dir", os.path.join(tmp, "spark-warehouse"))
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.extensions",
                    "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        )
        for name, props in catalogs.items():
            builder = builder.config(f"spark.sql.catalog.{name}",
                                     "org.apache.iceberg.spark.SparkCatalog")
            for key, value in props.items():
                builder = builder.config(f"spark.sql.catalog.{name}.{key}", value)
        self.session = builder.getOrCreate()
        self.session.sparkContext.setLogLevel("ERROR")

    def sql(self, text):
        return self.session.sql(text)

    def rows(self, text):
        return [tuple(r) for r in self.session.sql(text).collect()]

    def stop(self):
        # Waits for the JVM, so that none outlives the test.
        gateway = self.session.sparkContext._gateway
        self.session.stop()
        gateway.shutdown()
        proc = getattr(gateway, "proc", None)
        if proc is not None:
            proc.stdin.close()
            try:
                proc.wait(timeout=60)
            except Exception:
                proc.kill()
                proc.wait()


def jdbc_catalog(sqlite_file, warehouse, schema_version=None, uri=None):
    """Spark catalog properties of a JdbcCatalog on a SQLite file (or the JDBC `uri`)."""
    props = {
        "catalog-impl": "org.apache.iceberg.jdbc.JdbcCatalog",
        # Every read loads the table's current metadata: other engines commit between reads.
        "cache-enabled": "false",
        "uri": uri or f"jdbc:sqlite:{sqlite_file}",
        "warehouse": "file://" + warehouse,
    }
    if schema_version:
        props["jdbc.schema-version"] = schema_version
    return props


def jdbc_postgres_catalog(pg, database, warehouse, schema_version=None):
    """Spark catalog properties of a JdbcCatalog on a database of `pg` (lib/postgres.py)."""
    import postgres

    props = jdbc_catalog(None, warehouse, schema_version, uri=pg.jdbc_uri(database))
    props["jdbc.user"] = postgres.USER
    props["jdbc.password"] = postgres.PASSWORD
    return props


# ---------------------------------------------------------------------------------------
# pyiceberg


def pyiceberg_append_racing(catalog, table_name, ids, writer, attempts=200):
    """Appends rows (id, writer) for `ids` through pyiceberg, which raises on a commit that
    lost a race: reload the table and append again, up to `attempts` times (a Mismatch
    then)."""
    import pyarrow as pa
    from pyiceberg.exceptions import CommitFailedException

    for attempt in range(attempts):
        table = catalog.load_table(table_name)
        schema = table.schema().as_arrow()
        batch = pa.Table.from_arrays(
            [pa.array(ids, type=schema.field("id").type),
             pa.array([writer] * len(ids), type=schema.field("writer").type)], schema=schema)
        try:
            table.append(batch)
            return
        except CommitFailedException:
            time.sleep(0.01 * (attempt % 10))
    raise Mismatch(f"{writer}: an append to {table_name} lost {attempts} races")


def sql_catalog(name, sqlite_file, warehouse):
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog(name, uri=f"sqlite:///{sqlite_file}", warehouse="file://" + warehouse)


def sql_postgres_catalog(name, pg, database, warehouse):
    """pyiceberg's SqlCatalog on a database of `pg` (lib/postgres.py), through psycopg2."""
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog(name, uri=pg.sqlalchemy_uri(database), warehouse="file://" + warehouse)


# ---------------------------------------------------------------------------------------
# floe


class Floe:
    """The floe CLI with a configuration file naming the test's catalogs."""

    def __init__(self, binary, tmp, catalogs):
        """`catalogs`: {name: {type, uri, warehouse}} as in ~/.floe.yaml."""
        self.binary = binary
        self.config = os.path.join(tmp, "floe.yaml")
        lines = ["catalog:"]
        for name, props in catalogs.items():
            lines.append(f"  {name}:")
            for key, value in props.items():
                lines.append(f"    {key}: '{value}'")
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")

    def run(self, catalog, *statements, fmt="csv"):
        """Runs the statements in one `floe sql`; returns the completed process."""
        args = [self.binary, "sql", "--catalog", catalog, "--format", fmt]
        for s in statements:
            args += ["-c", s]
        env = dict(os.environ, FLOE_CONFIG=self.config)
        return subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)

    def ok(self, catalog, *statements, fmt="csv"):
        """Runs the statements; their output, or a Mismatch with floe's error."""
        r = self.run(catalog, *statements, fmt=fmt)
        if r.returncode != 0:
            raise Mismatch(f"floe failed (exit {r.returncode}) on {list(statements)}:\n"
                           f"{r.stderr.strip()}")
        return r.stdout

    def rows(self, catalog, query):
        """The rows of one query as tuples of strings (CSV without its header)."""
        import csv
        import io

        out = self.ok(catalog, query)
        records = list(csv.reader(io.StringIO(out)))
        return [tuple(r) for r in records[1:]]


class FloeRestServer:
    """`floe catalog serve` on a free port of 127.0.0.1 over the SQLite catalog `sqlite_file`
    (new tables under `warehouse`), with OAuth2 clients `credentials` ("id:secret") and
    tokens living `token_ttl` seconds: `uri` once started; its log (standard error, one line
    per event) goes to a file that log() reads. stop() ends it with SIGTERM (exit status
    143, by design); it gets SIGTERM should the driver die first."""

    def __init__(self, binary, tmp, name, sqlite_file, warehouse, credentials, token_ttl=None):
        import ctypes
        import signal

        self.log_path = os.path.join(tmp, f"{name}.log")
        args = [binary, "catalog", "serve", "--catalog", f"sqlite:///{sqlite_file}",
                "--warehouse", warehouse, "--listen", "127.0.0.1:0"]
        for credential in credentials:
            args += ["--credential", credential]
        if token_ttl is not None:
            args += ["--token-ttl", str(token_ttl)]

        def die_with_parent():
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=log, text=True, preexec_fn=die_with_parent)
        self.uri = self.proc.stdout.readline().strip()
        if not self.uri.startswith("http://127.0.0.1:"):
            self.stop()
            raise RuntimeError(f"floe catalog serve did not start (first line {self.uri!r}):\n"
                               f"{self.log()}")
        self.stdout = self.uri + "\n"
        self.returncode = None

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def log_lines(self):
        """The log's lines without the UTC time each starts with."""
        import re

        return [re.sub(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ", "", line)
                for line in self.log().splitlines()]

    def stop(self):
        """Ends the server; its exit status."""
        import signal

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.returncode is None:
            self.stdout += self.proc.stdout.read()
            self.proc.stdout.close()
            self.returncode = self.proc.returncode
        return self.returncode


# ---------------------------------------------------------------------------------------
# S3 (moto)


class MotoS3:
    """moto's S3 server, authenticating, started by test/tools/moto_s3.py and stopped at
    exit (its standard input closed): `endpoint`, `access_key_id`, `secret_access_key`,
    `bucket`, `region`."""

    def __enter__(self):
        import json

        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(REPO, "test", "tools", "moto_s3.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            self.__exit__()
            raise RuntimeError("moto did not start")
        for key, value in json.loads(line).items():
            setattr(self, key, value)
        return self

    def __exit__(self, *exc):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return False

    def spark_properties(self):
        """Iceberg's S3FileIO settings for a Spark catalog."""
        return {"io-impl": "org.apache.iceberg.aws.s3.S3FileIO", "s3.endpoint": self.endpoint,
                "s3.path-style-access": "true", "s3.access-key-id": self.access_key_id,
                "s3.secret-access-key": self.secret_access_key, "client.region": self.region}

    def floe_properties(self):
        """The same settings as floe's catalog configuration takes them."""
        return {"s3.endpoint": self.endpoint, "s3.path-style-access": "true",
                "s3.access-key-id": self.access_key_id,
                "s3.secret-access-key": self.secret_access_key, "s3.region": self.region}
