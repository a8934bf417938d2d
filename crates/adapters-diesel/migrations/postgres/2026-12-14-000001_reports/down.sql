DROP TABLE report_spans;
DROP TABLE report_counts;
