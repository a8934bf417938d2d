//! Responses made of stored product documents, written out as they are: they are already the
//! JSON that `ProductDto` describes (a test holds the two to the same bytes), so the catalog's
//! reads skip decoding and encoding every product again.

use actix_web::HttpResponse;
use parley_domain::model::{Page, ProductDocument};

use crate::json_text::{json_response, page_response};

/// 200 with `{"data": <document>}`.
pub fn one(doc: &ProductDocument) -> HttpResponse {
    let mut body = String::with_capacity(doc.as_str().len() + 10);
    body.push_str("{\"data\":");
    body.push_str(doc.as_str());
    body.push('}');
    json_response(body)
}

/// 200 with `{"data": [<document>, …], "pagination": {…}}`.
pub fn page(page: &Page<ProductDocument>) -> HttpResponse {
    page_response(page, |d| d.as_str().len(), |out, d| out.push_str(d.as_str()))
}

#[cfg(test)]
mod tests {
    use parley_domain::model::{AgentId, Product, ProductRecord, parse_timestamp};

    use super::*;
    use crate::dto::ProductDto;

    fn products() -> Vec<Product> {
        let agent = AgentId::new("agt_a");
        let now = parse_timestamp("now", "2026-11-01T00:00:00Z").unwrap();
        let edge = r#"{"_id":"p\"é","kind":"service","title":"Tab\there ☕","description":"","currency":"JPY","base_price":0.1,
            "compare_at_price":1e3,"media":[{"url":"http://x.test/v","type":"video"}],"variants":[{"id":"v","title":"V","price":3}]}"#;
        crate::seed::DEMO_CATALOG
            .lines()
            .chain([edge])
            .map(|line| Product::from_record(&agent, serde_json::from_str::<ProductRecord>(line).unwrap(), now, None).unwrap())
            .collect()
    }

    #[test]
    fn documents_are_the_bytes_the_schema_describes() {
        for p in products() {
            assert_eq!(ProductDocument::of(&p).as_str(), serde_json::to_string(&ProductDto::from(&p)).unwrap(), "{}", p.id.as_str());
        }
    }

    #[test]
    fn a_page_of_documents_is_a_page_body() {
        let items: Vec<ProductDocument> = products().iter().take(3).map(ProductDocument::of).collect();
        let page = Page { items, total: 7, request: parley_domain::model::PageRequest::new(3, 0) };
        let body = actix_web::body::to_bytes(super::page(&page).into_body());
        let body = futures_util::FutureExt::now_or_never(body).unwrap().unwrap();
        let parsed: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let expected: Vec<serde_json::Value> = page.items.iter().map(|d| serde_json::from_str(d.as_str()).unwrap()).collect();
        assert_eq!(parsed["data"], serde_json::Value::Array(expected));
        assert_eq!(parsed["pagination"], serde_json::json!({"total": 7, "limit": 3, "offset": 0, "has_more": true}));
        let empty = Page { items: vec![], total: 0, request: parley_domain::model::PageRequest::new(3, 0) };
        let body = futures_util::FutureExt::now_or_never(actix_web::body::to_bytes(super::page(&empty).into_body())).unwrap().unwrap();
        assert_eq!(&body[..], br#"{"data":[],"pagination":{"total":0,"limit":3,"offset":0,"has_more":false}}"#);
    }
}
