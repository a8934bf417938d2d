use parley_adapters_embeddings::minilm::{WEIGHTS_FILE, WEIGHTS_SHA256};
use parley_adapters_embeddings::{MiniLmEmbedder, ModelError};

#[test]
fn a_missing_folder_says_to_fetch_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let err = MiniLmEmbedder::load(&missing).unwrap_err();
    assert!(matches!(&err, ModelError::Missing { path } if *path == missing), "{err:?}");
    assert!(err.to_string().contains("cargo xtask fetch-model"), "{err}");
}

#[test]
fn a_folder_without_weights_says_to_fetch_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let err = MiniLmEmbedder::load(dir.path()).unwrap_err();
    assert!(matches!(&err, ModelError::Missing { path } if *path == dir.path().join(WEIGHTS_FILE)), "{err:?}");
    assert!(err.to_string().contains("cargo xtask fetch-model"), "{err}");
}

#[test]
fn weights_of_another_hash_are_refused_naming_the_file_and_both_hashes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(WEIGHTS_FILE), b"not the weights").unwrap();
    let err = MiniLmEmbedder::load(dir.path()).unwrap_err();
    let ModelError::WrongWeights { path, expected, actual } = &err else { panic!("{err:?}") };
    assert_eq!(path, &dir.path().join(WEIGHTS_FILE));
    assert_eq!(expected, WEIGHTS_SHA256);
    assert_eq!(actual, "35245741e72e29edc737d79889c146307c8ca445834edf0e084d7c16f91da3c4", "sha256 of the fake file");
    let message = err.to_string();
    for part in [WEIGHTS_FILE, WEIGHTS_SHA256, actual.as_str()] {
        assert!(message.contains(part), "{message} should name {part}");
    }
}

#[test]
fn fetch_model_pins_the_same_weights() {
    let xtask = include_str!("../../../../xtask/src/fetch_model.rs");
    assert!(xtask.contains(&format!("const WEIGHTS_SHA256: &str = \"{WEIGHTS_SHA256}\";")), "xtask fetch-model pins another hash");
}
