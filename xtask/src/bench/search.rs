//! `cargo xtask bench search`: semantic search quality and latency, through the real server.
//!
//! Quality: per embedder, a fresh SQLite database holding the demo catalog and the generated
//! labeled catalog (one agent each), the release server started with that embedder, every
//! dev-set query sent over HTTP with limit 10, and nDCG@10, recall@10 and MRR from the labels.
//! BM25 over the same product texts, computed in-process in the same run, is the baseline that
//! shows what meaning adds over keywords.
//! Latency: the static embedder over the catalog bench's generated catalogs, search p50/p99 over
//! the dev-set queries in rotation, unfiltered and filtered by tags that keep 1% and 50% of the
//! products, against `GET /healthz` on the same server in the same run.

use std::fmt::Write as _;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::bm25::Bm25;
use super::devset::{self, LabeledCatalog, Query};
use super::http::{self, Client};
use super::json::{self, Json};
use super::metrics::{self, K, Scores};
use super::{
    Options, Server, free_port, fresh_database, generate, json_field, labeled, parley, parley_shown, release_binary, scratch, write_marked,
    write_report,
};
use crate::root;

const WARMUP: usize = 50;
/// Extra category tags the latency catalogs carry, so filtered search is timed on filters that
/// keep 1% and 50% of the products.
const RARE_TAG: &str = "bench-one-in-100";
const HALF_TAG: &str = "bench-one-in-2";

fn bench_tags(i: usize) -> &'static [&'static str] {
    match (i.is_multiple_of(100), i.is_multiple_of(2)) {
        (true, _) => &[RARE_TAG, HALF_TAG],
        (false, true) => &[HALF_TAG],
        (false, false) => &[],
    }
}
const REQUESTS: usize = 1000;
/// How long after spawning the server search may take to return results (loading vectors).
const READY_TIMEOUT: Duration = Duration::from_secs(15 * 60);

pub fn run(options: &Options) -> Result<(), String> {
    let catalogs = [devset::demo()?, labeled::generated()?];
    // Latency cycles through every dev-set query: realistic lengths and words.
    let queries: Vec<&str> = catalogs.iter().flat_map(|c| c.queries.iter().map(|q| q.text.as_str())).collect();
    let bin = release_binary()?;
    if options.million {
        let figures = latency(&bin, options, &queries)?;
        let section = format!("## Search at a million products: `cargo xtask bench search --million`\n\n{figures}");
        println!("{section}");
        return write_report("search-million", &section);
    }
    let quality = quality(&bin, options, &catalogs)?;
    // The quality tables also fill docs/search.md's Figures, beside the method they come from.
    write_marked("docs/search.md", "# Product search\n", "search-quality", &quality)?;
    let latency = latency(&bin, options, &queries)?;
    let section = format!("## Search: `cargo xtask bench search`\n\nWhat the figures mean: [search.md](search.md).\n\n{quality}{latency}");
    println!("{section}");
    write_report("search", &section)
}

fn search_path(q: &str) -> String {
    format!("/v1/products/search?q={}&limit={K}", http::encode(q))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The ids of a search answer in order, and whether its scores never increase.
fn answer(body: &[u8]) -> Result<(Vec<String>, bool), String> {
    let doc = json::parse(std::str::from_utf8(body).map_err(|e| e.to_string())?)?;
    let data = doc.array_field("data")?;
    let ids = data.iter().map(|item| item.str_field("_id").map(str::to_string)).collect::<Result<_, _>>()?;
    let scores: Vec<f64> = data.iter().filter_map(|item| item.get("score").and_then(Json::as_f64)).collect();
    Ok((ids, scores.windows(2).all(|w| w[0] >= w[1])))
}

/// Waits until search returns results (the server may listen before its vectors are loaded);
/// returns the time since the server was spawned.
fn wait_ready(server: &mut Server, client: &mut Client, path: &str) -> Result<Duration, String> {
    let mut noted = Instant::now();
    loop {
        let (status, body) = client.get(path)?;
        match status {
            200 if !answer(&body)?.0.is_empty() => return Ok(server.uptime()),
            200 | 503 => {}
            404 => return Err("GET /v1/products/search answered 404: this build has no search endpoint".into()),
            other => return Err(format!("search answered {other}: {}", String::from_utf8_lossy(&body))),
        }
        server.check_running()?;
        if server.uptime() > READY_TIMEOUT {
            return Err("search never returned results".into());
        }
        if noted.elapsed() > Duration::from_secs(10) {
            eprintln!("waiting for search to return results ({:.0} s since start)…", server.uptime().as_secs_f64());
            noted = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The folder `minilm` loads: PARLEY_MODEL_DIR as the server reads it, else where
/// `cargo xtask fetch-model` puts it.
fn model_dir() -> PathBuf {
    match std::env::var_os("PARLEY_MODEL_DIR") {
        Some(dir) => std::path::absolute(&dir).unwrap_or_else(|_| dir.into()),
        None => root().join("models/all-MiniLM-L6-v2"),
    }
}

fn has_model(dir: &Path) -> bool {
    ["config.json", "tokenizer.json", "model.safetensors"].iter().all(|f| dir.join(f).is_file())
}

/// One row of a quality table.
struct Row {
    method: String,
    /// Over every query, then over those tuned on and over the held-out ones apart.
    scores: Scores,
    tuning: Scores,
    held_out: Scores,
    /// Only for embedders: the import (which embeds every product) and the median HTTP round
    /// trip of the dev-set queries (which embeds the query).
    import: Option<Duration>,
    query_p50: Option<Duration>,
}

/// A query's scores from the ids that came back.
fn evaluate(query: &Query, ranked: &[String]) -> Scores {
    let labels: Vec<u8> = query.labels.values().copied().collect();
    Scores::of(&metrics::grades(ranked, &query.labels), &labels)
}

/// Per-query results for reading failures (`target/bench/search-quality.tsv`).
struct Log(String);

impl Log {
    fn add(&mut self, catalog: &LabeledCatalog, method: &str, query: &Query, scores: Scores, ranked: &[String]) {
        let top: Vec<&str> = ranked.iter().take(3).map(String::as_str).collect();
        let _ = writeln!(
            self.0,
            "{}\t{method}\t{}\t{}\t{:.3}\t{:.3}\t{:.3}\t{}",
            catalog.name,
            if query.held_out { "held out" } else { "tuned on" },
            query.text,
            scores.ndcg,
            scores.recall,
            scores.mrr,
            top.join(" ")
        );
    }
}

/// The mean scores over every query, over those not held out, and over the held-out ones.
fn split_means(catalog: &LabeledCatalog, scores: &[Scores]) -> (Scores, Scores, Scores) {
    let part =
        |held: bool| -> Vec<Scores> { catalog.queries.iter().zip(scores).filter(|(q, _)| q.held_out == held).map(|(_, s)| *s).collect() };
    (Scores::mean(scores), Scores::mean(&part(false)), Scores::mean(&part(true)))
}

fn quality(bin: &Path, options: &Options, catalogs: &[LabeledCatalog]) -> Result<String, String> {
    let mut log = Log("catalog\tmethod\tpart\tquery\tndcg@10\trecall@10\trr\ttop 3\n".into());
    let mut files = Vec::new();
    for (i, catalog) in catalogs.iter().enumerate() {
        let path = scratch()?.join(format!("search-labeled-{i}.jsonl"));
        std::fs::write(&path, &catalog.jsonl).map_err(|e| e.to_string())?;
        files.push(path.display().to_string());
    }
    let mut tables: Vec<Vec<Row>> = catalogs
        .iter()
        .map(|catalog| {
            let index = Bm25::new(catalog.active().map(|p| (p.id.as_str(), p.text.as_str())));
            let scores: Vec<Scores> = catalog
                .queries
                .iter()
                .map(|query| {
                    let ranked: Vec<String> = index.search(&query.text, K).into_iter().map(|(id, _)| id.to_string()).collect();
                    let scores = evaluate(query, &ranked);
                    log.add(catalog, "bm25", query, scores, &ranked);
                    scores
                })
                .collect();
            let (all, tuning, held_out) = split_means(catalog, &scores);
            vec![Row { method: "BM25 (keywords, baseline)".into(), scores: all, tuning, held_out, import: None, query_p50: None }]
        })
        .collect();

    let mut notes = Vec::new();
    let model = model_dir();
    let model_text = model.display().to_string();
    for embedder in &options.embedders {
        let env: Vec<(&str, &str)> = match embedder.as_str() {
            "static" => vec![("PARLEY_EMBEDDER", "static")],
            "minilm" if has_model(&model) => vec![("PARLEY_EMBEDDER", "minilm"), ("PARLEY_MODEL_DIR", &model_text)],
            "minilm" => {
                let note = format!(
                    "minilm skipped: no model in `{model_text}`. Fetch it with `cargo xtask fetch-model`, or point PARLEY_MODEL_DIR at an all-MiniLM-L6-v2 folder."
                );
                eprintln!("{note}");
                notes.push(note);
                continue;
            }
            other => return Err(format!("unknown embedder {other:?}: static or minilm (openai is remote and not benchmarked)")),
        };
        let url = fresh_database("sqlite")?;
        let mut keys = Vec::new();
        for (catalog, file) in catalogs.iter().zip(&files) {
            let (agent, _) = parley(bin, &url, &["agents", "create", "--name", catalog.name])?;
            let agent = json_field(&agent, "id")?;
            eprintln!("{embedder}: importing the {} ({} products)…", catalog.name, catalog.products.len());
            let import = parley_shown(bin, &url, &env, &["catalog", "import", "--agent", &agent, file])?;
            eprintln!("{embedder}: imported in {:.2} s", import.as_secs_f64());
            let (key, _) = parley(bin, &url, &["keys", "create", "--agent", &agent])?;
            keys.push((json_field(&key, "key")?, import));
        }
        let port = free_port()?;
        let mut server = Server::start_with(bin, &url, port, &env)?;
        for ((catalog, (key, import)), rows) in catalogs.iter().zip(keys).zip(&mut tables) {
            let mut client = Client::connect(port, &key)?;
            wait_ready(&mut server, &mut client, &search_path(&catalog.queries[0].text))?;
            let drafts: Vec<&str> = catalog.products.iter().filter(|p| !p.active).map(|p| p.id.as_str()).collect();
            let (mut scores, mut times, mut unordered, mut with_drafts) = (Vec::new(), Vec::new(), 0, 0);
            for query in &catalog.queries {
                let path = search_path(&query.text);
                let started = Instant::now();
                let (status, body) = client.get(&path)?;
                times.push(started.elapsed());
                if status != 200 {
                    return Err(format!("GET {path} answered {status}: {}", String::from_utf8_lossy(&body)));
                }
                let (ranked, ordered) = answer(&body)?;
                unordered += usize::from(!ordered);
                with_drafts += usize::from(ranked.iter().any(|id| drafts.contains(&id.as_str())));
                let one = evaluate(query, &ranked);
                log.add(catalog, embedder, query, one, &ranked);
                scores.push(one);
            }
            if unordered + with_drafts > 0 {
                notes.push(format!(
                    "{embedder} on the {}: {unordered} answers not ordered by score, {with_drafts} holding a draft.",
                    catalog.name
                ));
            }
            times.sort();
            let (scores, tuning, held_out) = split_means(catalog, &scores);
            eprintln!(
                "{embedder} on the {}: nDCG@10 {:.3}, recall@10 {:.3}, MRR {:.3}",
                catalog.name, scores.ndcg, scores.recall, scores.mrr
            );
            rows.push(Row {
                method: embedder.clone(),
                scores,
                tuning,
                held_out,
                import: Some(import),
                query_p50: Some(times[times.len() / 2]),
            });
        }
    }
    let log_path = scratch()?.join("search-quality.tsv");
    std::fs::write(&log_path, log.0).map_err(|e| e.to_string())?;
    eprintln!("per-query results: {}", log_path.display());

    let mut out = format!(
        "Quality: every dev-set query sent over HTTP with limit {K}; the mean over queries of nDCG@10 (gain 2^grade − 1), \
         recall@10 (grade ≥ 1, out of at most 10) and MRR (first result of grade ≥ 2). \
         BM25 ranks the same product texts in-process, in the same run. \
         nDCG@10 is also given over the queries tuned on and over the held-out ones (`held_out` in the dev-set files), kept out of every tuning decision. \
         Import is the whole `parley catalog import` (embedding every product); query p50 is the median HTTP round trip of these queries.\n\n"
    );
    for (catalog, rows) in catalogs.iter().zip(&tables) {
        let _ = write!(
            out,
            "{}: {} active products, {} queries ({} held out).\n\n\
             | method | nDCG@10 | tuned on | held out | recall@10 | MRR | import | query p50 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
            capitalize(catalog.name),
            catalog.active().count(),
            catalog.queries.len(),
            catalog.queries.iter().filter(|q| q.held_out).count()
        );
        for row in rows {
            let import = row.import.map_or("–".into(), |d| format!("{:.2} s", d.as_secs_f64()));
            let p50 = row.query_p50.map_or("–".into(), |d| format!("{:.2} ms", ms(d)));
            let s = row.scores;
            let _ = writeln!(
                out,
                "| {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {import} | {p50} |",
                row.method, s.ndcg, row.tuning.ndcg, row.held_out.ndcg, s.recall, s.mrr
            );
        }
        out.push('\n');
    }
    for note in notes {
        let _ = writeln!(out, "- {note}");
    }
    out.push('\n');
    Ok(out)
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

fn latency(bin: &Path, options: &Options, queries: &[&str]) -> Result<String, String> {
    let paths: Vec<String> = queries.iter().map(|q| search_path(q)).collect();
    let env = [("PARLEY_EMBEDDER", "static")];
    let mut table = String::from(
        "| backend | products | import | listening after | search ready after | RSS after load | `GET /healthz` p50 / p99 (baseline) | search p50 / p99 | search p50 ÷ baseline | tag keeping 1%: p50 / p99 | tag keeping 50%: p50 / p99 |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for backend in &options.backends {
        for &size in &options.sizes {
            let file = scratch()?.join(format!("catalog-{size}.jsonl"));
            eprintln!("generating {size} products into {}…", file.display());
            let mut out = BufWriter::new(std::fs::File::create(&file).map_err(|e| e.to_string())?);
            generate::write_catalog_tagged(size, &mut out, &bench_tags).and_then(|()| out.flush()).map_err(|e| e.to_string())?;
            drop(out);
            let url = fresh_database(backend)?;
            let (agent, _) = parley(bin, &url, &["agents", "create", "--name", &format!("search bench {size}")])?;
            let agent = json_field(&agent, "id")?;
            eprintln!("{backend}: importing {size} products with the static embedder…");
            let import = parley_shown(bin, &url, &env, &["catalog", "import", "--agent", &agent, &file.display().to_string()])?;
            eprintln!("{backend}: imported {size} products in {:.2} s; starting the server…", import.as_secs_f64());
            let (key, _) = parley(bin, &url, &["keys", "create", "--agent", &agent])?;
            let key = json_field(&key, "key")?;
            let port = free_port()?;
            let mut server = Server::start_with(bin, &url, port, &env)?;
            let mut client = Client::connect(port, &key)?;
            let ready = wait_ready(&mut server, &mut client, &paths[0])?;
            eprintln!(
                "{backend}: listening after {:.2} s, search ready after {:.2} s",
                server.listening_after.as_secs_f64(),
                ready.as_secs_f64()
            );
            let baseline = http::measure(&mut client, "/healthz", WARMUP, REQUESTS)?;
            let search = http::measure_rotating(&mut client, &paths, WARMUP, REQUESTS)?;
            let filtered = |tag: &str| paths.iter().map(|p| format!("{p}&tag={tag}")).collect::<Vec<_>>();
            let rare = http::measure_rotating(&mut client, &filtered(RARE_TAG), WARMUP, REQUESTS)?;
            let half = http::measure_rotating(&mut client, &filtered(HALF_TAG), WARMUP, REQUESTS)?;
            let rss = server.resident_kib().map_or("n/a".into(), |kib| format!("{:.0} MiB", kib as f64 / 1024.0));
            eprintln!("{backend}: {size} products: search p50 {:.3} ms, p99 {:.3} ms, {rss}", ms(search.p50), ms(search.p99));
            let _ = writeln!(
                table,
                "| {backend} | {size} | {:.2} s | {:.2} s | {:.2} s | {rss} | {:.3} / {:.3} ms | {:.3} / {:.3} ms | {:.1} | {:.3} / {:.3} ms | {:.3} / {:.3} ms |",
                import.as_secs_f64(),
                server.listening_after.as_secs_f64(),
                ready.as_secs_f64(),
                ms(baseline.p50),
                ms(baseline.p99),
                ms(search.p50),
                ms(search.p99),
                ms(search.p50) / ms(baseline.p50),
                ms(rare.p50),
                ms(rare.p99),
                ms(half.p50),
                ms(half.p99)
            );
        }
    }
    Ok(format!(
        "Latency with the static embedder over the catalog bench's generated catalogs (random words, so only timing means anything here): \
         {REQUESTS} sequential keep-alive requests after {WARMUP} warm-up ones, cycling through the {} dev-set queries with limit {K}, \
         release build, one client. The filtered columns send the same queries with `tag`: one tag on every 100th generated product \
         (1%), one on every other one (50%). The baseline is `GET /healthz` on the same server in the same run. \
         Start-up counts from spawning `parley serve`: until its port accepts connections, and until a search first returns results. \
         Resident memory (VmRSS) is read after the requests.\n\n{table}\n",
        queries.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_search_answers() {
        let body = br#"{"data":[{"_id":"a","kind":"product","title":"A \"b\"","currency":"USD","base_price":1,"score":0.9},{"_id":"b","score":0.4}]}"#;
        assert_eq!(answer(body).unwrap(), (vec!["a".to_string(), "b".to_string()], true));
        assert!(!answer(br#"{"data":[{"_id":"a","score":0.1},{"_id":"b","score":0.4}]}"#).unwrap().1);
        assert_eq!(answer(br#"{"data":[]}"#).unwrap().0.len(), 0);
        assert!(answer(br#"{"error":{}}"#).is_err());
    }

    #[test]
    fn search_paths_are_encoded() {
        assert_eq!(search_path("I'm cold"), "/v1/products/search?q=I%27m%20cold&limit=10");
    }
}
