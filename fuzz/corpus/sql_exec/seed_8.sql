SELECT ten, four, count(DISTINCT two), percentile_cont(0.5) WITHIN GROUP (ORDER BY unique1) FROM tenk1 WHERE hundred < 50 GROUP BY CUBE (ten, four) HAVING count(*) > 1;
