ALTER TABLE templates DROP COLUMN parameter_format;
