//! A product: its stored document is already the JSON that `ProductDto` describes, so the
//! catalog's reads skip decoding and encoding every product again.

use parley_domain::model::ProductDocument;

use super::JsonText;
use crate::http::dto::ProductDto;

impl JsonText for ProductDocument {
    type Dto = ProductDto;

    fn push_json(&self, out: &mut String) {
        out.push_str(self.as_str());
    }

    fn json_len_hint(&self) -> usize {
        self.as_str().len()
    }
}
