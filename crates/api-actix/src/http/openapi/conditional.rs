//! Rules that depend on another field's value, which utoipa's derives cannot say and OpenAPI
//! 3.1 (JSON Schema 2020-12) can, with `if`/`then`: added to the document's JSON by name.

use serde_json::{Value, json};

/// 7–15 digits once `+`, spaces and dashes are removed, around whitespace the API trims
/// (`phone_digits`).
const PHONE: &str = r"^\s*[+ -]*([0-9][+ -]*){7,15}\s*$";
/// Printable ASCII with one `@` and a dotted domain (`Email::new`'s rule).
const EMAIL: &str = r"^[!-?A-~]{1,64}@([!-\-/-?A-~]{1,63}\.)+[!-\-/-?A-~]{1,63}$";

/// Contact create: `channel_id` is a phone number on WhatsApp and SMS, an address on email.
pub fn add(document: &mut Value) {
    let Some(schema) = document.pointer_mut("/components/schemas/CreateContact").and_then(Value::as_object_mut) else { return };
    let when = |types: &[&str], channel_id: Value| {
        json!({
            "if": {"properties": {"channel_type": {"enum": types}}, "required": ["channel_type"]},
            "then": {"properties": {"channel_id": channel_id}}
        })
    };
    let phone = json!({"type": "string", "pattern": PHONE});
    let email = json!({"type": "string", "pattern": EMAIL, "maxLength": 254});
    schema.insert("allOf".into(), json!([when(&["whatsapp", "sms"], phone), when(&["email"], email)]));
}
