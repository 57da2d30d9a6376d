SELECT upper(f1), length(f1), substr(f1, 2, 3), regexp_replace(f1, '[aeiou]', '_', 'g'), split_part(f1, ' ', 2), f1 LIKE '%o%' FROM text_tbl;
