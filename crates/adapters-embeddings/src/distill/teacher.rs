//! The teacher's sentence vectors for the tuning corpus, kept in a cache file: embedding a few
//! hundred thousand texts with the full model takes minutes, and tuning is rerun far more often
//! than the corpus changes.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use ndarray::Array2;
use sha2::{Digest, Sha256};

use parley_domain::ports::Embedder;

use crate::minilm::{MiniLmEmbedder, ModelError};

/// Texts per call to the model: enough to group texts by length, small enough for progress.
const CHUNK: usize = 2048;

/// One unit vector per text (rows in the texts' order). Vectors are cached per text in
/// `cache_dir`, so a grown corpus only embeds what is new.
pub fn sentence_vectors(
    model: &MiniLmEmbedder,
    texts: &[String],
    cache_dir: &Path,
    progress: &dyn Fn(usize, usize),
) -> Result<Array2<f32>, ModelError> {
    let dimensions = model.dimensions();
    let path = cache_dir.join(format!("teacher-{}.bin", hex::encode(&Sha256::digest(model.identity())[..8])));
    let mut cache = read_cache(&path, dimensions);
    let missing: Vec<String> = {
        let mut seen = HashSet::new();
        texts.iter().filter(|t| !cache.contains_key(&key(t)) && seen.insert(key(t))).cloned().collect()
    };
    for (i, chunk) in missing.chunks(CHUNK).enumerate() {
        for (text, vector) in chunk.iter().zip(model.embed_blocking(chunk)?) {
            cache.insert(key(text), vector);
        }
        progress((i * CHUNK + chunk.len()).min(missing.len()), missing.len());
    }
    if !missing.is_empty() {
        write_cache(&path, &cache);
    }
    let mut vectors = Array2::<f32>::zeros((texts.len(), dimensions));
    for (mut row, text) in vectors.rows_mut().into_iter().zip(texts) {
        row.assign(&ndarray::ArrayView1::from(&cache[&key(text)]));
    }
    Ok(vectors)
}

/// A text's cache key: the first 8 bytes of its sha256.
fn key(text: &str) -> u64 {
    let digest = Sha256::digest(text.as_bytes());
    u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// Records of `key (u64) · dimensions × f32`; a missing or damaged file is an empty cache.
fn read_cache(path: &Path, dimensions: usize) -> HashMap<u64, Vec<f32>> {
    let record = 8 + dimensions * 4;
    let Ok(bytes) = std::fs::read(path) else { return HashMap::new() };
    if bytes.len() % record != 0 {
        return HashMap::new();
    }
    bytes
        .chunks_exact(record)
        .map(|r| {
            let key = u64::from_le_bytes(r[..8].try_into().expect("8 bytes"));
            (key, r[8..].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
        })
        .collect()
}

/// Best effort: a cache that cannot be written only costs the next run time.
fn write_cache(path: &Path, cache: &HashMap<u64, Vec<f32>>) {
    let mut bytes = Vec::new();
    for (key, vector) in cache {
        bytes.extend_from_slice(&key.to_le_bytes());
        vector.iter().for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
    }
    let partial = path.with_extension("partial");
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&partial, bytes))
        .and_then(|()| std::fs::rename(&partial, path));
    if let Err(e) = written {
        eprintln!("could not cache the teacher's vectors in {}: {e}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_vectors_read_back_by_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("teacher-test.bin");
        let cache = HashMap::from([(key("coat"), vec![0.5, -1.0, 0.25]), (key("raincoat"), vec![1e-7, 3.0, -0.0])]);
        write_cache(&path, &cache);
        assert_eq!(read_cache(&path, 3), cache);
        assert!(read_cache(&path, 4).is_empty(), "records of another width are not this cache");
        assert!(read_cache(&dir.path().join("absent.bin"), 3).is_empty());
        assert_ne!(key("coat"), key("Coat"));
    }
}
