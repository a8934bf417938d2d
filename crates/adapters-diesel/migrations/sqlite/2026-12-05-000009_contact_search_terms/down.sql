DROP TABLE contact_search_terms;
