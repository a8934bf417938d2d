DROP TABLE catalog_revisions;
DROP INDEX products_changes;
ALTER TABLE products DROP COLUMN embedding;
ALTER TABLE products DROP COLUMN embedder;
ALTER TABLE products DROP COLUMN revision;
