//! `docs/api-conventions.md` states numbers and codes the domain holds: these checks fail when
//! one of them changes without the page (or the page without the code).

use parley_domain::DomainError;
use parley_domain::model::PageBounds;
use parley_domain::services::WEBHOOK_PAGES;

const CONVENTIONS: &str = include_str!("../../../docs/api-conventions.md");

/// The section of the page under `## {title}`, up to the next section.
fn section(title: &str) -> &'static str {
    let start = CONVENTIONS.find(&format!("\n## {title}\n")).unwrap_or_else(|| panic!("no section {title}"));
    let rest = &CONVENTIONS[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
    &rest[..end]
}

#[test]
fn the_pagination_table_states_each_lists_bounds() {
    let lists = [
        ("GET /v1/activities", PageBounds::CONVERSATIONS),
        ("GET /v1/contacts", PageBounds::CONVERSATIONS),
        ("GET /v1/products", PageBounds::PRODUCTS),
        ("GET /v1/activities/{id}/messages", PageBounds::MESSAGES),
        ("GET /v1/canned_responses", PageBounds::CANNED_RESPONSES),
        ("GET /v1/events", WEBHOOK_PAGES),
        ("GET /v1/webhook_endpoints", WEBHOOK_PAGES),
        ("GET /v1/webhook_endpoints/{id}/deliveries", WEBHOOK_PAGES),
    ];
    let table = section("Pagination and list order");
    for (list, bounds) in lists {
        let row = table.lines().find(|l| l.starts_with(&format!("| `{list}` |"))).unwrap_or_else(|| panic!("no row for {list}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[2], bounds.default_limit.to_string(), "{list}: default limit");
        assert_eq!(cells[3], bounds.max_limit.to_string(), "{list}: most per page");
    }
}

#[test]
fn the_errors_section_names_every_code_of_the_domain() {
    let errors = section("Errors");
    for code in DomainError::CODES {
        assert!(errors.contains(&format!("`{code}`")), "docs/api-conventions.md, Errors, does not name {code}");
    }
}
