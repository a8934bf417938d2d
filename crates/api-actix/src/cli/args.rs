//! The `parley` command line: serve the API, and the operator commands (agents, keys,
//! migrations). The public API has no admin endpoints; operators use these.

use std::net::SocketAddr;

use clap::{Args, Parser, Subcommand};

use crate::runtime::embedding::EmbedderArgs;

#[derive(Debug, Parser)]
#[command(
    name = "parley",
    version,
    about = "Parley: a messaging-and-catalog API for businesses that sell over chat",
    long_about = "Parley serves one JSON REST API under /v1 for business agents (tenants). Run with no \
        subcommand to serve on 127.0.0.1:8080 with an embedded SQLite database (parley.db); on a fresh \
        database it creates a demo agent and prints its key once.",
    after_help = "Examples:\n  parley                                   serve with ./parley.db\n  parley agents create --name \"Acme\"\n  parley keys create --agent agt_… --publishable\n  DATABASE_URL=postgres://localhost/parley parley serve --bind 0.0.0.0:8080"
)]
pub struct Cli {
    /// Database: sqlite://PATH (embedded, the default) or postgres://USER@HOST/DB (scale-out).
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://parley.db", global = true, hide_env_values = true)]
    pub database_url: String,

    #[command(flatten)]
    pub pool: PoolArgs,

    /// A TOML file of settings: keys are the flags' names with `_` (`bind`, `database_url`, …);
    /// the environment and flags override it; an unknown key is an error. See docs/configuration.md.
    #[arg(long, env = "PARLEY_CONFIG", global = true, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Where the messaging platforms' APIs are: only the commands that call them take these.
#[derive(Debug, Clone, Args)]
pub struct PlatformArgs {
    /// Base URL of the WhatsApp Cloud API (Meta's Graph API); point it at a test double to develop offline.
    #[arg(long, env = "PARLEY_WHATSAPP_API_BASE", default_value = "https://graph.facebook.com")]
    pub whatsapp_api_base: String,
    /// Instagram's API: replies, profile look-ups (a local fake in tests).
    #[arg(long, env = "PARLEY_INSTAGRAM_API_BASE", default_value = parley_adapters_whatsapp::DEFAULT_INSTAGRAM_BASE_URL)]
    pub instagram_api_base: String,
}

impl Default for PlatformArgs {
    fn default() -> Self {
        Self {
            whatsapp_api_base: "https://graph.facebook.com".into(),
            instagram_api_base: parley_adapters_whatsapp::DEFAULT_INSTAGRAM_BASE_URL.into(),
        }
    }
}

/// The database connection pool: its size and the bounds that keep a database fault from
/// hanging requests (they fail fast with 503 instead).
#[derive(Debug, Clone, Args)]
pub struct PoolArgs {
    /// Most database connections this process opens per pool (SQLite keeps two pools, one for
    /// writes and scanning reads, one for short reads run inline: up to twice this).
    #[arg(long, env = "PARLEY_DB_POOL_SIZE", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1000), global = true)]
    pub db_pool_size: u32,
    /// Milliseconds a request may wait for a database connection (or for a new one to open)
    /// before it is answered 503.
    #[arg(long, env = "PARLEY_DB_WAIT_TIMEOUT_MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..), global = true)]
    pub db_wait_timeout_ms: u64,
    /// PostgreSQL: seconds one SQL statement may run before the server cancels it (0 = no limit).
    #[arg(long, env = "PARLEY_DB_STATEMENT_TIMEOUT_SECS", default_value_t = 30, global = true)]
    pub db_statement_timeout_secs: u64,
}

impl PoolArgs {
    pub fn options(&self) -> parley_adapters_diesel::PoolOptions {
        parley_adapters_diesel::PoolOptions {
            max_size: self.db_pool_size as usize,
            wait_timeout: std::time::Duration::from_millis(self.db_wait_timeout_ms),
            statement_timeout: (self.db_statement_timeout_secs > 0).then(|| std::time::Duration::from_secs(self.db_statement_timeout_secs)),
        }
    }
}

impl Command {
    /// The platforms' API addresses, for the commands that call a platform.
    pub fn platform_args(&self) -> Option<&PlatformArgs> {
        match self {
            Command::Serve(args) => Some(&args.platform),
            Command::Lines(LinesCommand::Add(add)) => Some(&add.platform),
            Command::Templates(TemplatesCommand::Sync { platform, .. }) => Some(platform),
            _ => None,
        }
    }

    /// The embedder's settings, for the commands that embed products or queries.
    pub fn embedder_args(&self) -> Option<&EmbedderArgs> {
        match self {
            Command::Serve(args) => Some(&args.embedding),
            Command::Catalog(CatalogCommand::Import { embedding, .. } | CatalogCommand::Reindex { embedding, .. }) => Some(embedding),
            _ => None,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the HTTP API (the default).
    Serve(ServeArgs),
    /// Apply pending database migrations and exit (serve also applies them at start).
    Migrate,
    /// Refresh the query planner's statistics of every table now (ANALYZE). Every command and
    /// a running server already refresh stale SQLite statistics on their own; this is for right
    /// after a bulk load, or to settle plans at once.
    Analyze,
    /// Manage agents (tenants).
    #[command(subcommand)]
    Agents(AgentsCommand),
    /// Manage API keys. Keys are printed once, at creation; only their hash is stored.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Manage an agent's team members, who sign in to the inbox (/inbox). A new member's
    /// one-time password is printed once; only its Argon2id hash is stored.
    #[command(subcommand)]
    Members(MembersCommand),
    /// Import or export an agent's product catalog.
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Manage the agent's lines: its WhatsApp numbers, Instagram accounts and mailboxes. A
    /// line's id (chn_…) is the `line_id` of /v1/lines/{line_id}/templates.
    #[command(subcommand, name = "channels", visible_alias = "lines")]
    Lines(LinesCommand),
    /// Message templates.
    #[command(subcommand)]
    Templates(TemplatesCommand),
    /// Inbound deliveries (platform webhooks and mail, stored then processed) that failed, and
    /// retrying them. `parley webhooks` is the older name of the same command.
    #[command(subcommand, name = "inbound", visible_alias = "webhooks")]
    Inbound(InboundCommand),
    /// Play the contact's side of a sandbox line.
    #[command(subcommand)]
    Sandbox(SandboxCommand),
    /// Demo data beyond what a new embedded database starts with.
    #[command(subcommand)]
    Demo(DemoCommand),
    /// Print the OpenAPI 3.1 document of the API.
    Openapi,
}

#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// A message from a contact to the agent's sandbox line, through the same stored-webhook
    /// path real messages take, processed at once; prints the activity and message ids.
    #[command(group(clap::ArgGroup::new("content").required(true).multiple(true).args(["text", "image", "location", "cart", "tap"])))]
    Receive {
        /// The agent's id (agt_…).
        #[arg(long)]
        agent: String,
        /// The sender: a WhatsApp number (digits; `+`, spaces and dashes are ignored), on
        /// Instagram the contact's Instagram-scoped id (digits), on email their address. On
        /// WhatsApp it may be left out for `--user-id`: a user who hides their phone.
        #[arg(long, required_unless_present = "user_id")]
        from: Option<String>,
        /// WhatsApp: the sender's business-scoped user id (US.13491208655302741918), with or
        /// without `--from`.
        #[arg(long)]
        user_id: Option<String>,
        /// WhatsApp: the username the sender shows.
        #[arg(long)]
        username: Option<String>,
        /// The sender's profile name.
        #[arg(long)]
        name: Option<String>,
        /// A text message.
        #[arg(long)]
        text: Option<String>,
        /// A picture (the sandbox's own), with `--caption` if given.
        #[arg(long)]
        image: bool,
        /// The picture's caption.
        #[arg(long, requires = "image")]
        caption: Option<String>,
        /// A shared location: LAT,LONG in degrees, e.g. 38.72,-9.14.
        #[arg(long, value_name = "LAT,LONG")]
        location: Option<String>,
        /// WhatsApp: the contact taps a reply button, or picks a list row, of the newest
        /// interactive message the business sent them, by the option's title or id.
        #[arg(long, value_name = "TITLE|ID", conflicts_with_all = ["text", "image", "location", "cart"])]
        tap: Option<String>,
        /// When the contact wrote it (RFC 3339, e.g. 2026-11-28T09:30:00Z): a message the
        /// platform delivers late. Now by default.
        #[arg(long, value_name = "TIME")]
        at: Option<String>,
        /// A cart of the agent (its 7-character code) the contact brings from the storefront:
        /// its link is written after the text (or alone), as a storefront's chat button does.
        #[arg(long, value_name = "CODE", conflicts_with_all = ["image", "location"])]
        cart: Option<String>,
        /// The storefront's base URL for `--cart`'s link.
        #[arg(long, env = "PARLEY_STOREFRONT_URL", default_value = "https://shop.example.com")]
        storefront_url: String,
        /// Email: the subject (default "Hello").
        #[arg(long)]
        subject: Option<String>,
        /// The sandbox line (chn_…), when the agent has several.
        #[arg(long, alias = "channel")]
        line: Option<String>,
        /// The platform the contact writes on: the agent's first sandbox line of this type.
        #[arg(long, value_enum, default_value_t = LineType::Whatsapp)]
        channel_type: LineType,
    },
}

#[derive(Debug, Subcommand)]
pub enum LinesCommand {
    /// Add a line: a WhatsApp number (the default), an Instagram account or a mailbox; prints
    /// {"id",…} (and, for a mailbox, its inbound_token, shown this once). A token or password is
    /// read from an environment variable, never from the command line (which other users can see).
    Add(Box<AddLine>),
    /// List an agent's lines with their types and paces (never their tokens).
    List {
        #[arg(long)]
        agent: String,
    },
    /// Set how many messages a second go out through a line (default 80, WhatsApp's
    /// throughput per number; raise it once Meta raises the number's). Sends, scheduled bursts
    /// and campaigns are spaced to it; prints the line.
    Pace {
        #[arg(long)]
        agent: String,
        /// The line (chn_…).
        #[arg(long, alias = "channel")]
        line: String,
        /// 1 to 1,000.
        #[arg(long)]
        messages_per_second: i64,
    },
}

/// `parley channels add` (alias `lines add`): each platform's own flags, required by `--type`.
#[derive(Debug, clap::Args)]
pub struct AddLine {
    /// The agent's id (agt_…).
    #[arg(long)]
    pub agent: String,
    /// The platform the line is on.
    #[arg(long = "type", value_enum, default_value_t = LineType::Whatsapp)]
    pub kind: LineType,
    #[command(flatten)]
    pub platform: PlatformArgs,
    /// WhatsApp: the line's phone number id in the WhatsApp Business platform.
    #[arg(long, required_if_eq("kind", "whatsapp"))]
    pub phone_number_id: Option<String>,
    /// WhatsApp: the WhatsApp Business Account id the line belongs to (its templates live there).
    #[arg(long, required_if_eq("kind", "whatsapp"))]
    pub waba_id: Option<String>,
    /// Instagram: the professional account's id (the `entry[].id` of its webhooks).
    #[arg(long, required_if_eq("kind", "instagram"))]
    pub account_id: Option<String>,
    /// Email: the mailbox's address (From of replies; the To providers forward to).
    #[arg(long, required_if_eq("kind", "email"))]
    pub address: Option<String>,
    /// Email: where replies are sent, smtp://host:port (plain) or smtps://host:port (TLS).
    #[arg(long, conflicts_with = "sandbox")]
    pub smtp_url: Option<String>,
    /// Email: where new mail is polled, imap://host:port or imaps://host:port (TLS);
    /// without it, mail arrives only through POST /webhooks/email/{channel_id}.
    #[arg(long, conflicts_with = "sandbox")]
    pub imap_url: Option<String>,
    /// Email: the login on both servers (default: the address).
    #[arg(long, conflicts_with = "sandbox")]
    pub username: Option<String>,
    /// Email: name of the environment variable holding the mailbox's password.
    #[arg(long, conflicts_with = "sandbox")]
    pub password_env: Option<String>,
    /// WhatsApp, Instagram: name of the environment variable holding the line's access token.
    #[arg(long, conflicts_with = "sandbox")]
    pub access_token_env: Option<String>,
    /// A sandbox line: no credentials, no network; sends are delivered and read by Parley itself.
    #[arg(long)]
    pub sandbox: bool,
}

/// The platforms a line can be on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LineType {
    Whatsapp,
    Instagram,
    Email,
}

#[derive(Debug, Subcommand)]
pub enum TemplatesCommand {
    /// Fetch every line's templates from the platform now (also done at start and periodically).
    Sync {
        /// Only this agent's lines.
        #[arg(long)]
        agent: Option<String>,
        #[command(flatten)]
        platform: PlatformArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum InboundCommand {
    /// Deliveries whose processing failed, oldest first, as JSON: those given up on
    /// (`"state": "failed"`: a body that is not a webhook payload, at once; any other failure
    /// after 12 attempts), those still being retried (`"state": "retrying"`), and those
    /// processed with messages or statuses set aside (`"state": "processed"`), each with its
    /// id, received time, attempts, last error, the lines (tenants) its body names and what was
    /// set aside (`set_aside`: kind, position in the delivery, platform id, sender, reason).
    #[command(after_help = "Give a failed delivery another chance with `parley inbound retry <ID>` (or `--all`).")]
    Failed {
        /// Most deliveries to list.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Put given-up deliveries back to be processed (by a running `parley serve` within a
    /// second) with a fresh count of attempts: after fixing what made them fail. By id, a
    /// delivery processed with parts set aside too: those parts are tried again (what was
    /// stored stays stored once).
    Retry {
        /// The delivery's id (whk_…), as listed by `parley inbound failed`.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<String>,
        /// Every given-up delivery.
        #[arg(long)]
        all: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Upsert products by `_id` from a JSON array or JSON Lines file: each row a product as
    /// GET /v1/products/{id} shows it, plus `status` (active|draft, default active). All or nothing:
    /// any bad row is reported by line and nothing is written.
    Import {
        /// The agent's id (agt_…).
        #[arg(long)]
        agent: String,
        /// The file to import.
        file: std::path::PathBuf,
        /// Validate every row and report what would change, without writing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        embedding: EmbedderArgs,
    },
    /// Write every product (drafts included) as JSON Lines, in the format import reads.
    Export {
        /// The agent's id (agt_…).
        #[arg(long)]
        agent: String,
        /// Write here instead of standard output.
        #[arg(long, short)]
        output: Option<std::path::PathBuf>,
    },
    /// Embed for search the products whose vector is missing or was made by another embedder
    /// (after changing PARLEY_EMBEDDER). Running instances pick the new vectors up within seconds.
    Reindex {
        /// Only this agent's catalog (default: every agent's).
        #[arg(long)]
        agent: Option<String>,
        /// Re-embed every product, not only the missing or stale ones.
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        embedding: EmbedderArgs,
    },
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub platform: PlatformArgs,
    #[command(flatten)]
    pub embedding: EmbedderArgs,
    /// Address to listen on.
    #[arg(long, env = "PARLEY_BIND", default_value = "127.0.0.1:8080")]
    pub bind: Option<SocketAddr>,
    /// Seed a demo agent when the database has no agents (always done for a new embedded database).
    #[arg(long)]
    pub demo: bool,
    /// HTTP worker threads (default: one per CPU).
    #[arg(long, env = "PARLEY_WORKERS")]
    pub workers: Option<usize>,
    /// Storefront base URL: created carts then also answer `url` = `{storefront_url}/c/<code>`.
    #[arg(long, env = "PARLEY_STOREFRONT_URL")]
    pub storefront_url: Option<String>,
    /// Browser origins allowed on catalog and cart endpoints: `*` or a comma-separated list.
    #[arg(long, env = "PARLEY_CORS_ORIGINS", default_value = "*")]
    pub cors_origins: Option<String>,
    /// The `hub.verify_token` of the platform's webhook subscription handshake.
    #[arg(long, env = "PARLEY_WHATSAPP_VERIFY_TOKEN", hide_env_values = true)]
    pub whatsapp_verify_token: Option<String>,
    /// The app secret that signs webhook deliveries (without it, deliveries are refused).
    #[arg(long, env = "PARLEY_WHATSAPP_APP_SECRET", hide_env_values = true)]
    pub whatsapp_app_secret: Option<String>,
    /// Re-sync templates every this many seconds (0 = only at start).
    #[arg(long, env = "PARLEY_TEMPLATE_SYNC_SECS", default_value_t = 900)]
    pub template_sync_secs: u64,
    /// Read email lines' IMAP mailboxes every this many seconds (0 = never; mail then arrives
    /// only through POST /webhooks/email/{channel_id}). One instance reads each mailbox at a time.
    #[arg(long, env = "PARLEY_MAIL_POLL_SECS", default_value_t = 60)]
    pub mail_poll_secs: u64,
    /// Process webhook deliveries in this instance, each as it arrives and stored ones due for a
    /// retry (`false` for ingest-only instances: they store deliveries for the others).
    #[arg(long, env = "PARLEY_WEBHOOK_PROCESSING", default_value_t = true, action = clap::ArgAction::Set)]
    pub webhook_processing: bool,
    /// Let webhook endpoints use `http` and private, loopback or link-local addresses: for tests
    /// and receivers inside your own network. Off, every endpoint must be `https` to a public address.
    #[arg(long, env = "PARLEY_WEBHOOK_ALLOW_PRIVATE", default_value_t = false, action = clap::ArgAction::Set)]
    pub webhook_allow_private: bool,
    /// How many event webhook endpoints each agent may have (Stripe allows 16): each endpoint
    /// multiplies every change's deliveries.
    #[arg(long, env = "PARLEY_WEBHOOK_ENDPOINTS_MAX", default_value_t = parley_domain::services::DEFAULT_MAX_ENDPOINTS)]
    pub webhook_endpoints_max: u32,
    /// Seconds an event stream (`GET /v1/stream`) may stay quiet before it sends a comment line,
    /// which keeps proxies from closing it.
    #[arg(long, env = "PARLEY_STREAM_HEARTBEAT_SECS", default_value_t = 15)]
    pub stream_heartbeat_secs: u64,
    /// Milliseconds from a sandbox send to its `delivered` status, and again to `read`.
    #[arg(long, env = "PARLEY_SANDBOX_STEP_MS", default_value_t = 3000)]
    pub sandbox_step_ms: u64,
    /// How often (milliseconds) the search index looks for catalog changes made by other processes
    /// (imports, reindexing, other instances).
    #[arg(long, env = "PARLEY_INDEX_REFRESH_MS", default_value_t = 2000)]
    pub index_refresh_ms: u64,
    /// Serve `GET /metrics` on this address only (say a private interface); unset, it is
    /// served on the API's address.
    #[arg(long, env = "PARLEY_METRICS_BIND")]
    pub metrics_bind: Option<SocketAddr>,
    /// On SIGTERM or SIGINT, seconds in-flight requests get to finish before they are cut.
    #[arg(long, env = "PARLEY_SHUTDOWN_TIMEOUT_SECS", default_value_t = 20)]
    pub shutdown_timeout_secs: u64,
    /// Seconds a request's body may take to arrive in full, counted from its headers (which have
    /// 5 s of their own); past it the request is answered 408 and its connection closed.
    #[arg(long, env = "PARLEY_REQUEST_READ_TIMEOUT_SECS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_read_timeout_secs: u64,
    /// Most open connections per HTTP worker; past it new connections wait in the listen queue
    /// until one closes. Each is a file descriptor: keep workers × this under `ulimit -n`.
    #[arg(long, env = "PARLEY_MAX_CONNECTIONS", default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_connections: u64,
    #[command(flatten)]
    pub rate_limits: crate::runtime::limits::RateLimitArgs,
}

#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Create an agent; prints {"id","name"}.
    Create {
        #[arg(long)]
        name: String,
    },
    /// List agents as JSON.
    List,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Create a key for an agent; prints {"id","key"}. The key is shown only this once.
    Create {
        /// The agent's id (agt_…).
        #[arg(long)]
        agent: String,
        /// A browser-safe key (pk_…) for catalog reads and carts only; default is a secret key (sk_…).
        #[arg(long)]
        publishable: bool,
    },
    /// Revoke a key by its id (key_…); requests with it get 401 from then on.
    Revoke {
        /// The key's id (key_…), as printed by `keys create` or `keys list`.
        key_id: String,
    },
    /// List an agent's keys (never the keys themselves: id, kind, last four characters, dates).
    List {
        #[arg(long)]
        agent: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum DemoCommand {
    /// Write months of past conversations for an agent (contacts, messages both ways,
    /// assignments to its members, closes), as the live paths store them: the reports and the
    /// inbox's charts then have a history to show. Emits no events. Prints how many it wrote.
    History {
        /// The agent's id (agt_…).
        #[arg(long)]
        agent: String,
        /// How many conversations, each a new contact.
        #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        conversations: u32,
        /// Spread over this many days before now.
        #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u32).range(1..=366))]
        days: u32,
        /// The same seed writes the same shapes (times, channels, who answers).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

#[derive(Debug, Subcommand)]
pub enum MembersCommand {
    /// Add a member; prints {"id","email","name","role","password"}. The one-time password is
    /// shown only this once: the member signs in with it and must choose its own.
    Add {
        /// The agent's id (agt_…).
        #[arg(long)]
        agent: String,
        /// What the member signs in with; unique among the agent's members (any case).
        #[arg(long)]
        email: String,
        /// How the inbox names the member.
        #[arg(long)]
        name: String,
        /// `admin` (also manages the team) or `member`.
        #[arg(long, default_value = "member", value_parser = ["admin", "member"])]
        role: String,
    },
    /// List an agent's members as JSON (never their passwords).
    List {
        #[arg(long)]
        agent: String,
    },
    /// Remove a member: its sessions end at once; conversations assigned to it keep the id and
    /// show no assignee.
    Remove {
        #[arg(long)]
        agent: String,
        /// The member's id (usr_…).
        member_id: String,
    },
}

impl Cli {
    /// Parses the command line over the settings file (`--config FILE` or `PARLEY_CONFIG`), if
    /// any; no subcommand means `serve`. A bad command line prints clap's message and exits; a
    /// bad settings file is an error naming the file and the key.
    pub fn load() -> Result<Self, crate::cli::settings_file::ConfigFileError> {
        use clap::{CommandFactory, FromArgMatches};
        let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        let mut command = Self::command();
        if let Some(path) = crate::cli::settings_file::path_from(&args) {
            command = crate::cli::settings_file::apply(command, &path)?;
        }
        let mut matches = command.clone().try_get_matches_from(&args).unwrap_or_else(|e| e.exit());
        if matches.subcommand().is_none() {
            args.push("serve".into());
            matches = command.try_get_matches_from(&args).unwrap_or_else(|e| e.exit());
        }
        Ok(Self::from_arg_matches(&matches).unwrap_or_else(|e| e.exit()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

#[cfg(test)]
mod command_help {
    use clap::CommandFactory;

    use super::Cli;

    /// `parley <command> --help`, as the operator reads it.
    fn help(path: &[&str]) -> String {
        let mut command = Cli::command();
        command.build();
        let mut at = &mut command;
        for name in path {
            at = at.find_subcommand_mut(name).unwrap_or_else(|| panic!("no command {name}"));
        }
        at.render_long_help().to_string()
    }

    #[test]
    fn each_command_shows_the_flags_it_uses_and_no_others() {
        const EMBEDDER: &str = "--openai-base-url";
        const PLATFORM: &str = "--whatsapp-api-base";
        for (path, embeds, calls_platforms) in [
            (&["serve"][..], true, true),
            (&["catalog", "import"], true, false),
            (&["catalog", "reindex"], true, false),
            (&["catalog", "export"], false, false),
            (&["channels", "add"], false, true),
            (&["channels", "list"], false, false),
            (&["templates", "sync"], false, true),
            (&["agents", "create"], false, false),
            (&["keys", "create"], false, false),
            (&["inbound", "retry"], false, false),
            (&["webhooks", "failed"], false, false),
            (&["sandbox", "receive"], false, false),
            (&["migrate"], false, false),
        ] {
            let text = help(path);
            assert_eq!(text.contains(EMBEDDER), embeds, "parley {} --help:\n{text}", path.join(" "));
            assert_eq!(text.contains(PLATFORM), calls_platforms, "parley {} --help:\n{text}", path.join(" "));
            assert!(text.contains("--database-url"), "every command opens the database: parley {} --help", path.join(" "));
        }
    }
}
