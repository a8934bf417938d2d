//! utoipa writes a generic wrapper's argument inline (`DataBody<TagDto>` carries a copy of
//! `TagDto`), so a generator made two classes of every resource. This pass puts a reference
//! wherever a schema is an exact copy of a named component, on the JSON of the document.

use serde_json::{Map, Value};

const SCHEMAS: &str = "#/components/schemas/";
const DEFINING: [&str; 5] = ["properties", "allOf", "oneOf", "anyOf", "enum"];

/// Replaces every schema equal to a component (other than that component itself) with a
/// `$ref` to it. Only components that define something (properties, a composition, an enum) are
/// shared: a plain `{"type": "string"}` copy says nothing a reference would add.
pub fn share_components(document: &mut Value) {
    let Some(schemas) = document.pointer("/components/schemas").and_then(Value::as_object).cloned() else { return };
    let shareable: Vec<(String, Value)> =
        schemas.into_iter().filter(|(_, schema)| DEFINING.iter().any(|key| schema.get(key).is_some())).collect();
    if let Some(paths) = document.get_mut("paths") {
        replace_copies(paths, &shareable, None);
    }
    if let Some(components) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
        for (name, schema) in components.iter_mut() {
            replace_inside(schema, &shareable, Some(name));
        }
    }
}

/// `value` or anything under it.
fn replace_copies(value: &mut Value, shareable: &[(String, Value)], own: Option<&str>) {
    if let Some(name) = copy_of(value, shareable, own) {
        *value = reference(&name);
        return;
    }
    replace_inside(value, shareable, own);
}

/// Anything under `value`, never `value` itself (a component is not a copy of itself).
fn replace_inside(value: &mut Value, shareable: &[(String, Value)], own: Option<&str>) {
    match value {
        Value::Object(map) => map.values_mut().for_each(|v| replace_copies(v, shareable, own)),
        Value::Array(items) => items.iter_mut().for_each(|v| replace_copies(v, shareable, own)),
        _ => {}
    }
}

fn copy_of(value: &Value, shareable: &[(String, Value)], own: Option<&str>) -> Option<String> {
    if !value.is_object() {
        return None;
    }
    shareable.iter().find(|(name, schema)| Some(name.as_str()) != own && schema == value).map(|(name, _)| name.clone())
}

fn reference(name: &str) -> Value {
    let mut map = Map::new();
    map.insert("$ref".into(), Value::String(format!("{SCHEMAS}{name}")));
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn inline_copies_become_references_and_components_stay_themselves() {
        let tag = json!({"type": "object", "properties": {"id": {"type": "string"}}});
        let mut document = json!({
            "paths": {"/v1/tags": {"get": {"responses": {"200": {"content": {"application/json": {"schema": tag.clone()}}}}}}},
            "components": {"schemas": {
                "TagDto": tag.clone(),
                "DataBody_TagDto": {"type": "object", "properties": {"data": tag.clone()}},
                "PageBody_TagDto": {"type": "object", "properties": {"data": {"type": "array", "items": tag}}},
                "Name": {"type": "string"},
            }}
        });
        super::share_components(&mut document);
        let tag_ref = json!({"$ref": "#/components/schemas/TagDto"});
        assert_eq!(document.pointer("/paths/~1v1~1tags/get/responses/200/content/application~1json/schema"), Some(&tag_ref));
        assert_eq!(document.pointer("/components/schemas/DataBody_TagDto/properties/data"), Some(&tag_ref));
        assert_eq!(document.pointer("/components/schemas/PageBody_TagDto/properties/data/items"), Some(&tag_ref));
        assert_eq!(document.pointer("/components/schemas/TagDto/properties/id/type"), Some(&json!("string")), "left as it is");
    }
}
