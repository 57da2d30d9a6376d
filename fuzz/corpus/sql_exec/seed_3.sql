SET batch_size = 3;
SELECT q1, q2, q1 * 2, q1 / NULLIF(q2, 0), q1 % 7 FROM int8_tbl ORDER BY q2 LIMIT 4 OFFSET 1;
