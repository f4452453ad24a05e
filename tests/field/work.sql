-- work.sql - the field suite's sqlite3 workload on a database file: a table
-- filled by a recursive CTE, an index, joins, aggregates, updates and text
-- functions.  Every result is printed, so two builds can be compared.
PRAGMA journal_mode=DELETE;
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, v REAL);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000)
INSERT INTO t SELECT i, (i * 7919) % 1000, printf('name-%06d', (i * 31) % 200000), i * 0.5 FROM c;
CREATE INDEX t_k ON t(k);
SELECT count(*), sum(k), total(v), max(name) FROM t;
SELECT k, count(*), sum(v) FROM t WHERE k < 5 GROUP BY k ORDER BY k;
UPDATE t SET name = upper(name) WHERE k % 7 = 0;
SELECT count(*) FROM t WHERE name LIKE 'NAME-%';
SELECT a.k, count(*) FROM t a JOIN t b ON a.id = b.k + 1 GROUP BY a.k ORDER BY 2 DESC, 1 LIMIT 5;
SELECT substr(group_concat(name, ','), 1, 60) FROM (SELECT name FROM t ORDER BY name DESC LIMIT 50);
DELETE FROM t WHERE id % 3 = 0;
SELECT count(*), sum(id) FROM t;
