//! `cargo xtask bench catalog`: import throughput and catalog read latency.
//!
//! Import: wall time of `parley catalog import` per size, against a baseline of the same file
//! with `--dry-run` (read + validate, no writes), so the ratio isolates the cost of writing.
//! Reads: p50/p99 of the catalog endpoints at the largest size, against `GET /v1/tags` of the
//! same agent (authentication plus one tiny indexed query) as the baseline.

use std::fmt::Write;

use super::generate::{self, CATEGORIES};
use super::http::{self, Client};
use super::{Options, Server, free_port, fresh_database, json_field, parley, release_binary, scratch, write_report};

const WARMUP: usize = 50;
const REQUESTS: usize = 1000;

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn run(options: &Options) -> Result<(), String> {
    let bin = release_binary()?;
    let largest = *options.sizes.iter().max().ok_or("no sizes")?;
    let mut files = Vec::new();
    for &size in &options.sizes {
        let path = scratch()?.join(format!("catalog-{size}.jsonl"));
        std::fs::write(&path, generate::catalog(size)).map_err(|e| e.to_string())?;
        files.push((size, path));
    }

    let mut imports = String::from(
        "| backend | products | import | products/s | dry run (baseline) | import ÷ baseline |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let mut reads = String::from("| backend | endpoint | p50 ms | p99 ms | p50 ÷ baseline |\n|---|---|---:|---:|---:|\n");
    for backend in &options.backends {
        let url = fresh_database(backend)?;
        let mut read_agent = None;
        for (size, path) in &files {
            let (agent, _) = parley(&bin, &url, &["agents", "create", "--name", &format!("bench {size}")])?;
            let agent = json_field(&agent, "id")?;
            let file = path.display().to_string();
            let (_, dry) = parley(&bin, &url, &["catalog", "import", "--agent", &agent, "--dry-run", &file])?;
            let (_, import) = parley(&bin, &url, &["catalog", "import", "--agent", &agent, &file])?;
            eprintln!("{backend}: imported {size} products in {:.2} s (dry run {:.2} s)", import.as_secs_f64(), dry.as_secs_f64());
            let _ = writeln!(
                imports,
                "| {backend} | {size} | {:.2} s | {:.0} | {:.2} s | {:.2} |",
                import.as_secs_f64(),
                *size as f64 / import.as_secs_f64(),
                dry.as_secs_f64(),
                import.as_secs_f64() / dry.as_secs_f64()
            );
            if *size == largest {
                read_agent = Some(agent);
            }
        }

        let agent = read_agent.ok_or("no agent for reads")?;
        let (key, _) = parley(&bin, &url, &["keys", "create", "--agent", &agent])?;
        let key = json_field(&key, "key")?;
        let port = free_port()?;
        let _server = Server::start(&bin, &url, port)?;
        let mut client = Client::connect(port, &key)?;
        let baseline = http::measure(&mut client, "/v1/tags", WARMUP, REQUESTS)?;
        let _ = writeln!(reads, "| {backend} | GET /v1/tags (baseline) | {:.3} | {:.3} | 1.00 |", ms(baseline.p50), ms(baseline.p99));
        let tag = CATEGORIES[2].replace(' ', "%20");
        let endpoints = [
            ("list products, first page", "/v1/products?limit=50".to_string()),
            ("list products, offset 5000", "/v1/products?limit=50&offset=5000".to_string()),
            ("list products by category tag", format!("/v1/products?limit=50&tag={tag}")),
            ("list services (kind filter)", "/v1/products?limit=50&kind=service".to_string()),
            ("list by tag and kind", format!("/v1/products?limit=50&tag={tag}&kind=product")),
            ("get one product", "/v1/products/gen_004242".to_string()),
            ("categories", "/v1/categories".to_string()),
        ];
        for (name, path) in endpoints {
            let stats = http::measure(&mut client, &path, WARMUP, REQUESTS)?;
            eprintln!("{backend}: {name}: p50 {:.3} ms, p99 {:.3} ms", ms(stats.p50), ms(stats.p99));
            let _ = writeln!(
                reads,
                "| {backend} | {name} | {:.3} | {:.3} | {:.2} |",
                ms(stats.p50),
                ms(stats.p99),
                ms(stats.p50) / ms(baseline.p50)
            );
        }
    }

    let section = format!(
        "## Catalog: `cargo xtask bench catalog`\n\nGenerated catalogs (24 categories, half the products with 3 variants, 10% services, 5% drafts, ~900 bytes a line). \
         Import time is the whole `parley catalog import` process: read, validate every row, write in one transaction, recount facets.\n\n{imports}\n\
         Read latency at {largest} products, {REQUESTS} sequential keep-alive requests per endpoint after {WARMUP} warm-up requests, release build, one client:\n\n{reads}\n"
    );
    println!("{section}");
    write_report("catalog", &section)
}
