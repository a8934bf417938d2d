//! Verification by the Standard Webhooks reference library for Python (`standardwebhooks` from
//! the Python package index), not by Parley's own code: what a receiver would run. Installed
//! once into a virtual environment under `target/`, like the CI's schemathesis.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

const PACKAGE: &str = "standardwebhooks==1.1.0";

fn venv() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("standardwebhooks-venv")
}

/// The environment's Python, installing the library on first use.
fn python() -> PathBuf {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _one_at_a_time = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
    let venv = venv();
    let python = venv.join("bin/python");
    let marker = venv.join(PACKAGE);
    if !marker.exists() {
        let made = Command::new("python3").arg("-m").arg("venv").arg(&venv).status().expect("python3 runs");
        assert!(made.success(), "python3 -m venv {venv:?} failed");
        let installed = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", PACKAGE])
            .status()
            .expect("pip runs");
        assert!(installed.success(), "pip install {PACKAGE} failed");
        std::fs::write(&marker, "").unwrap();
    }
    python
}

const VERIFY: &str = r#"
import os, sys
from standardwebhooks.webhooks import Webhook
headers = {k: os.environ["WH_" + k.upper().replace("-", "_")] for k in ("webhook-id", "webhook-timestamp", "webhook-signature")}
try:
    Webhook(os.environ["WH_SECRET"]).verify(os.environ["WH_BODY"], headers)
except Exception as e:
    print(type(e).__name__, e)
    sys.exit(1)
"#;

/// Whether the library accepts a delivery for `secret`; `Err` carries its reason.
pub fn verify(secret: &str, id: &str, timestamp: &str, signature: &str, body: &str) -> Result<(), String> {
    let out = Command::new(python())
        .arg("-c")
        .arg(VERIFY)
        .env("WH_SECRET", secret)
        .env("WH_WEBHOOK_ID", id)
        .env("WH_WEBHOOK_TIMESTAMP", timestamp)
        .env("WH_WEBHOOK_SIGNATURE", signature)
        .env("WH_BODY", body)
        .output()
        .expect("the verifier runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}
