SELECT a, b, count(*), sum(c), avg(g), min(d), max(e) FROM t GROUP BY ROLLUP (a, b) ORDER BY 1, 2;
