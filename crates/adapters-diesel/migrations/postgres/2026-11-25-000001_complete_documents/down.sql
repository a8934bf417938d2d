-- The timestamps are the document's last two fields, and `,"created_at":"` cannot occur earlier:
-- inside a JSON string its quotes would be escaped, and no nested object has that key.
UPDATE products SET document = left(document, strpos(document, ',"created_at":"') - 1) || '}';
