-- A product's stored document becomes the whole published JSON, timestamps included, so catalog
-- pages hand it on without splicing `created_at` and `updated_at` in (formatting two times per
-- product was a sixth of a page's instructions). The columns stay: listing orders on them.
-- Times are written as the API writes them, RFC 3339 UTC to the millisecond; a time outside
-- years 0000-9999, which that form cannot show (only an import of a time hours from either end
-- could store one), is clamped to the nearest end in the document and its column alike.
UPDATE products SET
    created_at = max(-62167219200000, min(created_at, 253402300799999)),
    updated_at = max(-62167219200000, min(updated_at, 253402300799999));
UPDATE products SET document = substr(document, 1, length(document) - 1)
    || ',"created_at":"' || strftime('%Y-%m-%dT%H:%M:%S', (created_at - ((created_at % 1000) + 1000) % 1000) / 1000, 'unixepoch')
    || '.' || printf('%03d', ((created_at % 1000) + 1000) % 1000) || 'Z"'
    || ',"updated_at":"' || strftime('%Y-%m-%dT%H:%M:%S', (updated_at - ((updated_at % 1000) + 1000) % 1000) / 1000, 'unixepoch')
    || '.' || printf('%03d', ((updated_at % 1000) + 1000) % 1000) || 'Z"}';
