DROP INDEX product_categories_listing;
DROP INDEX product_categories_kind_listing;
ALTER TABLE product_categories DROP COLUMN product_pk;
CREATE INDEX product_categories_listing ON product_categories(agent_id, tag, created_at DESC, product_id DESC);
CREATE INDEX product_categories_kind_listing ON product_categories(agent_id, tag, kind, created_at DESC, product_id DESC);

CREATE TABLE products_unkeyed (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    status TEXT NOT NULL,
    kind TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    revision BIGINT NOT NULL DEFAULT 0,
    embedder TEXT,
    embedding BLOB,
    PRIMARY KEY (agent_id, id)
);
INSERT INTO products_unkeyed SELECT agent_id, id, status, kind, document, created_at, updated_at, revision, embedder, embedding FROM products ORDER BY pk;
DROP TABLE products;
ALTER TABLE products_unkeyed RENAME TO products;
CREATE INDEX products_listing ON products(agent_id, status, created_at DESC, id DESC);
CREATE INDEX products_kind_listing ON products(agent_id, status, kind, created_at DESC, id DESC);
CREATE INDEX products_changes ON products(agent_id, revision, id);
