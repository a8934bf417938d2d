DROP TABLE canned_responses;
