DROP TABLE carts;
DROP TABLE catalog_facets;
DROP TABLE product_categories;
DROP TABLE products;
