//! `GET /inbox`: the team's web inbox. One HTML page and its stylesheet and scripts, embedded
//! in the binary at build time (no CDN, no JavaScript toolchain: hand-written ES modules under
//! `crates/api-actix/inbox/`). The page signs a member in and then calls `/v1` with the
//! member's session, as any client does: it holds no server-side logic of its own.
//!
//! Every answer carries a Content-Security-Policy that allows scripts and styles from this
//! origin only (no inline script, no inline style, no `eval`), images also over https (product
//! pictures) and nothing framed: a message that smuggles markup past the page's text-only
//! rendering still could not run.

use actix_web::http::header::{self, ContentType, EntityTag};
use actix_web::web::{self, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::OnceLock;

use super::page_resource;
use crate::http::error::ApiError;

/// The page's policy: see the module's documentation.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; \
     media-src 'self' https:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// One embedded file: its path under `/inbox/assets/`, its content type, its bytes.
pub struct Asset {
    pub path: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

macro_rules! asset {
    ($path:literal, $type:expr) => {
        Asset { path: $path, content_type: $type, body: include_str!(concat!("../../../inbox/", $path)) }
    };
}

const JS: &str = "text/javascript; charset=utf-8";

/// The page itself.
pub const PAGE: Asset = asset!("index.html", "text/html; charset=utf-8");

/// What the page loads, by path.
pub const ASSETS: &[Asset] = &[
    asset!("inbox.css", "text/css; charset=utf-8"),
    asset!("js/main.js", JS),
    asset!("js/api.js", JS),
    asset!("js/dom.js", JS),
    asset!("js/state.js", JS),
    asset!("js/signin.js", JS),
    asset!("js/list.js", JS),
    asset!("js/thread.js", JS),
    asset!("js/messages.js", JS),
    asset!("js/composer.js", JS),
    asset!("js/contact.js", JS),
    asset!("js/live.js", JS),
    asset!("js/reports.js", JS),
    asset!("js/rules.js", JS),
    asset!("js/rule_editor.js", JS),
    asset!("js/templates.js", JS),
    asset!("js/views.js", JS),
];

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(page_resource("/inbox").route(web::get().to(page)))
        .service(page_resource("/inbox/assets/{path:.+}").route(web::get().to(asset)));
}

async fn page(req: HttpRequest) -> HttpResponse {
    serve(&req, &PAGE)
}

async fn asset(req: HttpRequest, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let found = ASSETS.iter().find(|a| a.path == path.as_str()).ok_or(ApiError::RouteNotFound)?;
    Ok(serve(&req, found))
}

/// The file with its validator: browsers ask again each time (`no-cache`) and get a 304 while
/// the binary is the same, so a new release's page never runs with an old script.
fn serve(req: &HttpRequest, asset: &Asset) -> HttpResponse {
    let tag = etag(asset);
    let quoted = format!("\"{tag}\"");
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|raw| raw.split(',').map(str::trim).any(|t| t == "*" || t.trim_start_matches("W/") == quoted));
    let mut answer = if unchanged { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    answer
        .insert_header(header::ETag(EntityTag::new_strong(tag)))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "same-origin"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"));
    if unchanged {
        answer.finish()
    } else {
        answer.insert_header(ContentType(asset.content_type.parse().expect("a valid content type"))).body(asset.body)
    }
}

/// The first 16 hex digits of the file's SHA-256, computed once per file.
fn etag(asset: &Asset) -> String {
    static TAGS: OnceLock<HashMap<&'static str, String>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        std::iter::once(&PAGE)
            .chain(ASSETS)
            .map(|a| (a.path, Sha256::digest(a.body.as_bytes()).iter().take(8).map(|b| format!("{b:02x}")).collect()))
            .collect()
    });
    tags[asset.path].clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page stays small: HTML, CSS and JavaScript together under 250 KB, uncompressed.
    #[test]
    fn the_page_and_its_assets_weigh_under_250_kb() {
        let total: usize = std::iter::once(&PAGE).chain(ASSETS).map(|a| a.body.len()).sum();
        assert!(total < 250 * 1024, "the inbox weighs {total} bytes");
    }

    /// Every script the page imports is served, and nothing is served that no page loads.
    #[test]
    fn every_module_the_page_imports_is_embedded() {
        let mut wanted = vec!["inbox.css".to_string(), "js/main.js".to_string()];
        let mut seen = Vec::new();
        while let Some(path) = wanted.pop() {
            if seen.contains(&path) {
                continue;
            }
            let asset = ASSETS.iter().find(|a| a.path == path).unwrap_or_else(|| panic!("{path} is imported but not embedded"));
            for line in asset.body.lines().filter(|l| l.starts_with("import ")) {
                let from = line.rsplit_once("from \"./").map(|(_, rest)| rest.trim_end_matches("\";")).expect("a relative import");
                wanted.push(format!("js/{from}"));
            }
            seen.push(path);
        }
        let mut embedded: Vec<_> = ASSETS.iter().map(|a| a.path.to_string()).collect();
        embedded.sort();
        seen.sort();
        assert_eq!(seen, embedded);
        assert!(PAGE.body.contains("/inbox/assets/inbox.css") && PAGE.body.contains("/inbox/assets/js/main.js"));
    }

    /// No script or style in the HTML itself, nor any `on…=` handler: the policy would block
    /// them, so one would be a page that silently does not work.
    #[test]
    fn the_page_has_no_inline_script_or_style() {
        let html = PAGE.body;
        assert!(!html.contains("<script>") && !html.contains("<style") && !html.contains(" style="), "inline script or style");
        assert!(!html.contains(" onclick=") && !html.contains(" onload=") && !html.contains(" onsubmit="), "an inline handler");
        for asset in ASSETS {
            assert!(
                !asset.body.contains("innerHTML") && !asset.body.contains("insertAdjacentHTML") && !asset.body.contains("eval("),
                "{} writes markup or evaluates code",
                asset.path
            );
        }
    }
}
