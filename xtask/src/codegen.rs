//! `cargo xtask codegen [--check]`: files generated from the code, the OpenAPI document checked
//! first ([`crate::api_document`]).

use crate::{cargo, root};

const OPENAPI: &str = "docs/openapi.json";

pub fn codegen(check: bool) -> Result<(), String> {
    let out = cargo()
        .args(["run", "--quiet", "--package", "parley-api", "--", "openapi"])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("`parley openapi` failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    let generated = String::from_utf8(out.stdout).map_err(|e| e.to_string())?;
    let problems = crate::api_document::problems(&generated);
    if !problems.is_empty() {
        return Err(format!("the OpenAPI document has {} problem(s):\n  {}", problems.len(), problems.join("\n  ")));
    }
    let path = root().join(OPENAPI);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if generated == committed {
        println!("{OPENAPI} is up to date");
        return Ok(());
    }
    if check {
        return Err(format!("{OPENAPI} is stale: run `cargo xtask codegen` and commit the result"));
    }
    std::fs::write(&path, generated).map_err(|e| format!("cannot write {OPENAPI}: {e}"))?;
    println!("wrote {OPENAPI}");
    Ok(())
}
