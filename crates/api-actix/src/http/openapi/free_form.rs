//! An object schema that names no property and says nothing of others reads, to TypeScript
//! generators, as an object that can hold nothing (`Record<string, never>`). Parley's free-form
//! objects (custom attributes, a message's platform content, an event's object) hold any JSON:
//! this pass says so with `additionalProperties: true` wherever a schema leaves it unsaid.

use serde_json::Value;

pub fn open(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let is_object = match map.get("type") {
                Some(Value::String(t)) => t == "object",
                Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
                _ => false,
            };
            let says_nothing = ["properties", "additionalProperties", "allOf", "oneOf", "anyOf", "$ref", "patternProperties"]
                .iter()
                .all(|key| !map.contains_key(*key));
            if is_object && says_nothing {
                map.insert("additionalProperties".into(), Value::Bool(true));
            }
            map.values_mut().for_each(open);
        }
        Value::Array(items) => items.iter_mut().for_each(open),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn only_objects_that_say_nothing_of_their_keys_are_opened() {
        let mut doc = json!({
            "free": {"type": "object"},
            "nullable": {"type": ["object", "null"], "description": "d"},
            "closed": {"type": "object", "properties": {"a": {"type": "string"}}},
            "bounded": {"type": "object", "additionalProperties": false},
            "text": {"type": "string"},
        });
        super::open(&mut doc);
        assert_eq!(doc["free"]["additionalProperties"], json!(true));
        assert_eq!(doc["nullable"]["additionalProperties"], json!(true));
        assert!(doc["closed"].get("additionalProperties").is_none());
        assert_eq!(doc["bounded"]["additionalProperties"], json!(false));
        assert!(doc["text"].get("additionalProperties").is_none());
    }
}
