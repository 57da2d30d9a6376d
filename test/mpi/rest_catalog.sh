#!/usr/bin/env bash
# A REST catalog under mpirun: Apache Iceberg's REST catalog test server (started here on
# 127.0.0.1, stopped on exit) serves the catalog; `mpirun -np 2 floe sql --catalog
# http://...` creates a day-partitioned table, inserts in parallel (one snapshot, committed
# by rank 0 over REST) and reads the rows back, rank 1 reading its share.
# usage: rest_catalog.sh FLOE_BINARY MPIEXEC
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$root/test/mpi/lib.sh"
jars="$root/.deps/jars/rest-server"
ls "$jars"/iceberg-open-api-*.jar >/dev/null 2>&1 ||
  fail "Iceberg's REST catalog test server is not installed (run scripts/install-deps)"

java_pid=""
stop_server() { [ -z "$java_pid" ] || { kill "$java_pid" 2>/dev/null; wait "$java_pid" 2>/dev/null || true; }; }
trap 'stop_server; rm -rf "$scratch"' EXIT
mkdir rest-warehouse
# A free port can be taken by another test between the probe and the server's bind: then
# the server is started again on another.
for _attempt in 1 2 3; do
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  CATALOG_REST_PORT="$port" CATALOG_WAREHOUSE="$scratch/rest-warehouse" \
    CATALOG_URI="jdbc:sqlite:$scratch/rest-catalog.db" CATALOG_JDBC_SCHEMA__VERSION=V1 \
    java -Xshare:auto -XX:TieredStopAtLevel=1 -cp "$jars/*" \
    "$root/test/tools/rest_catalog_server/RestCatalogServerLocal.java" >server.log 2>&1 &
  java_pid=$!
  for _ in $(seq 600); do
    grep -qx ready server.log && break
    kill -0 "$java_pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -qx ready server.log && break
  stop_server
  java_pid=""
  grep -q "Address already in use" server.log || break
done
grep -qx ready server.log || { cat server.log; fail "the REST catalog server did not start"; }

run_status timeout 180 "$mpiexec" -np 2 "$floe" sql --catalog "http://127.0.0.1:$port" \
  --format csv -c "CREATE SCHEMA db" \
  -c "CREATE TABLE db.t (id bigint, day date) WITH (partitioning = 'day(day)')" \
  -c "INSERT INTO db.t SELECT g, DATE '2024-01-01' + CAST(g % 5 AS int) FROM generate_series(1, 100000) s(g)" \
  -c "SELECT count(*), sum(id), count(DISTINCT day) FROM db.t" \
  -c "SELECT count(*) FROM db.\"t\$snapshots\"" \
  -c "EXPLAIN ANALYZE SELECT day, count(*) FROM db.t GROUP BY day"
[ "$code" -eq 0 ] || fail "mpirun exited with $code"
grep -qx '100000,5000050000,5' out.txt || fail "the rows read back"
[ "$(sed -n '/^count$/{n;p}' out.txt | tail -1)" = "1" ] || fail "snapshots after one INSERT"
grep -Eq 'rank 1: tasks=[1-9][0-9]* rows=[1-9]' out.txt || fail "EXPLAIN ANALYZE shows no work on rank 1"
# The data files are in the server's warehouse, in day partitions.
files="$(find rest-warehouse -path '*/db/t/data/*' -name '*.parquet' | wc -l)"
[ "$files" -ge 5 ] || fail "$files data files in the server's warehouse"
echo "ok"
