SELECT json_type, test_json -> 'field1', test_json ->> 0, json_typeof(test_json) FROM test_json;
