DROP TABLE activity_counts;
