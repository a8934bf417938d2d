//! The document's schema names, as the API's words: the Rust types say what they are in code
//! (`ActivityDto`, `ActivityStatusName`, `DataBody<Vec<TagDto>>`), a client's classes say what
//! they are in the API (`Activity`, `ActivityStatus`, `TagListResponse`). One rule, applied to
//! every component and every reference to it:
//!
//! - `DataBody<T>` (`{"data": …}`) is `TResponse`, `DataBody<Vec<T>>` is `TListResponse`, and
//!   `PageBody<T>` (`{"data": […], "pagination": …}`) is `TPage`;
//! - a `Dto` suffix (a response object) and a `Name` suffix (an enum of names) go, and so does
//!   a `Schema` suffix (a schema written by hand).
//!
//! Two components that the rule would give one name are a bug, caught by the test below.

use std::collections::BTreeMap;

use serde_json::Value;

const SCHEMAS: &str = "#/components/schemas/";

/// The API's name for a component utoipa named after its Rust type.
pub fn api_name(rust: &str) -> String {
    let plain = |name: &str| {
        let name = name.strip_suffix("Dto").unwrap_or(name);
        let name = name.strip_suffix("Schema").unwrap_or(name);
        name.strip_suffix("Name").unwrap_or(name).to_string()
    };
    if let Some(inner) = rust.strip_prefix("DataBody_Vec_") {
        format!("{}ListResponse", plain(inner))
    } else if let Some(inner) = rust.strip_prefix("DataBody_") {
        format!("{}Response", plain(inner))
    } else if let Some(inner) = rust.strip_prefix("PageBody_") {
        format!("{}Page", plain(inner))
    } else {
        plain(rust)
    }
}

/// Renames every component schema by [`api_name`], and every reference to it.
pub fn rename(document: &mut Value) {
    let Some(schemas) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else { return };
    let renamed: BTreeMap<String, String> = schemas.keys().map(|k| (k.clone(), api_name(k))).collect();
    let taken: BTreeMap<&String, &String> = renamed.iter().map(|(old, new)| (new, old)).collect();
    assert_eq!(taken.len(), renamed.len(), "two schemas would share a name: {renamed:?}");
    let old = std::mem::take(schemas);
    *schemas = old.into_iter().map(|(k, v)| (renamed[&k].clone(), v)).collect();
    rewrite_references(document, &renamed);
}

fn rewrite_references(value: &mut Value, renamed: &BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                match (key.as_str(), child) {
                    ("$ref", Value::String(reference)) => {
                        if let Some(new) = reference.strip_prefix(SCHEMAS).and_then(|name| renamed.get(name)) {
                            *reference = format!("{SCHEMAS}{new}");
                        }
                    }
                    (_, child) => rewrite_references(child, renamed),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rewrite_references(item, renamed)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn rust_names_become_the_apis_words() {
        for (rust, api) in [
            ("ActivityDto", "Activity"),
            ("ActivityStatusName", "ActivityStatus"),
            ("DataBody_Vec_TagDto", "TagListResponse"),
            ("DataBody_ActivityDetailDto", "ActivityDetailResponse"),
            ("DataBody_Deleted", "DeletedResponse"),
            ("PageBody_MessageDto", "MessagePage"),
            ("EventSelectionSchema", "EventSelection"),
            ("CreateTag", "CreateTag"),
            ("ErrorBody", "ErrorBody"),
        ] {
            assert_eq!(api_name(rust), api, "{rust}");
        }
    }

    #[test]
    fn components_and_their_references_are_renamed_together() {
        let mut document = json!({
            "paths": {"/v1/tags": {"get": {"responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/DataBody_Vec_TagDto"}}}}}}}},
            "components": {"schemas": {
                "TagDto": {"type": "object"},
                "DataBody_Vec_TagDto": {"properties": {"data": {"items": {"$ref": "#/components/schemas/TagDto"}}}},
            }}
        });
        rename(&mut document);
        assert_eq!(
            document,
            json!({
                "paths": {"/v1/tags": {"get": {"responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/TagListResponse"}}}}}}}},
                "components": {"schemas": {
                    "Tag": {"type": "object"},
                    "TagListResponse": {"properties": {"data": {"items": {"$ref": "#/components/schemas/Tag"}}}},
                }}
            })
        );
    }

    #[test]
    #[should_panic(expected = "two schemas would share a name")]
    fn two_components_given_one_name_are_refused() {
        rename(&mut json!({"components": {"schemas": {"TagDto": {}, "Tag": {}}}}));
    }
}
