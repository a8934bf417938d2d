//! What `codegen --check` asks of the OpenAPI document beyond being current: valid against the
//! OpenAPI 3.1 schema, every reference resolving, every component used, and patterns that
//! client generators can copy into string literals (no `\u` escapes: an escaped U+2028 became a
//! raw line separator in one generator's output).

use serde_json::Value;

const OPENAPI_31_SCHEMA: &str = include_str!("../openapi-3.1-schema.json");

/// Every problem found, or none.
pub fn problems(document: &str) -> Vec<String> {
    let document: Value = match serde_json::from_str(document) {
        Ok(v) => v,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    let mut found = against_schema(&document);
    found.extend(references(&document));
    found.extend(patterns(&document));
    found
}

fn against_schema(document: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(OPENAPI_31_SCHEMA).expect("the bundled OpenAPI 3.1 schema is JSON");
    let validator = match jsonschema::validator_for(&schema) {
        Ok(v) => v,
        Err(e) => return vec![format!("the OpenAPI 3.1 schema does not load: {e}")],
    };
    validator.iter_errors(document).map(|e| format!("OpenAPI 3.1 schema: {} at {}", e, e.instance_path())).collect()
}

/// Dangling references and unused components (schemas and responses).
fn references(document: &Value) -> Vec<String> {
    let mut refs = Vec::new();
    collect_refs(document, &mut refs);
    let mut found = Vec::new();
    for r in &refs {
        let resolves = r.strip_prefix('#').is_some_and(|pointer| document.pointer(pointer).is_some());
        if !resolves {
            found.push(format!("dangling reference {r}"));
        }
    }
    for kind in ["schemas", "responses"] {
        for name in document["components"][kind].as_object().into_iter().flat_map(|m| m.keys()) {
            let target = format!("#/components/{kind}/{name}");
            if !refs.contains(&target) {
                found.push(format!("unused component {target}"));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                into.push(r.clone());
            }
            map.values().for_each(|v| collect_refs(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, into)),
        _ => {}
    }
}

fn patterns(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if let Some(Value::String(p)) = map.get("pattern")
                    && p.contains("\\u")
                {
                    found.push(format!("pattern with a \\u escape (write \\s or a literal range): {p}"));
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::problems;

    #[test]
    fn each_kind_of_defect_is_found() {
        let document = r##"{
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1"},
            "paths": {"/a": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Missing"}}}}}}}},
            "components": {"schemas": {"Unused": {"type": "string", "pattern": "[^\\u2028]"}}}
        }"##;
        let found = problems(document);
        assert!(found.iter().any(|p| p.contains("dangling reference #/components/schemas/Missing")), "{found:?}");
        assert!(found.iter().any(|p| p.contains("unused component #/components/schemas/Unused")), "{found:?}");
        assert!(found.iter().any(|p| p.contains("\\u escape")), "{found:?}");
        assert!(problems(r#"{"openapi": "3.1.0"}"#).iter().any(|p| p.starts_with("OpenAPI 3.1 schema")), "info is required");
    }

    #[test]
    fn the_committed_document_has_none() {
        let committed = std::fs::read_to_string(crate::root().join("docs/openapi.json")).unwrap();
        assert_eq!(problems(&committed), Vec::<String>::new());
    }
}
