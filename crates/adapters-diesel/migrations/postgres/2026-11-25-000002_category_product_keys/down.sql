DROP INDEX product_categories_listing;
DROP INDEX product_categories_kind_listing;
ALTER TABLE product_categories DROP COLUMN product_pk;
CREATE INDEX product_categories_listing ON product_categories(agent_id, tag, created_at DESC, product_id DESC);
CREATE INDEX product_categories_kind_listing ON product_categories(agent_id, tag, kind, created_at DESC, product_id DESC);
DROP INDEX products_pk;
ALTER TABLE products DROP COLUMN pk;
