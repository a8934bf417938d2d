//! `cargo xtask bench index`: the vector index alone, in-process, at 100,000 and 1,000,000
//! vectors (the embeddings crate's `index_scan` bench); the table goes to `docs/performance.md`.

use super::write_report;
use crate::cargo;

pub fn run(sizes: &[usize]) -> Result<(), String> {
    let sizes: Vec<String> = sizes.iter().map(usize::to_string).collect();
    eprintln!("building and running the index bench (release)…");
    let out = cargo()
        .args(["bench", "--quiet", "--package", "parley-adapters-embeddings", "--bench", "index_scan", "--"])
        .args(&sizes)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("the index bench failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    let section = format!(
        "## Vector index: `cargo xtask bench index`\n\n\
         The index alone, in one process: 256-dimension synthetic vectors shaped like sentence embeddings (a shared direction, \
         1,000 clusters, noise), 200 queries near the clusters, top 20, on this machine's cores. Baseline: the plain exact scan (one ndarray f32 \
         matrix-vector product over every row, then a selection), measured in the same run on the same vectors. \
         Two-pass: the index's exact search (int8 scan with error bounds, on every core from 262,144 rows, then f32 rescoring of the rows that can still win; \
         see [search.md](search.md#the-index)); it returns the same results. Two approximate searches built in the bench only, with their recall \
         against the exact top 20: binary codes (one bit per dimension, the sign of the vector minus the mean; every row ranked by Hamming distance, \
         the closest 1,000 rescored in f32) and an inverted file (√n k-means centroids trained on a sample, each row copied into its \
         nearest centroid's list, lists stored contiguously; a query scans the 1/64 of the lists nearest to it). The synthetic clusters suit \
         the inverted file, so its recall here is an upper bound for real catalogs. Build is inserting every vector in batches of 2,000 (the index), or building the structure; \
         memory is the index's resident size.\n\n{table}\n"
    );
    println!("{section}");
    write_report("index", &section)
}
