"""Scans from S3 against scans from local files: TPC-H-shaped lineitem written by floe into an
Iceberg table on local disk and into one on S3 (moto's server, authenticating, on this
host), the same queries over both, and moto's own ceiling: the table's data objects fetched
with as many parallel ranged GETs as floe has threads (boto3). Prints a markdown table.

usage: .deps/py/bin/python bench/s3_scan.py PATH_TO_FLOE LINEITEM.parquet [--runs N] [--threads T]
(lineitem.parquet: e.g. build/bench-data/tpch-sf1/lineitem.parquet, which bench/queries.sh
generates). Not part of ctest."""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "interop", "reference",
                                "lib"))
from peers import Floe, MotoS3  # noqa: E402

QUERIES = {
    "count(*) (manifests only)": "SELECT count(*) FROM db.lineitem",
    "2 columns, sum": "SELECT sum(l_extendedprice), sum(l_quantity) FROM db.lineitem",
    "Q6-shaped filter": "SELECT sum(l_extendedprice * l_discount) FROM db.lineitem "
                        "WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' "
                        "AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
    "every column": "SELECT count(DISTINCT l_comment), sum(l_orderkey), max(l_shipinstruct) "
                    "FROM db.lineitem",
}


def timed(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.monotonic()
        fn()
        times.append(time.monotonic() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("floe")
    ap.add_argument("lineitem")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="floe-s3-bench-")
    try:
        with MotoS3() as moto:
            open(os.path.join(tmp, "local.db"), "a").close()
            open(os.path.join(tmp, "s3.db"), "a").close()
            floe = Floe(os.path.abspath(args.floe), tmp, {
                "local": {"type": "sql", "uri": f"sqlite:///{tmp}/local.db",
                          "warehouse": f"{tmp}/wh"},
                "s3": {"type": "sql", "uri": f"sqlite:///{tmp}/s3.db",
                       "warehouse": f"s3://{moto.bucket}/wh", **moto.floe_properties()},
            })

            def run(catalog, sql):
                r = subprocess.run([floe.binary, "sql", "--catalog", catalog, "--threads",
                                    str(args.threads), "--format", "csv", "-c", sql],
                                   capture_output=True, text=True,
                                   env=dict(os.environ, FLOE_CONFIG=floe.config))
                if r.returncode != 0:
                    sys.exit(f"floe failed on {sql}: {r.stderr}")
                return r.stdout

            source = os.path.abspath(args.lineitem)
            writes = {}
            for catalog in ("local", "s3"):
                run(catalog, "CREATE SCHEMA db")
                t0 = time.monotonic()
                run(catalog, f"CREATE TABLE db.lineitem AS SELECT * FROM read_parquet('{source}')")
                writes[catalog] = time.monotonic() - t0
            rows = [("CREATE TABLE AS (write)", writes["local"], writes["s3"])]
            for name, sql in QUERIES.items():
                a = run("local", sql)
                b = run("s3", sql)
                if a != b:
                    sys.exit(f"{name}: the results differ:\n{a}\n{b}")
                rows.append((name, timed(lambda: run("local", sql), args.runs),
                             timed(lambda: run("s3", sql), args.runs)))

            # moto's ceiling: every data object of the S3 table in 8 MiB ranged GETs, as
            # many at once as floe has threads.
            import boto3

            s3 = boto3.client("s3", endpoint_url=moto.endpoint, region_name=moto.region,
                              aws_access_key_id=moto.access_key_id,
                              aws_secret_access_key=moto.secret_access_key)
            objects = [(o["Key"], o["Size"]) for page in
                       s3.get_paginator("list_objects_v2").paginate(
                           Bucket=moto.bucket, Prefix="wh/db/lineitem/data/")
                       for o in page.get("Contents", [])]
            ranges = [(k, off, min(size, off + (8 << 20)) - 1) for k, size in objects
                      for off in range(0, size, 8 << 20)]
            total = sum(size for _, size in objects)

            def fetch(r):
                key, first, last = r
                return len(s3.get_object(Bucket=moto.bucket, Key=key,
                                         Range=f"bytes={first}-{last}")["Body"].read())

            def fetch_all():
                with ThreadPoolExecutor(args.threads) as pool:
                    assert sum(pool.map(fetch, ranges)) == total
            ceiling = timed(fetch_all, args.runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"lineitem: {os.path.getsize(args.lineitem) / 1e6:.0f} MB source; the table's data "
          f"objects {total / 1e6:.0f} MB in {len(objects)} objects; {args.threads} threads, "
          f"median of {args.runs} runs, whole floe processes")
    print()
    print("| query | local s | S3 (moto) s | S3 / local |")
    print("|---|---|---|---|")
    for name, local, remote in rows:
        print(f"| {name} | {local:.2f} | {remote:.2f} | {remote / local:.2f} |")
    print(f"| moto's ceiling: all data objects, {args.threads} parallel 8 MiB GETs (boto3) | | "
          f"{ceiling:.2f} ({total / 1e6 / ceiling:.0f} MB/s) | |")


if __name__ == "__main__":
    main()
