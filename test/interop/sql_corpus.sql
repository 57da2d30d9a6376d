-- Differential corpus: see test/interop/sql_differential.mjs for the format. Tables: t (1000
-- rows of every common type), u (300 join partners), e (empty), n (NULL keys), m (keys).

SELECT 1

SELECT 1 + 2, 3 - 5, 4 * 6, 7 % 3

SELECT 'abc', NULL, true, false

SELECT count(*) FROM {t}

SELECT id, g, a FROM {t} WHERE id <= 10 ORDER BY id

SELECT * FROM {t} WHERE id BETWEEN 100 AND 105 ORDER BY id

SELECT id FROM {t} WHERE g IS NULL ORDER BY id

SELECT id FROM {t} WHERE g IS NOT NULL AND id < 20 ORDER BY id

SELECT count(*) FROM {t} WHERE a > 0

SELECT count(*) FROM {t} WHERE a >= 0 AND b < 0

SELECT count(*) FROM {t} WHERE a > 0 OR b > 0

SELECT count(*) FROM {t} WHERE NOT (a > 0)

SELECT count(*) FROM {t} WHERE NOT (a > 0 OR b > 0)

SELECT count(*) FROM {t} WHERE a IS DISTINCT FROM NULL

SELECT count(*) FROM {t} WHERE g IS NOT DISTINCT FROM 3

SELECT count(*) FROM {t} WHERE g IS DISTINCT FROM 3

SELECT count(*) FROM {t} WHERE flag

SELECT count(*) FROM {t} WHERE NOT flag

SELECT count(*) FROM {t} WHERE flag IS TRUE

SELECT count(*) FROM {t} WHERE flag IS NOT TRUE

SELECT count(*) FROM {t} WHERE flag IS FALSE

SELECT count(*) FROM {t} WHERE flag IS NOT FALSE

SELECT count(*) FROM {t} WHERE flag IS UNKNOWN

SELECT count(*) FROM {t} WHERE flag = true AND g = 1

SELECT id, a + 1, a - 1, a * 2, -a FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, a % 7, a / 1000 FROM {t} WHERE id <= 20 ORDER BY id
-- differs: integer division: PostgreSQL's / on integers truncates, DuckDB's gives a double

SELECT id, b + 1.5, b * 2, b / 4, -b FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, d + 1, d - 0.25, d * 3, -d FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, d * d FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, a + d, b + d FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, g * 1000000000::bigint FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, abs(a), abs(b), abs(d) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id FROM {t} WHERE a IN (1, 2, 3) OR id IN (5, 6, 7) ORDER BY id

SELECT id FROM {t} WHERE g NOT IN (1, 2, 3, 4, 5) ORDER BY id

SELECT id FROM {t} WHERE g NOT IN (1, 2, NULL) ORDER BY id

SELECT count(*) FROM {t} WHERE g IN (1, NULL)

SELECT id, g IN (1, 2) AS x, g NOT IN (1, 2) AS y FROM {t} WHERE id BETWEEN 45 AND 55 ORDER BY id

SELECT id FROM {t} WHERE id NOT BETWEEN 3 AND 998 ORDER BY id

SELECT id FROM {t} WHERE id BETWEEN SYMMETRIC 10 AND 5 ORDER BY id
-- differs: DuckDB does not implement BETWEEN SYMMETRIC (expected: ids 5 to 10)

SELECT count(*) FROM {t} WHERE d BETWEEN -100 AND 100

SELECT count(*) FROM {t} WHERE b BETWEEN -1000.5 AND 1000.5

SELECT DISTINCT g FROM {t} ORDER BY g

SELECT DISTINCT g, flag FROM {t} ORDER BY g, flag

SELECT count(DISTINCT g) FROM {t}

SELECT id, CASE WHEN a > 0 THEN 'pos' WHEN a < 0 THEN 'neg' ELSE 'zero or null' END FROM {t} WHERE id <= 40 ORDER BY id

SELECT id, CASE g WHEN 1 THEN 'one' WHEN 2 THEN 'two' END FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, CASE WHEN g = 0 THEN 0 ELSE 100 / g END FROM {t} WHERE id <= 30 ORDER BY id
-- differs: integer division: PostgreSQL's / on integers truncates, DuckDB's gives a double

SELECT id, coalesce(g, -1), coalesce(s, 'none'), coalesce(NULL, a, 0) FROM {t} WHERE id <= 60 ORDER BY id

SELECT id, nullif(g, 3), nullif(s, '') FROM {t} WHERE id <= 40 ORDER BY id

SELECT id, greatest(g, 3), least(g, 3), greatest(a, b, d), least(1, g) FROM {t} WHERE id <= 60 ORDER BY id

SELECT id, g FROM {t} ORDER BY g DESC, id LIMIT 15

SELECT id, g FROM {t} ORDER BY g ASC NULLS FIRST, id LIMIT 15

SELECT id, g FROM {t} ORDER BY g DESC NULLS LAST, id DESC LIMIT 15

SELECT id, s FROM {t} ORDER BY s, id LIMIT 20

SELECT id, s FROM {t} ORDER BY s DESC, id LIMIT 20

SELECT id, b FROM {t} ORDER BY b, id LIMIT 10

SELECT id, d FROM {t} ORDER BY d DESC, id LIMIT 10

SELECT id, dt FROM {t} ORDER BY dt, id LIMIT 10

SELECT id, ts FROM {t} ORDER BY ts DESC, id LIMIT 10

SELECT id, flag FROM {t} ORDER BY flag, id LIMIT 10

SELECT id FROM {t} ORDER BY id LIMIT 5 OFFSET 10

SELECT id FROM {t} ORDER BY id DESC LIMIT 3 OFFSET 995

SELECT id FROM {t} ORDER BY id OFFSET 998

SELECT id FROM {t} ORDER BY id LIMIT 0

SELECT id, a FROM {t} ORDER BY a DESC, id LIMIT 7

SELECT id, g, a FROM {t} ORDER BY g, a DESC, id LIMIT 25

SELECT id * 2 AS twice FROM {t} ORDER BY twice DESC LIMIT 3

SELECT id, a FROM {t} ORDER BY 2, 1 LIMIT 5

SELECT id FROM {t} WHERE id < 10 ORDER BY -id

SELECT g, id FROM {t} WHERE id < 30 ORDER BY g NULLS FIRST, id DESC

SELECT count(*), count(g), count(a), count(b), count(d), count(s), count(dt), count(ts), count(flag) FROM {t}

SELECT sum(a), min(a), max(a) FROM {t}

SELECT sum(b), min(b), max(b) FROM {t}

SELECT sum(d), min(d), max(d) FROM {t}

SELECT avg(a), avg(b), avg(d), avg(g) FROM {t}

SELECT min(s), max(s) FROM {t}

SELECT min(dt), max(dt), min(ts), max(ts) FROM {t}

SELECT bool_and(flag), bool_or(flag) FROM {t}

SELECT bool_and(flag), bool_or(flag) FROM {t} WHERE g = 3

SELECT g, count(*) FROM {t} GROUP BY g ORDER BY g

SELECT g, count(*), sum(a), min(a), max(a) FROM {t} GROUP BY g ORDER BY g

SELECT g, avg(b), sum(d), avg(d) FROM {t} GROUP BY g ORDER BY g

SELECT flag, count(*), count(flag) FROM {t} GROUP BY flag ORDER BY flag

SELECT g, flag, count(*) FROM {t} GROUP BY g, flag ORDER BY g, flag

SELECT s, count(*) FROM {t} GROUP BY s ORDER BY count(*) DESC, s LIMIT 10

SELECT dt, count(*) FROM {t} GROUP BY dt HAVING count(*) > 1 ORDER BY dt

SELECT d, count(*) FROM {t} GROUP BY d HAVING count(*) > 1 ORDER BY d

SELECT b, count(*) FROM {t} GROUP BY b HAVING count(*) > 1 ORDER BY b

SELECT ts, count(*) FROM {t} GROUP BY ts HAVING count(*) > 1 ORDER BY ts NULLS FIRST

SELECT g, count(*) FROM {t} GROUP BY g HAVING count(*) > 140 ORDER BY g

SELECT g, sum(a) FROM {t} GROUP BY g HAVING sum(a) > 0 ORDER BY g

SELECT g, max(s) FROM {t} WHERE s <> '' GROUP BY g HAVING min(s) < 'b' ORDER BY g

SELECT g % 2 AS parity, count(*) FROM {t} GROUP BY g % 2 ORDER BY parity

SELECT g % 2 AS parity, count(*) FROM {t} GROUP BY parity ORDER BY parity

SELECT g, count(*) FROM {t} GROUP BY 1 ORDER BY 1

SELECT count(*) + 1, sum(g) * 2 FROM {t}

SELECT g, count(*) * 100 / 1000 FROM {t} GROUP BY g ORDER BY g
-- differs: integer division: PostgreSQL's / on integers truncates, DuckDB's gives a double

SELECT g, sum(a) / count(a) AS mean FROM {t} GROUP BY g ORDER BY g
-- differs: integer division: PostgreSQL's / on integers truncates, DuckDB's gives a double

SELECT g, count(DISTINCT flag), count(DISTINCT s) FROM {t} GROUP BY g ORDER BY g

SELECT count(DISTINCT a), count(DISTINCT dt), count(DISTINCT d) FROM {t}

SELECT g, sum(DISTINCT g), count(DISTINCT g) FROM {t} GROUP BY g ORDER BY g

SELECT count(*) FILTER (WHERE flag), count(*) FILTER (WHERE a > 0), sum(a) FILTER (WHERE g = 1) FROM {t}

SELECT g, count(*) FILTER (WHERE flag) FROM {t} GROUP BY g ORDER BY g

SELECT count(*), sum(a), min(s), avg(b) FROM {t} WHERE id < 0

SELECT g, count(*) FROM {t} WHERE id < 0 GROUP BY g

SELECT count(*) FROM {e}

SELECT sum(w), max(v), count(v) FROM {e}

SELECT length(string_agg(s, ',')) FROM {t} WHERE g = 2

SELECT g, length(string_agg(s, '|')) FROM {t} GROUP BY g ORDER BY g

SELECT max(length(s)), min(length(s)) FROM {t}

SELECT g, max(a) - min(a) FROM {t} GROUP BY g ORDER BY g

SELECT DISTINCT g % 3 FROM {t} ORDER BY 1

SELECT count(*) FROM (SELECT DISTINCT g, flag FROM {t}) x

SELECT g, count(*) FROM (SELECT g FROM {t} WHERE a > 0) x GROUP BY g ORDER BY g

SELECT v, count(*), sum(w), avg(w) FROM {u} GROUP BY v ORDER BY v

SELECT g, v, count(*) FROM {u} GROUP BY g, v ORDER BY g, v

SELECT count(*), count(id), count(DISTINCT id) FROM {u}

SELECT k, count(*) FROM {n} GROUP BY k ORDER BY k

SELECT name, count(*) FROM {n} GROUP BY name ORDER BY name NULLS FIRST

SELECT sum(k), avg(k), min(k), max(k), count(k) FROM {n}

SELECT dt, sum(a) FROM {t} WHERE dt IS NOT NULL GROUP BY dt ORDER BY sum(a) DESC, dt LIMIT 5

SELECT extract(year FROM dt) AS y, count(*) FROM {t} GROUP BY extract(year FROM dt) ORDER BY y

SELECT g, sum(d * 2), sum(d) * 2 FROM {t} GROUP BY g ORDER BY g

SELECT g, avg(a)::bigint FROM {t} GROUP BY g ORDER BY g
-- differs: rounding of the cast: DuckDB's double average and floe's decimal average round differently at .5

SELECT count(*) FROM {t} GROUP BY g HAVING g IS NULL

SELECT max(id) FROM {t} WHERE g = 6

SELECT g, min(dt), max(dt) FROM {t} GROUP BY g ORDER BY g

SELECT g, min(ts), max(ts) FROM {t} GROUP BY g ORDER BY g

SELECT g, bool_and(a > -900000), bool_or(a > 990000) FROM {t} GROUP BY g ORDER BY g

SELECT count(*) FROM {t} JOIN {u} ON t.id = u.id

SELECT t.id, u.v FROM {t} JOIN {u} ON t.id = u.id ORDER BY t.id, u.v NULLS FIRST

SELECT t.id, u.v, u.w FROM {t} LEFT JOIN {u} ON t.id = u.id WHERE t.id <= 30 ORDER BY t.id, u.w

SELECT count(*), count(u.id) FROM {t} LEFT JOIN {u} ON t.id = u.id

SELECT count(*), count(t.id) FROM {t} RIGHT JOIN {u} ON t.id = u.id

SELECT u.id, t.g FROM {t} RIGHT JOIN {u} ON t.id = u.id ORDER BY u.id NULLS FIRST, t.g LIMIT 40

SELECT count(*), count(t.id), count(u.id) FROM {t} FULL JOIN {u} ON t.id = u.id

SELECT coalesce(t.id, u.id) AS k, t.g, u.g FROM {t} FULL JOIN {u} ON t.id = u.id ORDER BY k NULLS FIRST, t.g, u.g LIMIT 50

SELECT count(*) FROM {t} JOIN {u} ON t.id = u.id AND t.g = u.g

SELECT count(*) FROM {t} JOIN {u} ON t.id = u.id AND t.a > 0

SELECT count(*) FROM {t} LEFT JOIN {u} ON t.id = u.id AND u.v = 'red'

SELECT count(*) FROM {t} LEFT JOIN {u} ON t.id = u.id WHERE u.v = 'red'

SELECT count(*) FROM {t} LEFT JOIN {u} ON t.id = u.id WHERE u.id IS NULL

SELECT count(*) FROM {t} JOIN {u} ON t.g = u.g

SELECT t.g, count(*) FROM {t} JOIN {u} ON t.g = u.g GROUP BY t.g ORDER BY t.g

SELECT count(*) FROM {t}, {u} WHERE t.id = u.id

SELECT count(*) FROM {t}, {u} WHERE t.id = u.id AND u.w > 50

SELECT count(*) FROM {t}, {u} WHERE t.id < u.id AND u.id < 20

SELECT count(*) FROM {t} JOIN {u} ON t.id BETWEEN u.id AND u.id + 2

SELECT count(*) FROM {t} JOIN {u} ON t.id = u.id OR t.g = u.g

SELECT count(*) FROM {m} CROSS JOIN {n}

SELECT m.k, n.k FROM {m} CROSS JOIN {n} ORDER BY m.k, n.k NULLS FIRST

SELECT count(*) FROM {t} CROSS JOIN {m}

SELECT m.k, n.name FROM {m} JOIN {n} ON m.k = n.k ORDER BY m.k, n.name

SELECT m.k, n.name FROM {m} LEFT JOIN {n} ON m.k = n.k ORDER BY m.k, n.name

SELECT n.k, m.k FROM {n} LEFT JOIN {m} ON m.k = n.k ORDER BY n.k NULLS FIRST, n.name NULLS FIRST

SELECT n.k, m.k FROM {n} FULL JOIN {m} ON m.k = n.k ORDER BY n.k NULLS FIRST, m.k NULLS FIRST

SELECT count(*) FROM {n:a} JOIN {n:b} ON a.k = b.k

SELECT a.k, count(*) FROM {n:a} JOIN {n:b} ON a.k = b.k GROUP BY a.k ORDER BY a.k

SELECT count(*) FROM {n:a} JOIN {n:b} ON a.k IS NOT DISTINCT FROM b.k

SELECT count(*) FROM {t:x} JOIN {t:y} ON x.id = y.id + 1

SELECT x.id, y.id FROM {t:x} JOIN {t:y} ON x.g = y.g AND x.id = y.id - 7 WHERE x.id < 30 ORDER BY x.id

SELECT count(*) FROM {t} JOIN {u} ON t.id = u.id JOIN {m} ON u.g = m.k

SELECT m.k, count(*) FROM {t} JOIN {u} ON t.id = u.id JOIN {m} ON t.g = m.k GROUP BY m.k ORDER BY m.k

SELECT count(*) FROM {t} LEFT JOIN {u} ON t.id = u.id LEFT JOIN {m} ON u.g = m.k

SELECT count(*) FROM {t} JOIN {e} ON t.id = e.id

SELECT count(*) FROM {t} LEFT JOIN {e} ON t.id = e.id

SELECT count(*) FROM {e} RIGHT JOIN {t} ON t.id = e.id

SELECT count(*) FROM {t} FULL JOIN {e} ON t.id = e.id

SELECT count(*) FROM {t} JOIN {u} USING (id)

SELECT id, v FROM {t} JOIN {u} USING (id) WHERE id < 200 ORDER BY id, v NULLS FIRST

SELECT count(*) FROM {t} JOIN {u} USING (id, g)

SELECT count(*) FROM {t} NATURAL JOIN {u}

SELECT count(*) FROM {t} JOIN {u} ON t.id = u.id WHERE t.s LIKE 'a%'

SELECT u.v, sum(t.a) FROM {t} JOIN {u} ON t.id = u.id GROUP BY u.v ORDER BY u.v NULLS FIRST

SELECT t.id FROM {t} JOIN {u} ON t.id = u.id WHERE u.w > 90 ORDER BY t.id

SELECT t.id, count(u.id) FROM {t} LEFT JOIN {u} ON t.id = u.id GROUP BY t.id HAVING count(u.id) > 1 ORDER BY t.id

SELECT count(*) FROM {t} JOIN (SELECT id FROM {u} WHERE v = 'blue') b ON t.id = b.id

SELECT count(*) FROM (SELECT g, count(*) c FROM {t} GROUP BY g) x JOIN (SELECT g, count(*) c FROM {u} GROUP BY g) y ON x.g = y.g

SELECT x.g, x.c, y.c FROM (SELECT g, count(*) c FROM {t} GROUP BY g) x LEFT JOIN (SELECT g, count(*) c FROM {u} GROUP BY g) y ON x.g = y.g ORDER BY x.g NULLS FIRST

SELECT t.id, t.dt, u.w FROM {t} JOIN {u} ON t.id = u.id AND t.dt > DATE '2022-01-01' ORDER BY t.id, u.w

SELECT count(*) FROM {t} JOIN {u} ON t.d > u.w AND t.id = u.id

SELECT count(*) FROM {t} JOIN {u} ON t.s = u.v

SELECT count(*) FROM {t} JOIN {u} ON lower(t.s) = u.v || '1'

SELECT count(*) FROM {t} JOIN {u} ON t.id = u.id * 2

SELECT count(*) FROM {t} JOIN {u} ON t.id + 0 = u.id AND t.g + 0 = u.g

SELECT count(*) FROM {t} JOIN {u} ON t.id::bigint = u.id::bigint

SELECT id FROM {t} WHERE id IN (SELECT id FROM {u}) AND id < 200 ORDER BY id

SELECT count(*) FROM {t} WHERE id IN (SELECT id FROM {u})

SELECT count(*) FROM {t} WHERE id NOT IN (SELECT id FROM {u})

SELECT count(*) FROM {t} WHERE id NOT IN (SELECT id FROM {u} WHERE id IS NOT NULL)

SELECT count(*) FROM {t} WHERE g IN (SELECT k FROM {m})

SELECT count(*) FROM {t} WHERE g NOT IN (SELECT k FROM {m})

SELECT count(*) FROM {t} WHERE g NOT IN (SELECT k FROM {n})

SELECT count(*) FROM {t} WHERE g NOT IN (SELECT id FROM {e})

SELECT count(*) FROM {t} WHERE g IN (SELECT id FROM {e})

SELECT k, k IN (SELECT k FROM {m}) AS inm FROM {n} ORDER BY k NULLS FIRST, name NULLS FIRST

SELECT k, k NOT IN (SELECT k FROM {n:x} WHERE x.name IS NOT NULL) AS notin FROM {m} ORDER BY k

SELECT k, k IN (SELECT id FROM {e}) FROM {m} ORDER BY k

SELECT count(*) FROM {t} WHERE EXISTS (SELECT 1 FROM {u} WHERE u.id = t.id)

SELECT count(*) FROM {t} WHERE NOT EXISTS (SELECT 1 FROM {u} WHERE u.id = t.id)

SELECT count(*) FROM {t} WHERE EXISTS (SELECT 1 FROM {u} WHERE u.id = t.id AND u.w > 50)

SELECT count(*) FROM {t} WHERE EXISTS (SELECT 1 FROM {u} WHERE u.g = t.g AND u.id > t.id)

SELECT count(*) FROM {t} WHERE NOT EXISTS (SELECT 1 FROM {u} WHERE u.g = t.g AND u.id > t.id)

SELECT count(*) FROM {t} WHERE EXISTS (SELECT 1 FROM {m})

SELECT count(*) FROM {t} WHERE NOT EXISTS (SELECT 1 FROM {e})

SELECT count(*) FROM {t} WHERE EXISTS (SELECT 1 FROM {e})

SELECT id, (SELECT max(k) FROM {m}) FROM {t} WHERE id < 4 ORDER BY id

SELECT id FROM {t} WHERE a > (SELECT avg(a) FROM {t}) AND id < 50 ORDER BY id

SELECT count(*) FROM {t} WHERE a > (SELECT max(w) FROM {u})

SELECT (SELECT count(*) FROM {u}), (SELECT count(*) FROM {e})

SELECT (SELECT max(w) FROM {e}) IS NULL

SELECT id, (SELECT count(*) FROM {u} WHERE u.id = t.id) AS c FROM {t} WHERE id < 60 ORDER BY id

SELECT id, (SELECT max(w) FROM {u} WHERE u.id = t.id) AS mw FROM {t} WHERE id < 60 ORDER BY id

SELECT count(*) FROM {t} WHERE a > (SELECT avg(a) FROM {t:x} WHERE x.g = t.g)

SELECT g, count(*) FROM {t} WHERE d < (SELECT avg(d) FROM {t:x} WHERE x.g = t.g) GROUP BY g ORDER BY g

SELECT count(*) FROM {t} WHERE id IN (SELECT id FROM {u} WHERE u.g = t.g)

SELECT count(*) FROM {t} WHERE id IN (SELECT id + 1 FROM {u}) OR g = 1

SELECT count(*) FROM {t} WHERE id IN (SELECT id FROM {u}) OR id IN (SELECT k FROM {m})

SELECT count(*) FROM {t} WHERE id IN (SELECT id FROM {u} GROUP BY id HAVING count(*) > 1)

SELECT count(*) FROM (SELECT * FROM {t} WHERE g = 1) x

SELECT x.g, x.c FROM (SELECT g, count(*) AS c FROM {t} GROUP BY g) x WHERE x.c > 140 ORDER BY x.g

SELECT max(c) FROM (SELECT g, count(*) AS c FROM {t} GROUP BY g) x

SELECT * FROM (SELECT id, a FROM {t} ORDER BY a DESC, id LIMIT 5) x ORDER BY id

SELECT count(*) FROM (SELECT id FROM {t} LIMIT 17) x

SELECT y.k2 FROM (SELECT k * 2 AS k2 FROM {m}) y WHERE y.k2 > 5 ORDER BY y.k2

WITH x AS (SELECT g, count(*) AS c FROM {t} GROUP BY g) SELECT * FROM x ORDER BY g

WITH x AS (SELECT id, g FROM {t} WHERE id < 100), y AS (SELECT g, count(*) AS c FROM x GROUP BY g) SELECT g, c FROM y ORDER BY g

WITH x AS (SELECT id FROM {t} WHERE id < 10) SELECT a.id, b.id FROM x a JOIN x b ON a.id = b.id + 1 ORDER BY a.id

WITH x(p, q) AS (SELECT id, g FROM {t} WHERE id < 5) SELECT p, q FROM x ORDER BY p

WITH big AS (SELECT * FROM {t} WHERE a > 500000) SELECT count(*), min(a) FROM big

SELECT count(*) FROM {t} WHERE g = ANY (SELECT k FROM {m})

SELECT id FROM {t} WHERE id < 5 UNION ALL SELECT id FROM {u} WHERE id < 5 ORDER BY id

SELECT g FROM {t} UNION SELECT g FROM {u} ORDER BY g

SELECT g FROM {t} UNION ALL SELECT g FROM {u} ORDER BY g LIMIT 20

SELECT count(*) FROM (SELECT g FROM {t} UNION ALL SELECT g FROM {u}) x

SELECT count(*) FROM (SELECT g FROM {t} UNION SELECT g FROM {u}) x

SELECT k FROM {n} UNION SELECT k FROM {m} ORDER BY k NULLS FIRST

SELECT k FROM {n} INTERSECT SELECT k FROM {m} ORDER BY k

SELECT k FROM {n} EXCEPT SELECT k FROM {m} ORDER BY k NULLS FIRST

SELECT k FROM {m} EXCEPT SELECT k FROM {n} ORDER BY k

SELECT id, 'a' AS src FROM {t} WHERE id < 3 UNION ALL SELECT k, 'b' FROM {m} ORDER BY id, src

SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3 ORDER BY x DESC

SELECT a FROM {t} WHERE id < 3 UNION ALL SELECT w FROM {u} WHERE id < 3 ORDER BY a

SELECT g, count(*) FROM (SELECT g FROM {t} UNION ALL SELECT g FROM {u}) x GROUP BY g ORDER BY g

SELECT id FROM {t} WHERE id < 4 UNION SELECT id FROM {t} WHERE id < 6 ORDER BY id

SELECT s FROM {t} WHERE id < 10 INTERSECT SELECT s FROM {t} WHERE id < 20 ORDER BY s NULLS FIRST

SELECT count(*) FROM (SELECT g, flag FROM {t} EXCEPT SELECT g, true FROM {u}) x

SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, NULL)) v(x, y) ORDER BY x

SELECT x + 1, upper(y) FROM (VALUES (1, 'a'), (2, 'b')) v(x, y) ORDER BY 1

SELECT count(*), sum(x) FROM (VALUES (1), (2), (NULL), (4)) v(x)

SELECT * FROM (VALUES (1, 2.5), (2, 3)) v(x, y) ORDER BY x

SELECT * FROM (VALUES ('2020-01-01'::date), (NULL)) v(d) ORDER BY d

SELECT * FROM generate_series(1, 5) ORDER BY 1

SELECT count(*), sum(generate_series) FROM generate_series(1, 100000)

SELECT sum(x) FROM generate_series(1, 100, 3) AS g(x)

SELECT x FROM generate_series(10, 1, -3) AS g(x) ORDER BY x

SELECT x % 10 AS r, count(*) FROM generate_series(1, 10000) AS g(x) GROUP BY x % 10 ORDER BY r

SELECT count(*) FROM generate_series(1, 1000) AS a(x) JOIN generate_series(500, 1500) AS b(y) ON a.x = b.y

SELECT id, row_number() OVER (ORDER BY id) FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY id) AS rn FROM {t} WHERE id <= 40 ORDER BY id

SELECT id, g, rank() OVER (ORDER BY g), dense_rank() OVER (ORDER BY g) FROM {t} WHERE id <= 30 ORDER BY id

SELECT id, s, rank() OVER (PARTITION BY g ORDER BY s) FROM {t} WHERE id <= 50 ORDER BY id

SELECT id, lag(id) OVER (ORDER BY id), lead(id) OVER (ORDER BY id) FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, lag(a, 2) OVER (ORDER BY id), lead(a, 3, 0) OVER (ORDER BY id) FROM {t} WHERE id <= 12 ORDER BY id

SELECT id, g, lag(id) OVER (PARTITION BY g ORDER BY id) FROM {t} WHERE id <= 30 ORDER BY id

SELECT id, sum(id) OVER (ORDER BY id) FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, g, sum(a) OVER (PARTITION BY g) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, g, count(*) OVER (PARTITION BY g) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, avg(b) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM {t} WHERE id <= 15 ORDER BY id

SELECT id, sum(a) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM {t} WHERE id <= 15 ORDER BY id

SELECT id, min(a) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), max(a) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM {t} WHERE id <= 15 ORDER BY id

SELECT id, g, sum(id) OVER (ORDER BY g) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, g, count(*) OVER (ORDER BY g RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, first_value(id) OVER (PARTITION BY g ORDER BY id), last_value(id) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM {t} WHERE id <= 30 ORDER BY id

SELECT id, ntile(4) OVER (ORDER BY id) FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, percent_rank() OVER (ORDER BY g), cume_dist() OVER (ORDER BY g) FROM {t} WHERE id <= 12 ORDER BY id

SELECT g, id FROM (SELECT g, id, row_number() OVER (PARTITION BY g ORDER BY a DESC, id) AS rn FROM {t}) x WHERE rn = 1 ORDER BY g NULLS FIRST

SELECT id, row_number() OVER w, sum(id) OVER w FROM {t} WHERE id <= 8 WINDOW w AS (ORDER BY id) ORDER BY id

SELECT g, count(*), sum(count(*)) OVER (ORDER BY g) FROM {t} GROUP BY g ORDER BY g

SELECT id, nth_value(id, 2) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM {t} WHERE id <= 5 ORDER BY id

SELECT id, length(s), upper(s), lower(s) FROM {t} WHERE id <= 40 ORDER BY id

SELECT id, substr(s, 2), substr(s, 2, 3), substring(s FROM 1 FOR 2) FROM {t} WHERE id <= 30 ORDER BY id

SELECT id, position('a' IN s), strpos(s, 'ta') FROM {t} WHERE id <= 30 ORDER BY id

SELECT id, replace(s, 'a', 'AA'), reverse(s), repeat(s, 2) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, s || '-' || g, concat(s, '-', g), concat_ws('/', s, g, a) FROM {t} WHERE id <= 40 ORDER BY id

SELECT id, trim('  x  '), ltrim('  x'), rtrim('x  '), trim(BOTH 'a' FROM s) FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, starts_with(s, 'be'), s LIKE 'be%', s LIKE '%a', s LIKE '_e%' FROM {t} WHERE id <= 40 ORDER BY id

SELECT count(*) FROM {t} WHERE s LIKE '%\%%'
-- differs: PostgreSQL's LIKE has backslash as its default escape character, DuckDB's has none

SELECT count(*) FROM {t} WHERE s LIKE '%!%%' ESCAPE '!'

SELECT count(*) FROM {t} WHERE s LIKE 'theta\_%'
-- differs: PostgreSQL's LIKE has backslash as its default escape character, DuckDB's has none

SELECT count(*) FROM {t} WHERE s LIKE 'theta_%'

SELECT count(*) FROM {t} WHERE s NOT LIKE '%a%'

SELECT count(*) FROM {t} WHERE s ILIKE 'EPS%'

SELECT count(*) FROM {t} WHERE s LIKE 'EPS%'

SELECT id, split_part(s, 'a', 1), split_part(s, 'a', 2) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, left(s, 2), right(s, 2), lpad(s, 8, '*'), rpad(s, 8, '*') FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, regexp_replace(s, '[aeiou]', '#') FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, dt, extract(year FROM dt), extract(month FROM dt), extract(day FROM dt) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, extract(dow FROM dt), extract(doy FROM dt), extract(quarter FROM dt) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, extract(hour FROM ts), extract(minute FROM ts), extract(second FROM ts) FROM {t} WHERE id <= 20 ORDER BY id
-- differs: PostgreSQL's EXTRACT(second ...) keeps the fraction (numeric), DuckDB's returns whole seconds

SELECT id, extract(hour FROM ts), extract(minute FROM ts) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, date_part('year', ts), date_part('month', ts) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, date_trunc('month', ts), date_trunc('day', ts), date_trunc('hour', ts) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, date_trunc('year', ts), date_trunc('quarter', ts), date_trunc('week', ts) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, date_trunc('month', dt)::date FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, dt + 1, dt - 30, dt - DATE '2020-01-01' FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, dt + INTERVAL '1 day', dt + INTERVAL '1 month', dt - INTERVAL '1 year' FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, ts + INTERVAL '2 hours', ts - INTERVAL '30 minutes', ts + INTERVAL '1 month 2 days' FROM {t} WHERE id <= 20 ORDER BY id

SELECT count(*) FROM {t} WHERE dt >= DATE '2021-01-01' AND dt < DATE '2021-01-01' + INTERVAL '3' MONTH

SELECT count(*) FROM {t} WHERE dt < '2021-06-01'

SELECT count(*) FROM {t} WHERE ts >= TIMESTAMP '2021-06-01 12:00:00'

SELECT count(*) FROM {t} WHERE ts::date = dt

SELECT DATE '2020-01-31' + INTERVAL '1 month', DATE '2020-02-29' + INTERVAL '1 year', DATE '2020-03-31' - INTERVAL '1 month'

SELECT id, round(d), round(d, 1), floor(d), ceil(d) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, floor(b), ceil(b), trunc(b) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, sqrt(abs(b)), power(g, 2), ln(abs(b) + 1) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, mod(a, 7), mod(id, 4), a % 5 FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, sign(a), sign(b) FROM {t} WHERE id <= 20 ORDER BY id

SELECT id, exp(g), log10(id) FROM {t} WHERE id <= 10 ORDER BY id

SELECT abs(-5), abs(-2.5), ceil(2.1), floor(-2.1), round(2.567, 2), round(-2.5), mod(17, 5), power(2, 10), sqrt(16)

SELECT id, id::bigint, id::double precision, id::text, id::numeric(10, 2) FROM {t} WHERE id <= 5 ORDER BY 1

SELECT id, a::text, b::text FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, d::text, d::integer, d::double precision FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, b::integer, b::bigint, b::numeric(12, 3) FROM {t} WHERE id <= 10 ORDER BY id
-- differs: float to integer rounding at .5: PostgreSQL rounds half to even (rint), DuckDB half away from zero

SELECT id, dt::text, dt::timestamp, ts::date, ts::text FROM {t} WHERE id <= 10 ORDER BY id

SELECT id, flag::text, flag::integer FROM {t} WHERE id <= 10 ORDER BY id
-- differs: boolean text form: PostgreSQL's is true/false in casts, DuckDB's too, but floe's csv output prints t/f for booleans and the cast result is text

SELECT '42'::integer, '-7'::bigint, ' 12 '::integer, '3.25'::numeric(5, 2), '1e3'::double precision

SELECT '2021-02-03'::date, '2021-02-03 04:05:06'::timestamp, '2021-02-03 04:05:06.5'::timestamp

SELECT 'true'::boolean, 'f'::boolean, 'yes'::boolean, 'off'::boolean
-- differs: DuckDB does not accept 'off' (PostgreSQL accepts on/off, yes/no, t/f and their prefixes)

SELECT 'true'::boolean, 'f'::boolean, 'false'::boolean, 't'::boolean

SELECT CAST(g AS text) || 'x' FROM {t} WHERE id <= 5 ORDER BY id

SELECT count(*) FROM {t} WHERE CAST(a AS double precision) > 0.5

SELECT count(*) FROM {t} WHERE d::double precision > 100.0

SELECT sum(d::double precision), sum(a::numeric(20, 0)) FROM {t}

SELECT 1.5 + 1, 1.5 * 2, 10.0 / 4, 7 / 2.0

SELECT 123.456::numeric(6, 2), 0.005::numeric(4, 2), (-0.005)::numeric(4, 2)

SELECT 2.5::integer, 3.5::integer, (-2.5)::integer
-- differs: numeric to integer: both round half away from zero, but DuckDB reads 2.5 as a double literal here

SELECT 10 % 3, -10 % 3, 10 % -3

SELECT 9223372036854775807, -9223372036854775807 - 1

SELECT 1e2, 0.1 + 0.2, 1.0 / 3
