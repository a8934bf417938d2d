-- A page of a category walks the category's rows and fetches each product's document. Joined by
-- (agent_id, id), every product cost two b-tree descents, the first comparing text keys: 37% of
-- such a page's instructions. Products get an integer key (`pk`, SQLite's rowid, kept stable by
-- declaring it) and category rows carry it, so each product is one integer descent away.
CREATE TABLE products_keyed (
    pk INTEGER PRIMARY KEY,
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
    UNIQUE (agent_id, id)
);
INSERT INTO products_keyed (agent_id, id, status, kind, document, created_at, updated_at, revision, embedder, embedding)
    SELECT agent_id, id, status, kind, document, created_at, updated_at, revision, embedder, embedding FROM products ORDER BY rowid;
DROP TABLE products;
ALTER TABLE products_keyed RENAME TO products;
CREATE INDEX products_listing ON products(agent_id, status, created_at DESC, id DESC);
CREATE INDEX products_kind_listing ON products(agent_id, status, kind, created_at DESC, id DESC);
CREATE INDEX products_changes ON products(agent_id, revision, id);

ALTER TABLE product_categories ADD COLUMN product_pk BIGINT NOT NULL DEFAULT 0;
UPDATE product_categories SET product_pk = coalesce(
    (SELECT pk FROM products WHERE products.agent_id = product_categories.agent_id AND products.id = product_categories.product_id), 0);
-- Rows whose product is gone would have no key; none should exist, and none may stay.
DELETE FROM product_categories WHERE product_pk = 0;
DROP INDEX product_categories_listing;
DROP INDEX product_categories_kind_listing;
CREATE INDEX product_categories_listing ON product_categories(agent_id, tag, created_at DESC, product_id DESC, product_pk);
CREATE INDEX product_categories_kind_listing ON product_categories(agent_id, tag, kind, created_at DESC, product_id DESC, product_pk);
