//! A storefront's browser code against the real server: a plain HTML page served from another
//! origin, run in headless Chromium, lists products, creates a cart with a publishable key and
//! reads it back; the same key on /v1/tags is refused. The test reads what the page shows.
//!
//! Needs Debian's `chromium` (`cargo xtask test` installs it); it fails, never skips, without it.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;

use crate::common::server::{ParleyServer, free_port};

/// Serves `html` for any request, on another origin than the API (another port).
fn serve_page(html: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok) {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            );
            let _ = stream.write_all(response.as_bytes());
        }
    });
    port
}

const PAGE: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>Storefront</title></head>
<body><ul id="out"></ul>
<script>
const API = "__API__/v1";
const KEY = "__KEY__";
const out = document.getElementById("out");
function show(id, text) { const li = document.createElement("li"); li.id = id; li.textContent = text; out.appendChild(li); }
async function run() {
  try {
    const list = await fetch(API + "/products?limit=3", { headers: { "X-API-Key": KEY } });
    const products = await list.json();
    show("products", list.status + " " + products.data.length + " " + products.pagination.total);
    const first = products.data[0]._id;
    const made = await fetch(API + "/carts", {
      method: "POST",
      headers: { "X-API-Key": KEY, "Content-Type": "application/json" },
      body: JSON.stringify({ items: [{ id: first, qty: 2 }] }),
    });
    const created = await made.json();
    show("cart-created", made.status + " " + created.data.code);
    const read = await fetch(API + "/carts/" + created.data.code, { headers: { "X-API-Key": KEY } });
    const cart = await read.json();
    show("cart-read", read.status + " " + (cart.data.items[0]._id === first) + " x" + cart.data.items[0].qty);
  } catch (e) {
    show("error", String(e));
  }
  try {
    const tags = await fetch(API + "/tags", { headers: { "X-API-Key": KEY } });
    show("tags", "answered " + tags.status);
  } catch (e) {
    show("tags", "refused " + e.name);
  }
  show("done", "done");
}
run();
</script></body></html>"#;

/// The `<li id="…">` text of the dumped page.
fn item(dom: &str, id: &str) -> Option<String> {
    let start = dom.find(&format!("<li id=\"{id}\">"))? + id.len() + 10;
    Some(dom[start..start + dom[start..].find("</li>")?].to_string())
}

#[test]
fn a_storefront_page_on_another_origin_uses_the_catalog_and_carts_with_a_publishable_key() {
    let chromium =
        ["chromium", "chromium-browser"].into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()));
    let chromium = chromium.expect("this test needs Chromium: `apt-get install chromium` (`cargo xtask test` installs it)");

    let dir = tempfile::tempdir().unwrap();
    let api = ParleyServer::start(&dir.path().join("parley.db"), free_port(), &[], |l| l.trim_start().starts_with("export "));
    let key = api.banner_value("publishable key:").expect("the banner prints the demo publishable key");
    let api_port = api.port;
    let page_port = serve_page(PAGE.replace("__API__", &format!("http://127.0.0.1:{api_port}")).replace("__KEY__", &key));

    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.path().display()),
            "--virtual-time-budget=20000",
            "--dump-dom",
            &format!("http://127.0.0.1:{page_port}/"),
        ])
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        item(&dom, "done").as_deref(),
        Some("done"),
        "the page finished; DOM: {dom}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(item(&dom, "error"), None, "no step failed: {dom}");
    assert_eq!(item(&dom, "products").as_deref(), Some("200 3 36"), "three of the 36 demo products: {dom}");
    let created = item(&dom, "cart-created").unwrap();
    let code = created.strip_prefix("201 ").unwrap_or_else(|| panic!("cart created: {created}"));
    assert_eq!(code.len(), 7, "a 7-character code: {code}");
    assert_eq!(item(&dom, "cart-read").as_deref(), Some("200 true x2"), "{dom}");
    assert_eq!(item(&dom, "tags").as_deref(), Some("refused TypeError"), "the browser may not call /v1/tags: {dom}");
}
