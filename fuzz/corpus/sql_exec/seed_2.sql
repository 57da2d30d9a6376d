CREATE TEMP TABLE x AS SELECT i, i::text AS s, i * 1.5 AS n FROM generate_series(1, 50) AS g(i);
INSERT INTO x SELECT i + 100, NULL, NULL FROM generate_series(1, 5) AS g(i);
DELETE FROM x WHERE i % 3 = 0;
SELECT count(*), sum(n), string_agg(s, ',' ORDER BY i) FROM x;
