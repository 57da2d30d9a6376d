"""floe's REST catalog client against floe's REST catalog server under `mpirun -np 3`, with
the warehouse on S3 (moto's server, authenticating) reached only through vended credentials
that expire while an INSERT runs.

The server (`floe catalog serve`, started here on 127.0.0.1, stopped at the end) serves a
SQL catalog on SQLite whose warehouse is on S3 and which holds the S3 keys; it grants OAuth2
tokens that live 3 seconds and vends STS credentials (AssumeRole, narrowed to the table's
location) that live 1 second. The client's configuration names only the server and an
OAuth2 client: no S3 key, and none in the environment. Rank 0 alone talks to the catalog;
the executors get the vended credentials with their stages and ask rank 0 for new ones.

Checked: the INSERT ran for longer than two lifetimes of the credentials, and the server
vended new ones while it ran (table loads and its credentials endpoint); the statement
committed exactly once (one snapshot) with every row, exactly, in day partitions under the
table's S3 location; every rank scanned rows from S3; the server granted tokens again
during the session; and neither the client secret nor the S3 secret was printed. (moto does
not refuse expired credentials, so what shows the renewal is the server's log.)

Run by ctest (labels mpi, s3, rest) as
`.deps/py/bin/python test/mpi/rest_vended.py FLOE_BINARY MPIEXEC` from the repository root.
"""

import datetime
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "interop", "reference", "lib"))
from peers import MotoS3, TempDir  # noqa: E402

RANKS = 3
ROWS = 6_000_000
DAYS = 31
VEND_TTL = 1
TOKEN_TTL = 3
CLIENT_SECRET = "client-secret-of-the-test-0042"
MPI_ENV = {"OMPI_MCA_btl": "self,vader", "OMPI_MCA_pml": "ob1", "OMPI_MCA_mtl": "^ofi"}


class Failure(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failure(message)


class Server:
    """`floe catalog serve` with its stderr collected line by line."""

    def __init__(self, floe, config, home):
        env = dict(os.environ, FLOE_CONFIG=config, HOME=home)
        self.proc = subprocess.Popen(
            [floe, "catalog", "serve", "--catalog", "lake", "--listen", "127.0.0.1:0",
             "--credential", f"app:{CLIENT_SECRET}", "--token-ttl", str(TOKEN_TTL),
             "--vend-credentials", "--vend-role-arn", os.environ["FLOE_TEST_ROLE_ARN"],
             "--vend-ttl", str(VEND_TTL)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.uri = self.proc.stdout.readline().strip()
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.uri.startswith("http://127.0.0.1:"):
            self.stop()
            raise Failure(f"the server did not start: {self.uri!r} {self.lines}")

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=5)

    def events(self, pattern):
        """The times (seconds since the epoch) of the log lines matching `pattern`."""
        out = []
        for line in self.lines:
            if re.search(pattern, line):
                stamp = line.split(" ", 1)[0]
                when = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ")
                out.append(when.replace(tzinfo=datetime.timezone.utc).timestamp())
        return out


def floe_sql(mpiexec, floe, env, statements):
    args = [mpiexec, "-np", str(RANKS), "--oversubscribe", floe, "sql", "--catalog", "lake",
            "--format", "csv"]
    for statement in statements:
        args += ["-c", statement]
    start = time.time()
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    end = time.time()
    output = run.stdout + run.stderr
    expect(run.returncode == 0, f"mpirun exited with {run.returncode}:\n{output}")
    return output, start, end


def main():
    floe, mpiexec = (os.path.abspath(a) if os.path.exists(a) else a for a in sys.argv[1:])
    with TempDir("floe-rest-vended-") as tmp, MotoS3() as s3:
        os.environ["FLOE_TEST_ROLE_ARN"] = s3.role_arn
        server_home = os.path.join(tmp, "server")
        client_home = os.path.join(tmp, "client")
        os.makedirs(server_home)
        os.makedirs(client_home)
        # An empty file is an empty SQLite database: the catalog makes its tables in it.
        open(os.path.join(server_home, "catalog.db"), "w").close()
        server_config = os.path.join(server_home, "floe.yaml")
        with open(server_config, "w") as f:
            f.write("catalog:\n  lake:\n    type: sql\n"
                    f"    uri: sqlite:{os.path.join(server_home, 'catalog.db')}\n"
                    f"    warehouse: s3://{s3.bucket}/vended\n")
            for key, value in s3.floe_properties().items():
                f.write(f"    {key}: {value}\n")
        server = Server(floe, server_config, server_home)
        try:
            client_config = os.path.join(client_home, "floe.yaml")
            with open(client_config, "w") as f:
                f.write(f"catalog:\n  lake:\n    type: rest\n    uri: {server.uri}\n"
                        f"    credential: app:{CLIENT_SECRET}\n")
            env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
            env.update(MPI_ENV, FLOE_CONFIG=client_config, HOME=client_home)

            outputs = []
            out, _, _ = floe_sql(mpiexec, floe, env, [
                "CREATE SCHEMA db",
                "CREATE TABLE db.t (id bigint, day date, payload varchar) "
                "WITH (partitioning = 'day(day)')"])
            outputs.append(out)
            out, start, end = floe_sql(mpiexec, floe, env, [
                f"INSERT INTO db.t SELECT g, DATE '2026-01-01' + CAST(g % {DAYS} AS int), "
                f"md5(CAST(g AS varchar)) FROM generate_series(1, {ROWS}) s(g)"])
            outputs.append(out)
            took = end - start
            expect(took > 2 * VEND_TTL,
                   f"the INSERT took {took:.1f} s, not longer than two credential lifetimes "
                   f"({2 * VEND_TTL} s): make it longer")
            vends = [t for t in server.events(r"vended storage credentials for table db\.t")
                     if start <= t <= end]
            expect(len(vends) >= 2,
                   f"{len(vends)} vends for db.t while the {took:.1f} s INSERT ran:\n"
                   + "\n".join(server.lines[-20:]))
            renewed = [t for t in server.events(r"db\.t \(credentials endpoint")
                       if start <= t <= end]
            expect(renewed, "the credentials endpoint was not asked during the INSERT")

            out, _, _ = floe_sql(mpiexec, floe, env, [
                "SELECT count(*), sum(id), count(DISTINCT day), min(day), max(day) FROM db.t",
                "SELECT count(*) FROM db.\"t$snapshots\"",
                "SELECT count(*) FROM db.\"t$files\" WHERE file_path LIKE "
                f"'s3://{s3.bucket}/vended/db/t/data/day_day=2026-01-__/%.parquet'",
                "SELECT count(*) FROM db.\"t$files\"",
                "EXPLAIN ANALYZE SELECT count(*) FROM db.t WHERE payload LIKE 'a%'"])
            outputs.append(out)
            total = ROWS * (ROWS + 1) // 2
            expect(f"{ROWS},{total},{DAYS},2026-01-01,2026-01-31" in out.splitlines(),
                   f"the rows read back:\n{out}")
            counts = [line for line in out.splitlines() if re.fullmatch(r"\d+", line)]
            expect(len(counts) >= 3 and counts[0] == "1", f"snapshots after one INSERT:\n{out}")
            expect(counts[1] == counts[2] and int(counts[1]) >= DAYS,
                   f"data files not all in day partitions under the table's location:\n{out}")
            for rank in range(RANKS):
                expect(re.search(rf"rank {rank}: tasks=[1-9]\d* rows=[1-9]", out),
                       f"EXPLAIN ANALYZE shows no scan on rank {rank}:\n{out}")
            grants = server.events(r"granted a token to client 'app'")
            expect(len(grants) >= 2, f"{len(grants)} token grants in the session")
            for text in outputs + ["\n".join(server.lines)]:
                expect(CLIENT_SECRET not in text, "the client secret was printed")
                expect(s3.secret_access_key not in text, "the S3 secret was printed")
            print(f"ok: INSERT of {ROWS} rows in {took:.1f} s, {len(vends)} vends during it "
                  f"({len(renewed)} from the credentials endpoint), {len(grants)} token grants")
        finally:
            server.stop()


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print(f"FAIL: {e}", flush=True)
        sys.exit(1)
