-- A product's stored document becomes the whole published JSON, timestamps included, so catalog
-- pages hand it on without splicing `created_at` and `updated_at` in (formatting two times per
-- product was a sixth of a page's instructions). The columns stay: listing orders on them.
-- Times are written as the API writes them, RFC 3339 UTC to the millisecond; a time outside
-- years 0000-9999, which that form cannot show (only an import of a time hours from either end
-- could store one), is clamped to the nearest end in the document and its column alike.
CREATE FUNCTION pg_temp.rfc3339_millis(t BIGINT) RETURNS TEXT LANGUAGE SQL IMMUTABLE AS $$
    SELECT CASE
        -- PostgreSQL counts no year 0: what RFC 3339 (and chrono) call 0000 it calls 1 BC.
        WHEN t < -62135596800000 THEN '0000' || to_char(to_timestamp(floor(t / 1000.0)) AT TIME ZONE 'UTC', '-MM-DD"T"HH24:MI:SS')
        ELSE to_char(to_timestamp(floor(t / 1000.0)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
    END || '.' || lpad((((t % 1000) + 1000) % 1000)::text, 3, '0') || 'Z'
$$;
UPDATE products SET
    created_at = greatest(-62167219200000, least(created_at, 253402300799999)),
    updated_at = greatest(-62167219200000, least(updated_at, 253402300799999));
UPDATE products SET document = left(document, -1)
    || ',"created_at":"' || pg_temp.rfc3339_millis(created_at) || '"'
    || ',"updated_at":"' || pg_temp.rfc3339_millis(updated_at) || '"}';
