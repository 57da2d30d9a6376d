CREATE TABLE p (k int, v text, ts timestamptz) WITH (partitioning = 'bucket(3, k), hour(ts)');
INSERT INTO p SELECT i, repeat('v', i % 5), TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * interval '37 minutes' FROM generate_series(1, 40) AS g(i);
SELECT k, v FROM p WHERE ts < '2024-01-01 05:00:00+00' ORDER BY k;
SELECT * FROM "p$snapshots";
