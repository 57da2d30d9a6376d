// The tables the interop suite writes with DuckDB: every type floe maps, with NULLs,
// extreme values, NaN and infinities, empty strings and lists, nested values, 1 MiB
// strings, all-null columns, columns without NULLs, and empty results.

/// Rows of the generated tables; small row groups make several row groups per file.
export const kRows = 6000;
export const kRowGroupRows = 2048;

const scalarColumns = (n) => `
  i::INTEGER AS id,
  CASE WHEN i % 7 = 3 THEN NULL ELSE i % 2 = 0 END AS c_bool,
  (CASE WHEN i % 7 = 4 THEN NULL WHEN i % 50 = 0 THEN -128 WHEN i % 50 = 1 THEN 127
        ELSE i % 200 - 100 END)::TINYINT AS c_i8,
  (CASE WHEN i % 7 = 5 THEN NULL WHEN i % 50 = 0 THEN -32768 WHEN i % 50 = 1 THEN 32767
        ELSE i * 3 % 60000 - 30000 END)::SMALLINT AS c_i16,
  (CASE WHEN i % 7 = 6 THEN NULL WHEN i % 50 = 0 THEN -2147483648 WHEN i % 50 = 1 THEN 2147483647
        ELSE i * 7919 - 1000000 END)::INTEGER AS c_i32,
  (CASE WHEN i % 7 = 0 THEN NULL WHEN i % 50 = 0 THEN -9223372036854775808
        WHEN i % 50 = 1 THEN 9223372036854775807 ELSE i::BIGINT * 1000000007 - 5 END)::BIGINT AS c_i64,
  (CASE WHEN i % 11 = 3 THEN NULL WHEN i % 50 = 2 THEN 'nan' WHEN i % 50 = 3 THEN 'inf'
        WHEN i % 50 = 4 THEN '-inf' WHEN i % 50 = 5 THEN '-0.0' WHEN i % 50 = 6 THEN '3.4028235e38'
        WHEN i % 50 = 7 THEN '1.4e-45' ELSE (i / 7.0)::VARCHAR END)::FLOAT AS c_f32,
  (CASE WHEN i % 11 = 4 THEN NULL WHEN i % 50 = 2 THEN 'nan' WHEN i % 50 = 3 THEN 'inf'
        WHEN i % 50 = 4 THEN '-inf' WHEN i % 50 = 5 THEN '-0.0'
        WHEN i % 50 = 6 THEN '1.7976931348623157e308' WHEN i % 50 = 7 THEN '5e-324'
        ELSE (i / 3.0 - 1000)::VARCHAR END)::DOUBLE AS c_f64,
  (CASE WHEN i % 13 = 1 THEN NULL WHEN i % 50 = 0 THEN -99.99 WHEN i % 50 = 1 THEN 99.99
        ELSE (i % 9999 - 5000) / 100 END)::DECIMAL(4,2) AS c_dec4,
  (CASE WHEN i % 13 = 2 THEN NULL WHEN i % 50 = 0 THEN -999999.999 WHEN i % 50 = 1 THEN 999999.999
        ELSE (i * 37 - 100000) / 1000 END)::DECIMAL(9,3) AS c_dec9,
  (CASE WHEN i % 13 = 3 THEN NULL WHEN i % 50 = 0 THEN -9999999999999999.99::DECIMAL(18,2)
        WHEN i % 50 = 1 THEN 9999999999999999.99::DECIMAL(18,2)
        ELSE (i::DECIMAL(18,2) * 12345.67 - 1000000) END)::DECIMAL(18,2) AS c_dec18,
  (CASE WHEN i % 13 = 4 THEN NULL
        WHEN i % 50 = 0 THEN '-9999999999999999999999999999.9999999999'::DECIMAL(38,10)
        WHEN i % 50 = 1 THEN '9999999999999999999999999999.9999999999'::DECIMAL(38,10)
        ELSE i::DECIMAL(38,10) * 123456789.0123456789 - 17 END)::DECIMAL(38,10) AS c_dec38,
  (CASE WHEN i % 17 = 1 THEN NULL WHEN i % 50 = 0 THEN DATE '0001-01-01'
        WHEN i % 50 = 1 THEN DATE '9999-12-31' WHEN i % 50 = 2 THEN DATE '1969-12-31'
        ELSE DATE '1970-01-01' + (i * 37 - 100000)::INTEGER END) AS c_date,
  (CASE WHEN i % 17 = 2 THEN NULL WHEN i % 50 = 0 THEN TIME '00:00:00'
        WHEN i % 50 = 1 THEN TIME '23:59:59.999999'
        ELSE TIME '00:00:00' + INTERVAL (i * 1234567 % 86400000000) MICROSECONDS END) AS c_time,
  (CASE WHEN i % 17 = 3 THEN NULL WHEN i % 50 = 0 THEN TIMESTAMP '0001-01-01 00:00:00'
        WHEN i % 50 = 1 THEN TIMESTAMP '9999-12-31 23:59:59.999999'
        WHEN i % 50 = 2 THEN TIMESTAMP '1969-12-31 23:59:59.999999'
        ELSE TIMESTAMP '2000-01-01' + INTERVAL (i::BIGINT * 98765432109 - 100000000000000) MICROSECONDS
   END) AS c_ts,
  (CASE WHEN i % 17 = 4 THEN NULL WHEN i % 50 = 0 THEN TIMESTAMPTZ '0001-01-01 00:00:00+00'
        WHEN i % 50 = 1 THEN TIMESTAMPTZ '9999-12-31 23:59:59.999999+00'
        ELSE TIMESTAMPTZ '2024-02-29 12:00:00+00' + INTERVAL (i::BIGINT * 1234567891 - 5000000000000) MICROSECONDS
   END) AS c_tstz,
  (CASE WHEN i % 17 = 5 THEN NULL WHEN i % 50 = 0 THEN '1677-09-22 00:00:00.000000001'::TIMESTAMP_NS
        WHEN i % 50 = 1 THEN '2262-04-11 23:47:16.854775806'::TIMESTAMP_NS
        ELSE ('2020-01-01'::TIMESTAMP_NS + INTERVAL (i::BIGINT * 987654321 - 3000000000000) MICROSECONDS)
   END)::TIMESTAMP_NS AS c_tsns,
  (CASE WHEN i % 19 = 1 THEN NULL WHEN i % 50 = 0 THEN '' WHEN i % 50 = 1 THEN 'héllo wörld ✓ 𝄞 中文'
        WHEN i % 50 = 2 THEN 'quote " backslash \\ newline ' || chr(10) || ' tab ' || chr(9) || ' nul-free'
        WHEN i % 50 = 3 THEN repeat('long-ish ', 300)
        ELSE 'v' || (i % 400)::VARCHAR END) AS c_str,
  (CASE WHEN i % 19 = 2 THEN NULL WHEN i % 50 = 0 THEN ''::BLOB WHEN i % 50 = 1 THEN '\\x00\\xFF\\x80\\x7F'::BLOB
        ELSE ('b' || (i % 300)::VARCHAR)::BLOB END) AS c_blob,
  (CASE WHEN i % 19 = 3 THEN NULL WHEN i % 50 = 0 THEN '00000000-0000-0000-0000-000000000000'::UUID
        WHEN i % 50 = 1 THEN 'ffffffff-ffff-ffff-ffff-ffffffffffff'::UUID
        ELSE md5(i::VARCHAR)::UUID END) AS c_uuid
  FROM range(${n}) t(i)`;

const nestedColumns = (n) => `
  i::INTEGER AS id,
  CASE WHEN i % 11 = 0 THEN NULL
       ELSE {'a': i::INTEGER, 'b': CASE WHEN i % 5 = 0 THEN NULL ELSE 's' || i END,
             'c': CASE WHEN i % 3 = 0 THEN NULL ELSE i * 1.5 END::DOUBLE} END AS c_struct,
  CASE WHEN i % 13 = 0 THEN NULL WHEN i % 13 = 1 THEN []::BIGINT[]
       ELSE [i::BIGINT, NULL, i * 2, -i][1:(i % 5)] END AS c_list_i64,
  CASE WHEN i % 13 = 2 THEN NULL WHEN i % 13 = 3 THEN []::VARCHAR[]
       ELSE ['x' || i, '', NULL, repeat('y', i % 40)][1:(i % 5)] END AS c_list_str,
  CASE WHEN i % 17 = 0 THEN NULL WHEN i % 17 = 1 THEN MAP {}::MAP(VARCHAR, INTEGER)
       WHEN i % 17 = 2 THEN MAP {'only': NULL::INTEGER}
       ELSE MAP {'k' || i: i::INTEGER, 'z': (i % 9)::INTEGER} END AS c_map,
  CASE WHEN i % 19 = 0 THEN NULL WHEN i % 19 = 1 THEN []
       ELSE [{'x': i::INTEGER, 'y': ['p' || i, NULL]},
             {'x': NULL, 'y': []::VARCHAR[]},
             {'x': -i::INTEGER, 'y': NULL},
             NULL][1:(i % 5)] END AS c_nested,
  CASE WHEN i % 23 = 0 THEN NULL
       ELSE {'inner': {'d': DATE '2020-01-01' + i::INTEGER, 'ts': TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND},
             'tags': CASE WHEN i % 2 = 0 THEN NULL ELSE [i % 3, i % 5]::SMALLINT[] END} END AS c_struct2,
  CASE WHEN i % 29 = 0 THEN NULL
       ELSE [[i::INTEGER, i + 1], [], NULL, [NULL]][1:(i % 5)] END AS c_list_list,
  CASE WHEN i % 31 = 0 THEN NULL
       ELSE [(i / 4.0)::DECIMAL(9,3), NULL, -123456.789::DECIMAL(9,3)][1:(i % 2 + 1)] END AS c_list_dec
  FROM range(${n}) t(i)`;

/// A table name -> SQL that creates it in DuckDB. Each has an `id` column the files are
/// sorted by.
export function datasetSql() {
  return {
    scalars: `CREATE TABLE scalars AS SELECT ${scalarColumns(kRows)}`,
    nested: `CREATE TABLE nested AS SELECT ${nestedColumns(kRows)}`,
    // Columns without NULLs (DuckDB writes every column OPTIONAL, even NOT NULL ones;
    // REQUIRED columns come from the Iceberg fixtures, written by Spark and others).
    no_nulls: `CREATE TABLE no_nulls (id INTEGER NOT NULL, a BIGINT NOT NULL, s VARCHAR NOT NULL,
                 d DOUBLE NOT NULL, dec DECIMAL(18,2) NOT NULL, ts TIMESTAMP NOT NULL,
                 l INTEGER[] NOT NULL, st STRUCT(x INTEGER, y VARCHAR) NOT NULL);
               INSERT INTO no_nulls SELECT i, i * 3, 'r' || i, i / 2, i * 1.25,
                 TIMESTAMP '2021-06-01' + INTERVAL (i) MINUTE, [i, i + 1], {'x': i, 'y': 'y' || i}
               FROM range(${kRows}) t(i)`,
    long_strings: `CREATE TABLE long_strings AS SELECT i::INTEGER AS id,
                     CASE WHEN i % 3 = 1 THEN NULL ELSE repeat(chr(97 + i::INTEGER), 1048576 + i) END AS s,
                     CASE WHEN i % 3 = 2 THEN NULL ELSE repeat('\\xAB', 262144 + i)::BLOB END AS b,
                     CASE WHEN i % 4 = 0 THEN NULL ELSE [repeat('q', 300000), 'short'] END AS l
                   FROM range(8) t(i)`,
    all_null: `CREATE TABLE all_null AS SELECT i::INTEGER AS id,
                 NULL::BOOLEAN AS c_bool, NULL::TINYINT AS c_i8, NULL::SMALLINT AS c_i16,
                 NULL::INTEGER AS c_i32, NULL::BIGINT AS c_i64, NULL::FLOAT AS c_f32,
                 NULL::DOUBLE AS c_f64, NULL::DECIMAL(4,2) AS c_dec4, NULL::DECIMAL(9,3) AS c_dec9,
                 NULL::DECIMAL(18,2) AS c_dec18, NULL::DECIMAL(38,10) AS c_dec38, NULL::DATE AS c_date,
                 NULL::TIME AS c_time, NULL::TIMESTAMP AS c_ts, NULL::TIMESTAMPTZ AS c_tstz,
                 NULL::TIMESTAMP_NS AS c_tsns, NULL::VARCHAR AS c_str, NULL::BLOB AS c_blob,
                 NULL::UUID AS c_uuid, NULL::STRUCT(a INTEGER, b VARCHAR) AS c_struct,
                 NULL::BIGINT[] AS c_list, NULL::MAP(VARCHAR, INTEGER) AS c_map
               FROM range(${kRows}) t(i)`,
    empty_scalars: `CREATE TABLE empty_scalars AS SELECT ${scalarColumns(0)}`,
    empty_nested: `CREATE TABLE empty_nested AS SELECT ${nestedColumns(0)}`,
  };
}

/// DuckDB COPY codec names and the names `floe parquet copy --compression` takes.
export const kDuckCodecs = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'brotli'];
export const kFloeCodecs = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'brotli'];

/// Writes table `name` to `file` with DuckDB.
export async function writeWithDuckDB(db, name, file, { codec = 'zstd', version = 'V1' } = {}) {
  const v = version === 'V2' ? ', PARQUET_VERSION V2' : '';
  await db.conn.run(`COPY (SELECT * FROM ${name} ORDER BY id) TO '${file.replaceAll("'", "''")}'
      (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE ${kRowGroupRows}${v})`);
}
