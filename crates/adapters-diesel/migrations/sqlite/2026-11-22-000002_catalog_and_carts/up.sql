-- Products: the public document as JSON, with the columns that listing filters and orders on.
CREATE TABLE products (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    status TEXT NOT NULL,
    kind TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (agent_id, id)
);
CREATE INDEX products_listing ON products(agent_id, status, created_at DESC, id DESC);
CREATE INDEX products_kind_listing ON products(agent_id, status, kind, created_at DESC, id DESC);

-- Category tags of ACTIVE products only, with the product's kind and creation time copied in,
-- so a tag listing (with or without kind) and its count are index range scans.
CREATE TABLE product_categories (
    agent_id TEXT NOT NULL,
    tag TEXT NOT NULL,
    product_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (agent_id, tag, product_id)
);
CREATE INDEX product_categories_product ON product_categories(agent_id, product_id);
CREATE INDEX product_categories_listing ON product_categories(agent_id, tag, created_at DESC, product_id DESC);
CREATE INDEX product_categories_kind_listing ON product_categories(agent_id, tag, kind, created_at DESC, product_id DESC);

-- Counts kept up to date by every import, so reading them never scans the catalog.
-- facet: 'category' (name = the tag), 'kind' (name = product|service), 'total' (name = ''),
-- 'category:product' and 'category:service' (name = the tag; that tag among that kind).
CREATE TABLE catalog_facets (
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    facet TEXT NOT NULL,
    name TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (agent_id, facet, name)
);

-- Carts: immutable snapshots; items hold each product as it was at creation.
CREATE TABLE carts (
    code TEXT PRIMARY KEY NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    items TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX carts_agent ON carts(agent_id, created_at);
