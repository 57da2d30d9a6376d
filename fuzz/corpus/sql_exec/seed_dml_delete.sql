DELETE FROM t WHERE a > 1 AND _pos >= 0;
DELETE FROM t USING u WHERE t.a = u.a;
SELECT a, _file IS NOT NULL, _spec_id, _partition FROM t ORDER BY h;
