//! `cargo xtask bench api`: throughput and latency of every kind of endpoint, through the
//! release binary, under load from wrk in a second process.
//!
//! Per backend: a fresh database with one agent (a sandbox WhatsApp line, 100,000 products, and
//! 10,000 contacts with one activity each, made by real template sends), the server started with
//! rate limits off, then (PostgreSQL: after `ANALYZE`) each endpoint loaded for a fixed time.
//! `GET /healthz` (no key, no database) is the HTTP ceiling, measured first and last (the higher
//! counts); every endpoint is reported as a fraction of its throughput.

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Duration;

use super::generate::{self, CATEGORIES};
use super::http::{Client, call, encode};
use super::inbound;
use super::json::{Json, quote};
use super::wrk::{Figures, Load, Wrk};
use super::{Server, analyze, free_port, fresh_database, json_field, parley, parley_shown, release_binary, scratch, write_report};

pub struct ApiOptions {
    pub backends: Vec<String>,
    pub products: usize,
    pub contacts: usize,
    pub connections: usize,
    pub seconds: u64,
    /// Signed deliveries the ingestion run POSTs (more for a steadier figure: a run of the
    /// default is a few seconds long, and PostgreSQL's checkpoints come and go within it).
    pub deliveries: usize,
    /// `bench instructions` only: requests counted per endpoint.
    pub requests: usize,
    /// Endpoints whose name contains one of these (the ceiling always runs); empty: all.
    /// A filtered run prints its table but leaves docs/performance.md alone.
    pub only: Vec<String>,
    /// A `parley` binary to measure instead of this tree's release build (an older build, for
    /// a before-and-after comparison); such a run leaves docs/performance.md alone too.
    pub binary: Option<std::path::PathBuf>,
}

impl ApiOptions {
    pub fn parse(args: &[&str]) -> Result<Self, String> {
        Self::parse_for(args, false)
    }

    /// The options of `bench instructions`: SQLite alone unless asked, no load generator.
    pub fn parse_instructions(args: &[&str]) -> Result<Self, String> {
        Self::parse_for(args, true)
    }

    fn parse_for(args: &[&str], instructions: bool) -> Result<Self, String> {
        let mut options = Self {
            backends: if instructions { vec!["sqlite".into()] } else { vec!["sqlite".into(), "postgres".into()] },
            products: 100_000,
            contacts: 10_000,
            connections: 16,
            seconds: 5,
            deliveries: INGESTED,
            requests: 200,
            only: Vec::new(),
            binary: None,
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{}", super::USAGE))?;
            let number = || value.parse::<usize>().map_err(|_| format!("{flag}: {value:?} is not a number"));
            match *flag {
                "--backends" => options.backends = value.split(',').map(str::to_string).collect(),
                "--products" => options.products = number()?.max(100),
                "--contacts" => options.contacts = number()?.max(100),
                "--connections" if !instructions => options.connections = number()?.max(1),
                "--seconds" if !instructions => options.seconds = number()?.max(1) as u64,
                "--deliveries" if !instructions => options.deliveries = number()?.max(100),
                "--requests" if instructions => options.requests = number()?.max(1),
                "--only" => options.only = value.split(',').map(str::to_string).collect(),
                "--binary" => options.binary = Some(value.into()),
                other => return Err(format!("unknown option {other}\n{}", super::USAGE)),
            }
        }
        Ok(options)
    }

    /// The binary to measure: `--binary`, or this tree's release build.
    pub fn binary(&self) -> Result<std::path::PathBuf, String> {
        self.binary.clone().map_or_else(release_binary, Ok)
    }

    /// Whether the figures go into docs/performance.md: a whole run of this tree's build.
    pub fn reported(&self) -> bool {
        self.only.is_empty() && self.binary.is_none()
    }

    /// Whether the endpoint named `name` is measured.
    pub fn wanted(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| name.contains(o.as_str()))
    }
}

/// What seeding made, for building the loads.
pub struct Seeded {
    template_id: String,
    phones: Vec<String>,
    activity_ids: Vec<String>,
    tag_id: String,
    product_ids: Vec<String>,
    cart_codes: Vec<String>,
    /// A conversation with [`TIMELINE`] inbound messages.
    timeline_activity: String,
    /// Conversations whose contacts just wrote (one message each): replies go there.
    reply_activities: Vec<String>,
}

/// Deliveries the ingestion run POSTs by default.
const INGESTED: usize = 5_000;

/// Messages in the conversation whose timeline `list messages` reads.
const TIMELINE: usize = 1_000;

/// The generated catalog file of `options.products` products (written once per run).
pub fn catalog_file(options: &ApiOptions) -> Result<std::path::PathBuf, String> {
    let catalog = scratch()?.join(format!("catalog-{}.jsonl", options.products));
    eprintln!("generating {} products…", options.products);
    let mut out = std::io::BufWriter::new(std::fs::File::create(&catalog).map_err(|e| e.to_string())?);
    generate::write_catalog(options.products, &mut out).and_then(|()| out.flush()).map_err(|e| e.to_string())?;
    Ok(catalog)
}

/// Environment of every server the API benches start: the built-in embedder, and sandbox
/// statuses pushed past the run (else they would be processed while endpoints are measured).
pub const SERVER_ENV: [(&str, &str); 3] =
    [("PARLEY_EMBEDDER", "static"), ("PARLEY_SANDBOX_STEP_MS", "3600000"), ("PARLEY_WHATSAPP_APP_SECRET", inbound::APP_SECRET)];

/// A fresh database of `backend` with the bench's agent, catalog, contacts, activities and
/// carts, analyzed; returns its URL, the agent's secret key and what was seeded.
pub fn prepare(
    bin: &std::path::Path,
    backend: &str,
    catalog: &std::path::Path,
    contacts: usize,
) -> Result<(String, String, Seeded), String> {
    let url = fresh_database(backend)?;
    let (agent, _) = parley(bin, &url, &["agents", "create", "--name", "api bench"])?;
    let agent = json_field(&agent, "id")?;
    let (key, _) = parley(bin, &url, &["keys", "create", "--agent", &agent])?;
    let key = json_field(&key, "key")?;
    let line = ["channels", "add", "--agent", &agent, "--phone-number-id", "100200300", "--waba-id", "400500600", "--sandbox"];
    parley(bin, &url, &line)?;
    let instagram =
        ["channels", "add", "--agent", &agent, "--type", "instagram", "--account-id", inbound::INSTAGRAM_ACCOUNT_ID, "--sandbox"];
    parley(bin, &url, &instagram)?;
    eprintln!("{backend}: importing the catalog…");
    parley_shown(bin, &url, &[("PARLEY_EMBEDDER", "static")], &["catalog", "import", "--agent", &agent, &catalog.display().to_string()])?;
    let seeding_port = free_port()?;
    let seeding = Server::start_with(bin, &url, seeding_port, &SERVER_ENV)?;
    let seeded = seed(&mut Client::connect(seeding_port, &key)?, contacts, backend)?;
    drop(seeding);
    analyze(bin, &url)?;
    Ok((url, key, seeded))
}

pub fn run(options: &ApiOptions) -> Result<(), String> {
    Wrk::check_installed()?;
    let bin = options.binary()?;
    let catalog = catalog_file(options)?;
    let wrk = Wrk { connections: options.connections, duration: Duration::from_secs(options.seconds) };

    let mut table =
        String::from("| backend | endpoint | requests/s | p50 ms | p99 ms | throughput ÷ `/healthz` |\n|---|---|---:|---:|---:|---:|\n");
    let mut rules = String::from(
        "| backend | messages | without rules, messages/s | with 100 rules | without, again | with ÷ without | rules drained after, s |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut ingestion = String::from(
        "| backend | platform | messages | messages/s | POST → visible p50 ms | p99 ms | POST → answer p99 ms |\n|---|---|---:|---:|---:|---:|---:|\n",
    );
    for backend in &options.backends {
        let (url, key, seeded) = prepare(&bin, backend, &catalog, options.contacts)?;
        // Started again: SQLite connections read the statistics when they open, and those of
        // the seeding server opened on empty tables.
        let port = free_port()?;
        let server = Server::start_with(&bin, &url, port, &SERVER_ENV)?;
        let mut loads = loads(&seeded).into_iter().enumerate().filter(|(i, (name, _))| *i == 0 || options.wanted(name)).map(|(_, l)| l);
        let (ceiling_name, ceiling_load) = loads.next().ok_or("no ceiling load")?;
        let mut measured: Vec<(&str, Figures)> = Vec::new();
        for (name, load) in std::iter::once((ceiling_name, ceiling_load.clone())).chain(loads) {
            let figures = wrk.run(port, &key, &load, &scratch()?)?;
            eprintln!(
                "{backend}: {name}: {:.0} requests/s, p50 {:.3} ms, p99 {:.3} ms",
                figures.requests_per_second,
                ms(figures.p50),
                ms(figures.p99)
            );
            measured.push((name, figures));
        }
        // The ceiling again at the end: one disturbed measurement of it (a checkpoint, another
        // process) would inflate every ratio. The higher of the two is the ceiling.
        let again = wrk.run(port, &key, &ceiling_load, &scratch()?)?;
        eprintln!("{backend}: {ceiling_name} again: {:.0} requests/s", again.requests_per_second);
        let ceiling = measured[0].1.requests_per_second.max(again.requests_per_second);
        for (name, figures) in &measured {
            row(&mut table, backend, name, figures, ceiling);
        }
        row(&mut table, backend, "`GET /healthz` again, after the endpoints", &again, ceiling);
        let ingestions = [
            ("inbound ingestion", inbound::Platform::Whatsapp),
            ("inbound ingestion, half the senders username-only", inbound::Platform::WhatsappUsernames),
            ("instagram ingestion", inbound::Platform::Instagram),
        ];
        for (name, platform) in ingestions {
            if !options.wanted(name) {
                continue;
            }
            let run = inbound::ingest(platform, port, &key, options.deliveries, 500, options.connections)?;
            eprintln!(
                "{backend}: {name}: {:.0} messages/s, POST to visible p50 {:.0} ms, p99 {:.0} ms, POST to answer p99 {:.0} ms",
                run.per_second,
                ms(run.p50),
                ms(run.p99),
                ms(run.answer_p99)
            );
            let platform = match platform {
                inbound::Platform::Whatsapp => "WhatsApp",
                inbound::Platform::WhatsappUsernames => "WhatsApp, half the senders username-only",
                inbound::Platform::Instagram => "Instagram",
            };
            let _ = writeln!(
                ingestion,
                "| {backend} | {platform} | {} | {:.0} | {:.0} | {:.0} | {:.0} |",
                run.messages,
                run.per_second,
                ms(run.p50),
                ms(run.p99),
                ms(run.answer_p99)
            );
        }
        if options.wanted("inbound ingestion with 100 rules") {
            let figures = ingestion_with_rules(port, &key, options)?;
            let _ = writeln!(
                rules,
                "| {backend} | {} | {:.0} | {:.0} | {:.0} | {:.2} | {:.2} |",
                figures.messages,
                figures.without_before,
                figures.with_rules,
                figures.without_after,
                figures.ratio(),
                figures.drain.as_secs_f64()
            );
        }
        drop(server);
    }
    let section = format!(
        "## API throughput: `cargo xtask bench api`\n\n\
         One agent with {} products, {} contacts and as many activities (made by sandbox template sends), release build, rate limits off. \
         wrk ({} connections, one thread) loads each endpoint for {} s from a second process on the same 2-core machine; \
         requests cycle through many ids and queries where the endpoint takes one. `GET /healthz` (no key, no database) is the HTTP ceiling, measured first and again last (the higher of the two counts); \
         the last column is each endpoint's throughput as a fraction of it, in the same run. \
         The database is analyzed after seeding (`parley analyze`), as a live server soon has it: PostgreSQL's autovacuum, and the `PRAGMA optimize` that `parley` runs on SQLite.\n\n{table}\n\
         ### Inbound ingestion\n\n\
         {} signed webhook deliveries per platform (one text message each, from 500 contacts; WhatsApp's and Instagram's shapes, each to its own route) POSTed at full speed over {} connections (as many as wrk's) to the same server, \
         then every message read back: throughput from the first POST until the last message was visible, and each message's time from its delivery's POST \
         until its insert (its `updated_at`), and until its answer. Targets: 1,000 messages/s, p99 under 1 s.\n\n{ingestion}\n\
         ### Ingestion with 100 rules\n\n\
         The WhatsApp ingestion again, each run from senders new to the server: without rules, then with 100 enabled `message.received` rules \
         (a `contains` condition on the text that no message meets, so every message is judged against all 100 and none acts), then without again. \
         The rule engine runs on the same server's workers while the messages come in; the last column is how long after the last message was visible \
         the rule queue (`parley_rule_backlog`) was empty. Target: with ÷ without (the mean of both) ≥ 0.9.\n\n{rules}\n",
        options.products, options.contacts, options.connections, options.seconds, options.deliveries, options.connections
    );
    println!("{section}");
    if !options.reported() {
        return Ok(());
    }
    write_report("api", &section)
}

fn row(table: &mut String, backend: &str, name: &str, figures: &Figures, ceiling: f64) {
    let _ = writeln!(
        table,
        "| {backend} | {name} | {:.0} | {:.3} | {:.3} | {:.2} |",
        figures.requests_per_second,
        ms(figures.p50),
        ms(figures.p99),
        figures.requests_per_second / ceiling
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The endpoints measured, `/healthz` first (the ceiling the others are divided by).
pub fn loads(seeded: &Seeded) -> Vec<(&'static str, Load)> {
    let every = |paths: &dyn Fn(&str) -> String, ids: &[String]| ids.iter().map(|id| paths(id)).collect::<Vec<_>>();
    let queries =
        ["something to keep my coffee hot", "shoes for long hikes", "a gift for a gardener", "warm jacket for winter", "kitchen knife"];
    let category = encode(CATEGORIES[2]);
    let send = |phone: &String| send_body(phone);
    let cart = |id: &String| cart_body(id, 2);
    vec![
        ("`GET /healthz` (ceiling)", Load::get("/healthz")),
        ("list activities", Load::get("/v1/activities")),
        ("list activities, status + phone search", Load::get("/v1/activities?status=pending&search=5550004")),
        (
            "list activities, search for one number",
            Load::get_each(every(&|phone| format!("/v1/activities?search={phone}"), &seeded.phones[..seeded.phones.len().min(1000)])),
        ),
        ("list activities by tag", Load::get(format!("/v1/activities?tag={}", seeded.tag_id))),
        // The team inbox's views: every seeded conversation is unassigned, a few are unread.
        ("list activities, unassigned", Load::get("/v1/activities?assigned_to=none")),
        ("list activities, unread", Load::get("/v1/activities?unread=true")),
        // What the web inbox reads first: its status filter (open by default), 25 a page.
        ("the inbox's list (status=open, 25 a page)", Load::get("/v1/activities?status=open&limit=25")),
        ("get activity", Load::get_each(every(&|id| format!("/v1/activities/{id}"), &seeded.activity_ids))),
        ("list contacts", Load::get("/v1/contacts")),
        ("list contacts, deep page", Load::get(format!("/v1/contacts?offset={}", seeded.phones.len() / 2))),
        (
            "list contacts, search for one number",
            Load::get_each(every(&|phone| format!("/v1/contacts?search={phone}"), &seeded.phones[..seeded.phones.len().min(1000)])),
        ),
        ("list tags", Load::get("/v1/tags")),
        ("list events", Load::get("/v1/events")),
        ("list events of a type", Load::get("/v1/events?type=message.received")),
        ("list templates", Load::get("/v1/templates")),
        ("list executions", Load::get(format!("/v1/campaigns/{CAMPAIGN}/executions"))),
        ("list products", Load::get("/v1/products")),
        ("list products by category", Load::get(format!("/v1/products?tag={category}"))),
        ("get product", Load::get_each(every(&|id| format!("/v1/products/{}", encode(id)), &seeded.product_ids))),
        ("categories", Load::get("/v1/categories")),
        ("search", Load::get_each(queries.iter().map(|q| format!("/v1/products/search?q={}", encode(q))).collect())),
        ("create cart", Load::post("/v1/carts", seeded.product_ids.iter().map(cart).collect())),
        ("get cart", Load::get_each(every(&|code| format!("/v1/carts/{code}"), &seeded.cart_codes))),
        ("list messages (1,000 in the activity)", Load::get(format!("/v1/activities/{}/messages", seeded.timeline_activity))),
        // The activities list's page size (its default, 20; the timeline's is 50): the two
        // compared item for item.
        ("list messages, 20 a page as activities", Load::get(format!("/v1/activities/{}/messages?limit=20", seeded.timeline_activity))),
        (
            "send reply (sandbox)",
            Load::each(
                (0..1000)
                    .map(|n| {
                        let activity = &seeded.reply_activities[n % seeded.reply_activities.len()];
                        ("POST", format!("/v1/activities/{activity}/messages"), Some(reply_body(n)))
                    })
                    .collect(),
            ),
        ),
        (
            "send template (sandbox)",
            Load::post(format!("/v1/templates/{}/send", seeded.template_id), seeded.phones.iter().take(1000).map(send).collect()),
        ),
    ]
}

/// Contacts and activities by template sends to new numbers, a tag on every tenth activity,
/// and carts to read back.
fn seed(client: &mut Client, contacts: usize, backend: &str) -> Result<Seeded, String> {
    let template_id = welcome_template(client)?;
    let phones: Vec<String> = (0..contacts).map(|i| format!("1555{i:07}")).collect();
    let path = format!("/v1/templates/{template_id}/send");
    for (done, phone) in phones.iter().enumerate() {
        // The first hundred in a campaign, so its executions list has a page to read.
        let body = if done < 100 { campaign_send_body(phone) } else { send_body(phone) };
        call(client, "POST", &path, Some(&body))?;
        if (done + 1) % 2000 == 0 {
            eprintln!("{backend}: seeded {} of {contacts} contacts and activities", done + 1);
        }
    }
    let mut activity_ids = Vec::with_capacity(contacts);
    while activity_ids.len() < contacts {
        let page = call(client, "GET", &format!("/v1/activities?limit=100&offset={}", activity_ids.len()), None)?;
        let ids: Vec<String> = page.array_field("data")?.iter().map(|a| a.str_field("id").map(str::to_string)).collect::<Result<_, _>>()?;
        if ids.is_empty() {
            return Err(format!("only {} activities after {contacts} sends", activity_ids.len()));
        }
        activity_ids.extend(ids);
    }
    let tag = call(client, "POST", "/v1/tags", Some(r#"{"name":"bench"}"#))?;
    let tag_id = tag.get("data").ok_or("no data")?.str_field("id")?.to_string();
    for id in activity_ids.iter().step_by(10) {
        call(client, "POST", &format!("/v1/activities/{id}/tags"), Some(&format!(r#"{{"tag_ids":[{}]}}"#, quote(&tag_id))))?;
    }
    let products = call(client, "GET", "/v1/products?limit=100", None)?;
    let product_ids: Vec<String> =
        products.array_field("data")?.iter().map(|p| p.str_field("_id").map(str::to_string)).collect::<Result<_, _>>()?;
    let mut cart_codes = Vec::new();
    for id in &product_ids {
        let cart = call(client, "POST", "/v1/carts", Some(&cart_body(id, 1)))?;
        cart_codes.push(cart.get("data").ok_or("no data")?.str_field("code")?.to_string());
    }
    let timeline_activity = inbound::seed_conversation(client, "17770000001", TIMELINE)?;
    let reply_activities =
        (0..20).map(|n| inbound::seed_conversation(client, &format!("1777100{n:04}"), 1)).collect::<Result<Vec<_>, _>>()?;
    eprintln!(
        "{backend}: seeded {contacts} activities, a tag on every tenth, {} carts, a conversation of {TIMELINE} messages",
        cart_codes.len()
    );
    Ok(Seeded { template_id, phones, activity_ids, tag_id, product_ids, cart_codes, timeline_activity, reply_activities })
}

/// The id of the sandbox line's `welcome` template, which [`send_body`] fills.
pub(super) fn welcome_template(client: &mut Client) -> Result<String, String> {
    let templates = call(client, "GET", "/v1/templates", None)?;
    Ok(templates
        .array_field("data")?
        .iter()
        .find(|t| t.get("name").and_then(Json::as_str) == Some("welcome"))
        .ok_or("the sandbox line has no welcome template")?
        .str_field("id")?
        .to_string())
}

/// A send of the sandbox's `welcome` template (one body parameter) to `phone`.
pub(super) fn send_body(phone: &str) -> String {
    format!(r#"{{"to":{},"components":[{{"type":"body","parameters":[{{"type":"text","text":"Parley"}}]}}]}}"#, quote(phone))
}

/// The campaign key of the seeded sends whose executions `list executions` reads.
const CAMPAIGN: &str = "bench";

/// [`send_body`] with the campaign key [`CAMPAIGN`].
fn campaign_send_body(phone: &str) -> String {
    let body = send_body(phone);
    format!(r#"{},"campaign":{{"key":"{CAMPAIGN}","name":"Bench"}}}}"#, &body[..body.len() - 1])
}

/// A text reply.
fn reply_body(n: usize) -> String {
    format!(r#"{{"type":"text","text":{{"body":"Yes, it is in stock ({n})."}}}}"#)
}

/// A cart of one product.
fn cart_body(product: &str, qty: u32) -> String {
    format!(r#"{{"items":[{{"id":{},"qty":{qty}}}]}}"#, quote(product))
}

/// The ingestion figures with and without rules.
struct RuleIngestion {
    messages: usize,
    without_before: f64,
    with_rules: f64,
    without_after: f64,
    drain: Duration,
}

impl RuleIngestion {
    /// With rules over the mean of the runs without, before and after.
    fn ratio(&self) -> f64 {
        self.with_rules / ((self.without_before + self.without_after) / 2.0)
    }
}

/// Rules the ingestion runs with: enabled, on `message.received`, never matching.
const BENCH_RULES: usize = 100;

/// WhatsApp ingestion without rules, with [`BENCH_RULES`] rules, and without again, each from
/// senders new to the server; the rules are deleted after their run.
fn ingestion_with_rules(port: u16, key: &str, options: &ApiOptions) -> Result<RuleIngestion, String> {
    let run =
        |prefix: &str| inbound::ingest_from(inbound::Platform::Whatsapp, prefix, port, key, options.deliveries, 500, options.connections);
    let without_before = run("1671")?;
    let mut client = Client::connect(port, key)?;
    let mut ids = Vec::with_capacity(BENCH_RULES);
    for i in 0..BENCH_RULES {
        let body = format!(
            r#"{{"name":"bench rule {i}","on":"message.received","conditions":[{{"field":"text","op":"contains","value":"never said {i}"}}],"actions":[{{"type":"note","text":"matched"}}]}}"#
        );
        let created = call(&mut client, "POST", "/v1/rules", Some(&body))?;
        ids.push(created.get("data").ok_or("a created rule has no data")?.str_field("id")?.to_string());
    }
    let with_rules = run("1672")?;
    let visible = std::time::Instant::now();
    inbound::drained_of(&mut client, &["parley_rule_backlog"], Duration::from_secs(600))?;
    let drain = visible.elapsed();
    for id in &ids {
        call(&mut client, "DELETE", &format!("/v1/rules/{id}"), None)?;
    }
    let without_after = run("1673")?;
    eprintln!(
        "ingestion without rules {:.0}/s, with {BENCH_RULES} rules {:.0}/s (rules drained {:.2} s later), without again {:.0}/s",
        without_before.per_second,
        with_rules.per_second,
        drain.as_secs_f64(),
        without_after.per_second
    );
    Ok(RuleIngestion {
        messages: options.deliveries,
        without_before: without_before.per_second,
        with_rules: with_rules.per_second,
        without_after: without_after.per_second,
        drain,
    })
}
