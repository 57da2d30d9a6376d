SELECT x.unique1, y.unique2 FROM tenk1 x JOIN tenk1 y ON x.unique1 = y.unique2 AND x.ten = y.ten WHERE EXISTS (SELECT 1 FROM int4_tbl WHERE f1 < x.unique1) ORDER BY 1 LIMIT 10;
