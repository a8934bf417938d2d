-- Semantic search: each product's vector, the embedder that made it, and the catalog revision
-- that last wrote the row. Every import or vector write raises the agent's revision by one and
-- stamps the rows it wrote, so any process can follow changes with one indexed range read.
ALTER TABLE products ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
ALTER TABLE products ADD COLUMN embedder TEXT;
-- Little-endian f32 components.
ALTER TABLE products ADD COLUMN embedding BYTEA;
CREATE INDEX products_changes ON products(agent_id, revision, id);

CREATE TABLE catalog_revisions (
    agent_id TEXT PRIMARY KEY NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    revision BIGINT NOT NULL
);
INSERT INTO catalog_revisions (agent_id, revision) SELECT DISTINCT agent_id, 0 FROM products;
