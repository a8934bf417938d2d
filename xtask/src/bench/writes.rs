//! `cargo xtask bench writes`: write throughput under many concurrent clients (64 by default),
//! through the release binary, with wrk in a second process.
//!
//! Per backend: a fresh database with one agent (a sandbox line, 1,000 products, activities made
//! by template sends, a few tags), then each write load for a fixed time: status moves in both
//! directions at once (what deadlocked PostgreSQL), tag attaches and detaches, and a mix of every
//! write endpoint. Answers other than 2xx are counted, not fatal, so a build that fails some
//! (`--binary` pointing at an older one) is measured too; `GET /healthz` is the ceiling, as in
//! `bench api`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::api::{SERVER_ENV, send_body, welcome_template};
use super::generate;
use super::http::Client;
use super::http::call;
use super::json::quote;
use super::wrk::{Figures, Load, Wrk};
use super::{Server, fresh_database, json_field, parley, release_binary, scratch};

pub struct WritesOptions {
    pub backends: Vec<String>,
    pub connections: usize,
    pub seconds: u64,
    /// Activities seeded (by sends); the loads move the first few dozen, so rows contend.
    pub activities: usize,
    /// A `parley` binary to measure instead of this tree's release build (an older build, for
    /// a before-and-after comparison).
    pub binary: Option<PathBuf>,
}

impl WritesOptions {
    pub fn parse(args: &[&str]) -> Result<Self, String> {
        let mut options =
            Self { backends: vec!["sqlite".into(), "postgres".into()], connections: 64, seconds: 10, activities: 200, binary: None };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{}", super::USAGE))?;
            let number = || value.parse::<usize>().map_err(|_| format!("{flag}: {value:?} is not a number"));
            match *flag {
                "--backends" => options.backends = value.split(',').map(str::to_string).collect(),
                "--connections" => options.connections = number()?.max(1),
                "--seconds" => options.seconds = number()?.max(1) as u64,
                "--activities" => options.activities = number()?.max(40),
                "--binary" => options.binary = Some(PathBuf::from(value)),
                other => return Err(format!("unknown option {other}\n{}", super::USAGE)),
            }
        }
        Ok(options)
    }
}

/// Ids the loads write to.
struct Seeded {
    template_id: String,
    phones: Vec<String>,
    activity_ids: Vec<String>,
    tag_ids: Vec<String>,
    product_ids: Vec<String>,
}

/// How many activities the loads move: few enough that writers meet on the same rows.
const HOT: usize = 20;

pub fn run(options: &WritesOptions) -> Result<(), String> {
    Wrk::check_installed()?;
    let bin = match &options.binary {
        Some(path) => path.clone(),
        None => release_binary()?,
    };
    let catalog = scratch()?.join("catalog-writes.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&catalog).map_err(|e| e.to_string())?);
    generate::write_catalog(1_000, &mut out).and_then(|()| out.flush()).map_err(|e| e.to_string())?;
    drop(out);
    let wrk = Wrk { connections: options.connections, duration: Duration::from_secs(options.seconds) };

    let mut table = String::from(
        "| backend | load | requests/s | p50 ms | p99 ms | answers not 2xx | throughput ÷ `/healthz` |\n|---|---|---:|---:|---:|---:|---:|\n",
    );
    for backend in &options.backends {
        let (url, key) = prepare(&bin, backend, &catalog)?;
        let port = super::free_port()?;
        let server = Server::start_with(&bin, &url, port, &SERVER_ENV)?;
        let seeded = seed(&mut Client::connect(port, &key)?, options.activities, backend)?;
        let mut measured: Vec<(&str, Figures)> = Vec::new();
        for (name, load) in loads(&seeded) {
            let figures = wrk.run_counting(port, &key, &load, &scratch()?)?;
            eprintln!(
                "{backend}: {name}: {:.0} requests/s, p99 {:.1} ms, {} answers not 2xx",
                figures.requests_per_second,
                ms(figures.p99),
                figures.errors
            );
            measured.push((name, figures));
        }
        let ceiling = measured[0].1.requests_per_second;
        for (name, f) in &measured {
            let _ = writeln!(
                table,
                "| {backend} | {name} | {:.0} | {:.2} | {:.2} | {} | {:.3} |",
                f.requests_per_second,
                ms(f.p50),
                ms(f.p99),
                f.errors,
                f.requests_per_second / ceiling
            );
        }
        drop(server);
    }
    let which = options.binary.as_ref().map_or_else(|| "this tree's release build".to_string(), |b| format!("`{}`", b.display()));
    println!(
        "## Write throughput: `cargo xtask bench writes`\n\n\
         {which}; one agent, {} activities made by sandbox sends, the loads writing to {HOT} of them and 8 tags. \
         wrk ({} connections, one thread) loads each for {} s from a second process on the same 2-core machine, rate limits off.\n\n{table}",
        options.activities, options.connections, options.seconds
    );
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A fresh database with the bench's agent, key, sandbox line and catalog.
fn prepare(bin: &Path, backend: &str, catalog: &Path) -> Result<(String, String), String> {
    let url = fresh_database(backend)?;
    let (agent, _) = parley(bin, &url, &["agents", "create", "--name", "writes bench"])?;
    let agent = json_field(&agent, "id")?;
    let (key, _) = parley(bin, &url, &["keys", "create", "--agent", &agent])?;
    let key = json_field(&key, "key")?;
    parley(bin, &url, &["channels", "add", "--agent", &agent, "--phone-number-id", "100200300", "--waba-id", "400500600", "--sandbox"])?;
    parley(bin, &url, &["catalog", "import", "--agent", &agent, &catalog.display().to_string()])?;
    Ok((url, key))
}

fn seed(client: &mut Client, activities: usize, backend: &str) -> Result<Seeded, String> {
    let template_id = welcome_template(client)?;
    let phones: Vec<String> = (0..activities).map(|i| format!("1555{i:07}")).collect();
    for phone in &phones {
        call(client, "POST", &format!("/v1/templates/{template_id}/send"), Some(&send_body(phone)))?;
    }
    let page = call(client, "GET", &format!("/v1/activities?limit={HOT}"), None)?;
    let activity_ids = page.array_field("data")?.iter().map(|a| a.str_field("id").map(str::to_string)).collect::<Result<_, _>>()?;
    let mut tag_ids = Vec::new();
    for i in 0..8 {
        let tag = call(client, "POST", "/v1/tags", Some(&format!(r#"{{"name":"bench {i}"}}"#)))?;
        tag_ids.push(tag.get("data").ok_or("no data")?.str_field("id")?.to_string());
    }
    let products = call(client, "GET", "/v1/products?limit=20", None)?;
    let product_ids = products.array_field("data")?.iter().map(|p| p.str_field("_id").map(str::to_string)).collect::<Result<_, _>>()?;
    eprintln!("{backend}: seeded {activities} activities and 8 tags");
    Ok(Seeded { template_id, phones, activity_ids, tag_ids, product_ids })
}

type Request = (&'static str, String, Option<String>);

/// The ceiling first, then the write loads.
fn loads(s: &Seeded) -> Vec<(&'static str, Load)> {
    let activity = |i: usize| format!("/v1/activities/{}", s.activity_ids[i % s.activity_ids.len()]);
    let status = |i: usize, round: usize| {
        let to = if (i + round).is_multiple_of(2) { "closed" } else { "open" };
        ("PATCH", activity(i), Some(format!(r#"{{"status":"{to}"}}"#)))
    };
    // Every activity flips each round, and neighbours (sent at the same moment by different
    // connections) move in opposite directions.
    let moves: Vec<Request> = (0..2).flat_map(|round| (0..HOT).map(move |i| (i, round))).map(|(i, round)| status(i, round)).collect();
    let tags = |i: usize| {
        let (a, b) = (&s.tag_ids[i % s.tag_ids.len()], &s.tag_ids[(i * 3 + 1) % s.tag_ids.len()]);
        format!(r#"{{"tag_ids":[{},{}]}}"#, quote(a), quote(b))
    };
    let attach = |i: usize| ("POST", format!("{}/tags", activity(i)), Some(tags(i)));
    let detach = |i: usize| ("DELETE", format!("{}/tags?tag_id={}", activity(i), s.tag_ids[i % s.tag_ids.len()]), None);
    let churn: Vec<Request> = (0..HOT * 2).flat_map(|i| [attach(i), detach(i + 1)]).collect();
    let mut mixed: Vec<Request> = Vec::new();
    for i in 0..HOT * 2 {
        mixed.push(status(i, i / HOT));
        mixed.push(attach(i));
        mixed.push(detach(i + 3));
        let tag = &s.tag_ids[i % s.tag_ids.len()];
        mixed.push((
            "PATCH",
            format!("/v1/tags/{tag}"),
            Some(format!(r#"{{"name":"bench {} {}"}}"#, i % s.tag_ids.len(), i / s.tag_ids.len())),
        ));
        mixed.push((
            "POST",
            "/v1/carts".into(),
            Some(format!(r#"{{"items":[{{"id":{},"qty":1}}]}}"#, quote(&s.product_ids[i % s.product_ids.len()]))),
        ));
        mixed.push(("POST", format!("/v1/templates/{}/send", s.template_id), Some(send_body(&s.phones[i % HOT]))));
    }
    vec![
        ("`GET /healthz` (ceiling)", Load::get("/healthz")),
        ("status moves, both directions at once", Load::each(moves)),
        ("tag attach and detach", Load::each(churn)),
        ("every write endpoint mixed", Load::each(mixed)),
    ]
}
