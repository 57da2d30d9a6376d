ALTER TABLE t SET ("write.update.mode" = 'merge-on-read', "write.delete.mode" = 'merge-on-read', format_version = 3);
UPDATE t SET b = upper(b), (c, d) = (c * 2, DEFAULT) WHERE h IN (SELECT h FROM t WHERE a IS NULL OR a < 3);
UPDATE t SET a = u.a FROM u WHERE t.a = u.a;
DELETE FROM t WHERE e < TIMESTAMPTZ '2024-01-01 00:00:00+00';
SELECT h, _row_id, _last_updated_sequence_number FROM t ORDER BY h;
