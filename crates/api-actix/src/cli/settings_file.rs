//! The optional TOML settings file (`--config FILE` or `PARLEY_CONFIG`).
//!
//! Its keys are the settings' flag names with `_` for `-` (`--database-url` → `database_url`),
//! taken from the command line's own definition, so every flag of the top level and of `serve`
//! is a key and nothing else is. A file value becomes that flag's default wherever the flag is
//! (`embedder` also for `catalog import` and `reindex`): the environment and the command line
//! override it. Each value is checked by the flag's own parser when the file is
//! read, and an unknown key is an error naming it. Values of secret settings are never shown in
//! `--help` or errors.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::{Arg, Command};

/// The environment variable naming the settings file.
pub const CONFIG_ENV: &str = "PARLEY_CONFIG";

#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    #[error("cannot read the settings file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("the settings file {path} is not valid TOML: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("the settings file {path} has an unknown setting `{key}` (known settings: {known})")]
    UnknownKey { path: PathBuf, key: String, known: String },
    #[error("the settings file {path}: `{key}` {message}")]
    Value { path: PathBuf, key: String, message: String },
}

/// The file named by `--config FILE` / `--config=FILE` on the command line, else by `PARLEY_CONFIG`.
pub fn path_from(args: &[OsString]) -> Option<PathBuf> {
    let mut iter = args.iter().skip(1);
    while let Some(arg) = iter.next() {
        if arg == "--" {
            break;
        }
        if arg == "--config" {
            return iter.next().map(PathBuf::from);
        }
        if let Some(path) = arg.to_str().and_then(|a| a.strip_prefix("--config=")) {
            return Some(PathBuf::from(path));
        }
    }
    std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// The settings a file may hold: `(key, arg id, in the serve subcommand)`.
pub fn settings(command: &Command) -> Vec<(String, String, bool)> {
    let of = |c: &Command, serve: bool| -> Vec<(String, String, bool)> {
        c.get_arguments()
            .filter(|a| !matches!(a.get_id().as_str(), "config" | "help" | "version"))
            .filter_map(|a| a.get_long().map(|l| (l.replace('-', "_"), a.get_id().to_string(), serve)))
            .collect()
    };
    let mut all = of(command, false);
    if let Some(serve) = command.find_subcommand("serve") {
        let serve_only: Vec<_> = of(serve, true).into_iter().filter(|(k, _, _)| !all.iter().any(|(root, _, _)| root == k)).collect();
        all.extend(serve_only);
    }
    all.sort();
    all
}

/// Reads `path` and makes its values the defaults of `command`'s flags.
pub fn apply(command: Command, path: &Path) -> Result<Command, ConfigFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigFileError::Read { path: path.to_owned(), source })?;
    apply_str(command, path, &text)
}

/// [`apply`] on the file's text.
pub fn apply_str(mut command: Command, path: &Path, text: &str) -> Result<Command, ConfigFileError> {
    let table: toml::Table =
        text.parse().map_err(|e: toml::de::Error| ConfigFileError::Syntax { path: path.to_owned(), message: e.message().to_string() })?;
    let known = settings(&command);
    for (key, value) in table {
        let Some((_, id, serve)) = known.iter().find(|(k, _, _)| *k == key) else {
            let names: Vec<&str> = known.iter().map(|(k, _, _)| k.as_str()).collect();
            return Err(ConfigFileError::UnknownKey { path: path.to_owned(), key, known: names.join(", ") });
        };
        let bad = |message: String| ConfigFileError::Value { path: path.to_owned(), key: key.clone(), message };
        let value = scalar(&value).ok_or_else(|| bad("must be a string, a number, a boolean or a list of them".into()))?;
        let owner = if *serve { command.find_subcommand("serve").expect("serve exists") } else { &command };
        let arg = owner.get_arguments().find(|a| a.get_id() == id.as_str()).expect("the key came from this command");
        let secret = arg.is_hide_env_values_set();
        if let Err(reason) = check(arg, &value) {
            return Err(bad(if secret { format!("is invalid: {reason}") } else { format!("= {value:?} is invalid: {reason}") }));
        }
        // clap keeps defaults as `&'static str`: a handful of short strings, once per process.
        let value: &'static str = Box::leak(value.into_boxed_str());
        let set = move |a: Arg| a.default_value(value).hide_default_value(secret);
        command = default_everywhere(command, id, &set);
    }
    Ok(command)
}

/// Sets the default of the flag `id` wherever it is: the top level, `serve`, and every other
/// command that takes it (the embedder's flags are also `catalog import`'s, so a file choosing
/// an embedder chooses it for both).
fn default_everywhere(command: Command, id: &str, set: &(impl Fn(Arg) -> Arg + Copy)) -> Command {
    let mut command = if command.get_arguments().any(|a| a.get_id() == id) { command.mut_arg(id, *set) } else { command };
    let names: Vec<String> = command.get_subcommands().map(|c| c.get_name().to_string()).collect();
    for name in names {
        command = command.mut_subcommand(name, |c| default_everywhere(c, id, set));
    }
    command
}

/// Runs the flag's own parser on `value`, as if it had been given on the command line.
fn check(arg: &Arg, value: &str) -> Result<(), String> {
    let long = arg.get_long().expect("settings have a long flag");
    if !arg.get_action().takes_values() {
        // An on/off flag such as `--demo`.
        return value.parse::<bool>().map(drop).map_err(|_| "expected true or false".to_string());
    }
    let probe = Command::new("parley").no_binary_name(true).arg(arg.clone().required(false).global(false));
    match probe.try_get_matches_from([format!("--{long}={value}")]) {
        Ok(_) => Ok(()),
        Err(e) => {
            let first = e.to_string().lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
            // clap's message quotes the value: keep only what follows it (the reason).
            Err(first.rsplit_once("': ").map(|(_, reason)| reason.to_string()).unwrap_or(first))
        }
    }
}

/// A TOML value as the text a flag would get; lists become comma-separated.
fn scalar(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        toml::Value::Array(items) => {
            items.iter().map(|v| if v.is_array() { None } else { scalar(v) }).collect::<Option<Vec<_>>>().map(|v| v.join(","))
        }
        toml::Value::Datetime(_) | toml::Value::Table(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, FromArgMatches};

    use super::*;
    use crate::cli::args::{Cli, Command as Sub};

    fn parse(file: &str, args: &[&str]) -> Result<Cli, ConfigFileError> {
        let command = apply_str(Cli::command(), Path::new("parley.toml"), file)?;
        let matches = command.try_get_matches_from(std::iter::once("parley").chain(args.iter().copied())).unwrap();
        Ok(Cli::from_arg_matches(&matches).unwrap())
    }

    fn serve(cli: &Cli) -> &crate::cli::args::ServeArgs {
        match &cli.command {
            Some(Sub::Serve(args)) => args,
            other => panic!("not serve: {other:?}"),
        }
    }

    #[test]
    fn file_values_are_defaults_that_flags_override() {
        let file = "bind = \"127.0.0.1:9000\"\nworkers = 3\ndb_pool_size = 4\ncors_origins = [\"https://a.com\", \"https://b.com\"]\nwebhook_processing = false\n";
        let cli = parse(file, &["serve"]).unwrap();
        assert_eq!(serve(&cli).bind, Some("127.0.0.1:9000".parse().unwrap()));
        assert_eq!(serve(&cli).workers, Some(3));
        assert_eq!(serve(&cli).cors_origins.as_deref(), Some("https://a.com,https://b.com"));
        assert!(!serve(&cli).webhook_processing);
        assert_eq!(cli.pool.db_pool_size, 4);
        let cli = parse(file, &["serve", "--bind", "127.0.0.1:9001"]).unwrap();
        assert_eq!(serve(&cli).bind, Some("127.0.0.1:9001".parse().unwrap()), "the flag wins");
        let cli = parse("database_url = \"sqlite://other.db\"", &["migrate"]).unwrap();
        assert_eq!(cli.database_url, "sqlite://other.db", "top-level settings reach every command");
    }

    #[test]
    fn a_setting_reaches_every_command_that_takes_its_flag() {
        let file = "embedder = \"minilm\"\nwhatsapp_api_base = \"http://127.0.0.1:9\"";
        let cli = parse(file, &["catalog", "import", "--agent", "agt_1", "products.jsonl"]).unwrap();
        let embedder = cli.command.as_ref().and_then(Sub::embedder_args).map(|e| e.embedder);
        assert_eq!(embedder, Some(crate::runtime::embedding::EmbedderKind::Minilm));
        let cli = parse(file, &["templates", "sync"]).unwrap();
        let base = cli.command.as_ref().and_then(Sub::platform_args).map(|p| p.whatsapp_api_base.clone());
        assert_eq!(base.as_deref(), Some("http://127.0.0.1:9"));
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let e = parse("bnd = \"127.0.0.1:9000\"", &["serve"]).unwrap_err().to_string();
        assert!(e.contains("unknown setting `bnd`") && e.contains("bind"), "{e}");
        let e = parse("workers = \"many\"", &["serve"]).unwrap_err().to_string();
        assert!(e.contains("`workers`") && e.contains("many"), "{e}");
        let e = parse("bind = 5 [", &["serve"]).unwrap_err().to_string();
        assert!(e.contains("not valid TOML"), "{e}");
        let e = parse("[serve]\nbind = \"x\"", &["serve"]).unwrap_err().to_string();
        assert!(e.contains("unknown setting `serve`"), "{e}");
    }

    #[test]
    fn secrets_from_the_file_never_show() {
        let file = "database_url = \"postgres://u:hunter2@db/parley\"\nwhatsapp_app_secret = \"s3cret-value\"";
        let command = apply_str(Cli::command(), Path::new("parley.toml"), file).unwrap();
        let mut command = command;
        let help = command.render_long_help().to_string();
        let mut serve = command.find_subcommand_mut("serve").unwrap().clone();
        let serve_help = serve.render_long_help().to_string();
        assert!(!help.contains("hunter2") && !serve_help.contains("s3cret-value"), "{help}\n{serve_help}");
    }

    #[test]
    fn the_config_flag_wins_over_the_environment() {
        let args: Vec<OsString> = ["parley", "serve", "--config", "a.toml"].iter().map(OsString::from).collect();
        assert_eq!(path_from(&args), Some(PathBuf::from("a.toml")));
        let args: Vec<OsString> = ["parley", "--config=b.toml", "migrate"].iter().map(OsString::from).collect();
        assert_eq!(path_from(&args), Some(PathBuf::from("b.toml")));
    }

    /// docs/configuration.md documents every setting: its TOML key and its flag.
    #[test]
    fn every_setting_is_documented() {
        let doc = include_str!("../../../../docs/configuration.md");
        for (key, _, _) in settings(&Cli::command()) {
            assert!(doc.contains(&format!("`{key}`")), "docs/configuration.md does not document the setting `{key}`");
            assert!(doc.contains(&format!("`--{}`", key.replace('_', "-"))), "docs/configuration.md does not show the flag of `{key}`");
        }
    }
}
