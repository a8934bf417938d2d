//! `cargo xtask fuzz [TARGET…] [--time SECS]`: the cargo-fuzz targets of `crates/fuzz` on the
//! nightly toolchain, each for SECS seconds (default 180), from the committed seeds plus the
//! corpus earlier runs grew (`crates/fuzz/corpus`, not committed). Needs `cargo install cargo-fuzz`.

use std::process::Command;

use crate::root;

const TARGETS: &[&str] = &["webhook_payload", "instagram_webhook", "raw_email", "template_placeholders"];

pub fn run(args: &[&str]) -> Result<(), String> {
    let mut seconds = 180u32;
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "--time" => seconds = it.next().and_then(|s| s.parse().ok()).ok_or("--time takes a number of seconds")?,
            t if TARGETS.contains(&t) => targets.push(t),
            other => return Err(format!("unknown fuzz argument {other:?}; targets: {}", TARGETS.join(", "))),
        }
    }
    if targets.is_empty() {
        targets = TARGETS.to_vec();
    }
    let fuzz = root().join("crates/fuzz");
    for target in targets {
        let corpus = fuzz.join("corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("cannot create {}: {e}", corpus.display()))?;
        println!("== fuzzing {target} for {seconds} s");
        // Its own target directory: sanitizer flags would otherwise rebuild the workspace's.
        let target_dir = std::env::var("PARLEY_FUZZ_TARGET_DIR").unwrap_or_else(|_| fuzz.join("target").display().to_string());
        let status = Command::new("cargo")
            .current_dir(root())
            .env("CARGO_TARGET_DIR", target_dir)
            .args(["+nightly", "fuzz", "run", "--fuzz-dir", "crates/fuzz", target])
            .arg(&corpus)
            .arg(fuzz.join("seeds").join(target))
            .args(["--", &format!("-max_total_time={seconds}"), "-print_final_stats=1"])
            .status()
            .map_err(|e| format!("cannot run cargo +nightly fuzz (cargo install cargo-fuzz): {e}"))?;
        if !status.success() {
            return Err(format!("fuzz target {target} failed: see crates/fuzz/artifacts/{target}/"));
        }
    }
    Ok(())
}
