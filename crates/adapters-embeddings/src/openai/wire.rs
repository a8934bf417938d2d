//! The JSON of `POST /embeddings`, as this adapter sends and reads it. Unknown fields are ignored.

use serde::{Deserialize, Serialize};

/// `{"model", "input": [texts…], "dimensions"?}`. Inputs are always a list, even of one text, so
/// every answer has the same shape; `dimensions` is sent only when configured (servers that do
/// not know it may refuse it).
#[derive(Debug, Serialize)]
pub(super) struct EmbeddingRequest<'a> {
    pub model: &'a str,
    pub input: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<usize>,
}

/// `{"object": "list", "data": [{"object": "embedding", "index", "embedding": [floats]}], "model", "usage"}`.
#[derive(Debug, Deserialize)]
pub(super) struct EmbeddingResponse {
    pub data: Vec<EmbeddingItem>,
}

#[derive(Debug, Deserialize)]
pub(super) struct EmbeddingItem {
    /// The position of the text in the request's `input`; items may come in any order.
    pub index: usize,
    /// Read as f64 and narrowed by `place`, so a number beyond f32 is refused as non-finite
    /// whatever serde_json's float features (with `float_roundtrip`, which a workspace build
    /// may enable, an f32 out of range is a parse error instead).
    pub embedding: Vec<f64>,
}

/// OpenAI's `{"error": {"message", "type", "param", "code"}}`; some compatible servers send
/// `{"error": "message"}` instead.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ErrorEnvelope {
    #[serde(default)]
    error: Option<ErrorBody>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ErrorBody {
    Object {
        #[serde(default)]
        message: Option<String>,
    },
    Text(String),
}

impl ErrorEnvelope {
    /// The server's message, when the body is an error object that carries a non-empty one.
    pub fn message(body: &[u8]) -> Option<String> {
        let envelope: Self = serde_json::from_slice(body).ok()?;
        let message = match envelope.error? {
            ErrorBody::Object { message } => message?,
            ErrorBody::Text(message) => message,
        };
        let message = message.trim();
        (!message.is_empty()).then(|| message.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_request_leaves_out_unset_dimensions() {
        let input = vec!["a".to_string()];
        let body = serde_json::to_value(EmbeddingRequest { model: "m", input: &input, dimensions: None }).unwrap();
        assert_eq!(body, json!({"model": "m", "input": ["a"]}));
        let body = serde_json::to_value(EmbeddingRequest { model: "m", input: &input, dimensions: Some(8) }).unwrap();
        assert_eq!(body, json!({"model": "m", "input": ["a"], "dimensions": 8}));
    }

    #[test]
    fn error_messages_are_read_from_both_shapes() {
        let openai = json!({"error": {"message": "Invalid model", "type": "invalid_request_error", "param": null, "code": null}});
        assert_eq!(ErrorEnvelope::message(openai.to_string().as_bytes()).as_deref(), Some("Invalid model"));
        assert_eq!(
            ErrorEnvelope::message(br#"{"error": "input too long", "error_type": "Validation"}"#).as_deref(),
            Some("input too long")
        );
        assert_eq!(ErrorEnvelope::message(br#"{"error": {"message": "  "}}"#), None);
        assert_eq!(ErrorEnvelope::message(br#"{"error": {"type": "server_error"}}"#), None);
        assert_eq!(ErrorEnvelope::message(b"<html>Bad Gateway</html>"), None);
    }
}
