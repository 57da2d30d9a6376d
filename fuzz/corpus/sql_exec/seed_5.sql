SELECT d1, date_trunc('month', d1), d1 + interval '1 month', extract(epoch FROM d1), to_char(d1, 'YYYY-MM-DD HH24:MI') FROM timestamp_tbl;
