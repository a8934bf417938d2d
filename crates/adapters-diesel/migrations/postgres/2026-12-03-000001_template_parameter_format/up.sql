-- How a template's placeholders are written: POSITIONAL ({{1}}) or NAMED ({{first_name}}), as the
-- platform lists it. Templates synced before this column existed were all read as positional;
-- the next sync stores each one's own format.
ALTER TABLE templates ADD COLUMN parameter_format TEXT NOT NULL DEFAULT 'POSITIONAL';
