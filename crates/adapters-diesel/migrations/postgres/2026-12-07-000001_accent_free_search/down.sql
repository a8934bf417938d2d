DROP TABLE pending_refreshes;
