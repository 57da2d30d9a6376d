"""A PostgreSQL server of a reference driver's own, for the SQL catalog on PostgreSQL.

`with PostgresServer() as pg:` runs initdb into a fresh temporary directory and starts the
server on a free port of 127.0.0.1 only (and a unix socket in that directory), with password
authentication over TCP; leaving the block (also by an exception) stops it and removes the
directory. As root, which initdb refuses, the server runs as the user `nobody`, and it gets
SIGQUIT should the driver die first. The binaries come from $FLOE_POSTGRES_BINDIR, else the
newest /usr/lib/postgresql/<version>/bin (postgresql-15, installed by scripts/install-deps);
a missing server is a failure.
"""

import ctypes
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

USER = "floe"
PASSWORD = "pg-ref-pw-2b9d"


def _bindir():
    env = os.environ.get("FLOE_POSTGRES_BINDIR")
    if env:
        return env
    found = []
    for path in glob.glob("/usr/lib/postgresql/*/bin"):
        version = os.path.basename(os.path.dirname(path))
        if version.isdigit() and os.path.exists(os.path.join(path, "postgres")):
            found.append((int(version), path))
    if not found:
        raise RuntimeError("no PostgreSQL server in /usr/lib/postgresql/<version>/bin: install "
                           "postgresql-15 (scripts/install-deps) or set FLOE_POSTGRES_BINDIR")
    return sorted(found)[-1][1]


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self):
        self.bindir = _bindir()
        self.dir = None
        self.port = None
        self.proc = None
        self._run_as = None
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            self._run_as = (nobody.pw_uid, nobody.pw_gid)

    # --- life cycle ----------------------------------------------------------------------

    def _preexec(self):
        if self._run_as:
            os.setgroups([])
            os.setgid(self._run_as[1])
            os.setuid(self._run_as[0])
        # After the user switch (which clears it): the server ends with the driver.
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGQUIT)  # PR_SET_PDEATHSIG

    def _run(self, args, log):
        with open(log, "ab") as out:
            return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                    preexec_fn=self._preexec)

    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _start(self):
        self.dir = tempfile.mkdtemp(prefix="floe-ref-postgres-")
        pwfile = os.path.join(self.dir, "pwfile")
        with open(pwfile, "w") as f:
            f.write(PASSWORD + "\n")
        os.chmod(pwfile, 0o600)
        if self._run_as:
            os.chown(self.dir, *self._run_as)
            os.chown(pwfile, *self._run_as)
        log = os.path.join(self.dir, "initdb.log")
        initdb = self._run([os.path.join(self.bindir, "initdb"), "-D", os.path.join(self.dir, "data"),
                            "-U", USER, f"--pwfile={pwfile}", "--auth-host=scram-sha-256",
                            "--auth-local=trust", "-E", "UTF8", "--locale=C", "--no-sync",
                            "--no-instructions"], log)
        if initdb.wait() != 0:
            raise RuntimeError(f"initdb failed:\n{open(log).read()[-2000:]}")
        os.remove(pwfile)
        log = os.path.join(self.dir, "server.log")
        for _ in range(5):
            self.port = _free_port()
            self.proc = self._run([os.path.join(self.bindir, "postgres"), "-D",
                                   os.path.join(self.dir, "data"), "-k", self.dir, "-h",
                                   "127.0.0.1", "-p", str(self.port), "-c", "fsync=off", "-c",
                                   "synchronous_commit=off", "-c", "full_page_writes=off", "-c",
                                   "max_connections=200"], log)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and self.proc.poll() is None:
                if self._ready():
                    return
                time.sleep(0.05)
            text = open(log).read()
            if self.proc.poll() is None:
                raise RuntimeError(f"PostgreSQL did not start within 60 s:\n{text[-2000:]}")
            if "could not bind" not in text and "already in use" not in text:
                raise RuntimeError(f"PostgreSQL did not start:\n{text[-2000:]}")
        raise RuntimeError("PostgreSQL found no free port")

    def _ready(self):
        r = subprocess.run([os.path.join(self.bindir, "pg_isready"), "-q", "-h", self.dir, "-p",
                            str(self.port)], capture_output=True)
        return r.returncode == 0

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGQUIT)
                self.proc.wait()
        self.proc = None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    # --- use -----------------------------------------------------------------------------

    def sql(self, database, text, params=None):
        """Runs one statement as the superuser (autocommit); its rows, or None."""
        import psycopg2

        conn = psycopg2.connect(host="127.0.0.1", port=self.port, user=USER, password=PASSWORD,
                                dbname=database)
        try:
            conn.autocommit = True
            with conn.cursor() as cur:
                cur.execute(text, params)
                return cur.fetchall() if cur.description is not None else None
        finally:
            conn.close()

    def create_database(self, name):
        self.sql("postgres", f"CREATE DATABASE {name}")

    def uri(self, database, password=True):
        """libpq's form, as floe takes it."""
        secret = f":{PASSWORD}" if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def sqlalchemy_uri(self, database):
        """pyiceberg's (SQLAlchemy's) form."""
        return f"postgresql+psycopg2://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def jdbc_uri(self, database, credentials=False):
        """The JDBC driver's form, user and password as parameters when `credentials`."""
        uri = f"jdbc:postgresql://127.0.0.1:{self.port}/{database}"
        return uri + f"?user={USER}&password={PASSWORD}" if credentials else uri

    def columns(self, database, table):
        """The columns of a table of the public schema, in order."""
        return [r[0] for r in self.sql(
            database, "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "'public' AND table_name = %s ORDER BY ordinal_position", (table,))]
