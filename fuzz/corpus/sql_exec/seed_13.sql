SELECT count(*) FROM generate_series(1, 100000000) AS g(i);
