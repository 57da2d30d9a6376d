"""Row-level changes against PostgreSQL 15: DELETE, UPDATE and MERGE sequences applied to the
same tables in PostgreSQL (a server of the driver's own) and in floe; after every statement
the command tag ("DELETE 3") and the full table contents must agree.

PostgreSQL is the oracle: each sequence runs there first, and its tags and rows become a
sqllogictest file that floe then runs three ways: in one process, with every stage through
the plan codec, and under `mpirun -np 3`. Every sequence runs over tables partitioned by
every transform (and unpartitioned), in both of Iceberg's strategies (copy-on-write and
merge-on-read), in format versions 2 (position delete files) and 3 (deletion vectors). A statement PostgreSQL refuses must fail in floe too,
and leave the table as it was.

usage: row_level_differential.py FLOE_BINARY
"""

import itertools
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from postgres import PostgresServer  # noqa: E402

COLUMNS = "id int NOT NULL, k int, s text, d date, ts timestamp, amount numeric(10,2)"
COLUMN_NAMES = ["id", "k", "s", "d", "ts", "amount"]

# Every transform over the columns above, and no partitioning.
PARTITIONINGS = [
    "",
    "k",
    "bucket(4, id)",
    "truncate(2, s)",
    "year(d)",
    "month(d)",
    "day(ts)",
    "hour(ts)",
    "bucket(3, k), truncate(10, amount)",
    "void(k), month(ts)",
]

ROWS = """INSERT INTO t VALUES
  (1, 10, 'apple', DATE '2024-01-05', TIMESTAMP '2024-01-05 10:00:00', 1.50),
  (2, 20, 'banana', DATE '2024-02-10', TIMESTAMP '2024-02-10 11:30:00', 2.25),
  (3, NULL, 'cherry', DATE '2023-12-31', TIMESTAMP '2023-12-31 23:59:59', NULL),
  (4, 10, NULL, NULL, NULL, 100.00),
  (5, 30, 'apricot', DATE '2024-02-29', TIMESTAMP '2024-02-29 00:00:00', -3.75),
  (6, 20, 'blueberry', DATE '2025-06-01', TIMESTAMP '2025-06-01 12:00:00', 0.00),
  (7, NULL, '', DATE '2024-01-05', TIMESTAMP '2024-01-05 10:59:59', 7.00),
  (8, 40, 'date', DATE '2022-07-04', TIMESTAMP '2022-07-04 04:04:04', 8.80)"""

MORE_ROWS = """INSERT INTO t VALUES
  (9, 50, 'elder', DATE '2024-03-01', TIMESTAMP '2024-03-01 01:00:00', 9.90),
  (10, 10, 'fig', DATE '2024-01-06', TIMESTAMP '2024-01-06 06:00:00', NULL)"""

SOURCE = "CREATE TABLE src (id int, k int, s text)"
SOURCE_ROWS = """INSERT INTO src VALUES (1, 11, 'one'), (3, NULL, 'three'), (5, 55, NULL),
  (11, 111, 'eleven'), (12, NULL, 'twelve'), (NULL, 99, 'nobody')"""

# The statements, in order, applied to the table after ROWS (one sequence per list).
SEQUENCES = {
    "delete": [
        "DELETE FROM t WHERE id = 2",
        "DELETE FROM t WHERE k IS NULL",
        "DELETE FROM t WHERE s LIKE 'a%' OR amount > 50",
        "DELETE FROM t WHERE id = 1000",
        MORE_ROWS,
        "DELETE FROM t WHERE d < DATE '2024-01-06'",
        "DELETE FROM t WHERE id IN (SELECT id FROM src WHERE k IS NOT NULL)",
        "DELETE FROM t WHERE EXISTS (SELECT 1 FROM src WHERE src.id + 5 = t.id)",
        "DELETE FROM t WHERE amount = (SELECT max(amount) FROM t)",
        "DELETE FROM t AS x USING src WHERE x.k = src.k - 1",
        "DELETE FROM t WHERE true",
    ],
    "update": [
        "UPDATE t SET s = upper(s) WHERE id <= 3",
        "UPDATE t SET k = NULL WHERE k = 20",
        "UPDATE t SET k = coalesce(k, 0) + 1, amount = amount * 2 WHERE amount IS NOT NULL",
        "UPDATE t SET d = d + 400, ts = ts + INTERVAL '1 day 2 hours' WHERE id % 2 = 0",
        "UPDATE t SET s = NULL, d = NULL WHERE s = ''",
        "UPDATE t SET id = id + 100 WHERE id = 1000",
        MORE_ROWS,
        "UPDATE t SET (k, s) = (k * 10, s || '!') WHERE id IN (SELECT id FROM src)",
        "UPDATE t SET s = src.s FROM src WHERE src.id = t.id AND src.s IS NOT NULL",
        "UPDATE t AS x SET amount = 0 WHERE NOT EXISTS (SELECT 1 FROM src WHERE src.id = x.id)",
        "UPDATE t SET k = NULL WHERE k = (SELECT min(k) FROM t)",
        "UPDATE t SET id = NULL WHERE id = 4",
        "UPDATE t SET s = s || s",
    ],
    "merge": [
        """MERGE INTO t USING src ON t.id = src.id
           WHEN MATCHED AND src.k IS NULL THEN DELETE
           WHEN MATCHED THEN UPDATE SET k = src.k, s = coalesce(src.s, t.s)
           WHEN NOT MATCHED AND src.id IS NOT NULL THEN INSERT (id, k, s) VALUES (src.id, src.k, src.s)""",
        """MERGE INTO t AS x USING (SELECT id, k FROM src WHERE id IS NOT NULL) AS y ON x.k = y.k
           WHEN MATCHED THEN UPDATE SET amount = 42
           WHEN NOT MATCHED THEN DO NOTHING""",
        """MERGE INTO t USING (VALUES (2, 'two'), (6, 'six'), (20, 'twenty')) AS v(id, s) ON t.id = v.id
           WHEN NOT MATCHED THEN INSERT VALUES (v.id, NULL, v.s, DATE '2030-01-01', NULL, 1)
           WHEN MATCHED AND t.k > 15 THEN UPDATE SET d = DATE '2031-12-31', k = t.k + 1
           WHEN MATCHED THEN DELETE""",
        MORE_ROWS,
        """MERGE INTO t USING src ON t.id = src.id AND src.id > 100
           WHEN NOT MATCHED THEN DO NOTHING""",
        """MERGE INTO t USING (SELECT 1 AS id UNION ALL SELECT 1) AS dup ON t.id = dup.id
           WHEN MATCHED THEN UPDATE SET k = 0""",
        """MERGE INTO t USING (SELECT 9 AS id, 5 AS n UNION ALL SELECT 9, 6) AS dup ON t.id = dup.id
           WHEN MATCHED AND dup.n > 100 THEN DELETE""",
        """MERGE INTO t USING (SELECT id FROM t) AS all_rows ON t.id = all_rows.id
           WHEN MATCHED AND t.id % 3 = 0 THEN DELETE
           WHEN MATCHED THEN UPDATE SET s = 'kept'""",
        "UPDATE t SET k = NULL WHERE id = 2",
        "UPDATE t SET id = NULL",
    ],
}

MODES = ["copy-on-write", "merge-on-read"]
VERSIONS = [2, 3]


def slt_value(value):
    if value is None:
        return "NULL"
    if value == "":
        return "(empty)"
    return value


def contents_query():
    return "SELECT " + ", ".join(f"{c}::text" for c in COLUMN_NAMES) + " FROM t"


def pg_rows(pg, conn):
    with conn.cursor() as cur:
        cur.execute(contents_query())
        return sorted(" ".join(slt_value(v) for v in row) for row in cur.fetchall())


def pg_execute(conn, sql):
    """Runs one statement; returns (tag, None) or (None, error message)."""
    import psycopg2

    with conn.cursor() as cur:
        try:
            cur.execute(sql)
            conn.commit()
            return cur.statusmessage, None
        except psycopg2.Error as e:
            conn.rollback()
            return None, e.pgerror.splitlines()[0] if e.pgerror else str(e)


def check_records(rows):
    out = ["query " + "T" * len(COLUMN_NAMES) + " rowsort", contents_query(), "----"]
    out.extend(rows)
    return "\n".join(out) + "\n"


def table_options(partitioning, mode, version=2):
    options = [f"format_version = {version}"]
    if partitioning:
        options.append(f"partitioning = '{partitioning}'")
    for command in ("delete", "update", "merge"):
        options.append(f'"write.{command}.mode" = \'{mode}\'')
    return ", ".join(options)


def build_file(pg, name, statements):
    """The sqllogictest text of one sequence over every partitioning and mode, with
    PostgreSQL's tags and rows; also returns the number of statements."""
    import psycopg2

    conn = psycopg2.connect(host="127.0.0.1", port=pg.port, user="floe",
                            password="pg-ref-pw-2b9d", dbname="postgres")
    parts = [f"# Generated from PostgreSQL 15 by row_level_differential.py: sequence {name}.\n"]
    # PostgreSQL's answers do not depend on the partitioning: compute them once.
    for sql in ("DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS src", f"CREATE TABLE t ({COLUMNS})",
                SOURCE, SOURCE_ROWS, ROWS):
        tag, error = pg_execute(conn, sql)
        if error:
            raise RuntimeError(f"PostgreSQL refused setup statement {sql!r}: {error}")
    steps = [(None, None, None, pg_rows(pg, conn))]
    for sql in statements:
        tag, error = pg_execute(conn, sql)
        steps.append((sql, tag, error, pg_rows(pg, conn)))
    conn.close()
    count = 0
    for partitioning, mode, version in itertools.product(PARTITIONINGS, MODES, VERSIONS):
        parts.append(f"# partitioning '{partitioning}', {mode}, v{version}\n")
        parts.append("statement ok\nDROP TABLE IF EXISTS t\n")
        parts.append("statement ok\nDROP TABLE IF EXISTS src\n")
        parts.append(f"statement ok\nCREATE TABLE t ({COLUMNS}) WITH "
                     f"({table_options(partitioning, mode, version)})\n")
        parts.append(f"statement ok\n{SOURCE}\n")
        parts.append(f"statement ok\n{SOURCE_ROWS}\n")
        parts.append(f"statement ok\n{ROWS}\n")
        for sql, tag, error, rows in steps:
            if sql is not None:
                count += 1
                if error is not None:
                    expected = error.split(":", 1)[1].strip() if error.startswith(
                        "ERROR:") else error
                    # Messages floe words as PostgreSQL does; others must only fail.
                    known = "MERGE command cannot affect row a second time"
                    parts.append(f"statement error {known if known in expected else ''}"
                                 .rstrip() + f"\n{sql}\n")
                elif tag.startswith("INSERT"):
                    parts.append(f"statement ok\n{sql}\n")
                else:
                    parts.append(f"statement tag {tag}\n{sql}\n")
            parts.append(check_records(rows))
    return "\n".join(parts), count


def run(cmd, env=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    return proc.returncode, proc.stdout + proc.stderr


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    floe = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="floe-row-level-")
    failures = []
    try:
        files = []
        with PostgresServer() as pg:
            for name, statements in SEQUENCES.items():
                text, count = build_file(pg, name, statements)
                path = os.path.join(work, f"row_level_{name}.test")
                with open(path, "w") as f:
                    f.write(text)
                files.append(path)
                print(f"sequence {name}: {count} statements checked per run")
        mpi_env = dict(os.environ)
        mpi_env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                        "OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self,vader",
                        "OMPI_MCA_mtl": "^ofi"})
        runs = [
            ("one process", [floe, "sqllogictest"], None),
            ("through the plan codec", [floe, "sqllogictest", "--set", "codec_roundtrip=on"],
             None),
            ("mpirun -np 3", ["mpirun", "-np", "3", "--oversubscribe", floe, "sqllogictest"],
             mpi_env),
        ]
        for label, command, env in runs:
            code, output = run(command + files, env)
            tail = output.strip().splitlines()[-1] if output.strip() else ""
            print(f"{label}: {tail}")
            if code != 0:
                failures.append(f"{label}:\n{output}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
