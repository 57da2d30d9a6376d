SELECT f1, f1::text, round(f1::numeric, 3), f1 = 'NaN'::float8, f1 > 'Infinity' FROM float8_tbl ORDER BY f1;
