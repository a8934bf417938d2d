use parley_adapters_embeddings::MiniLmEmbedder;
use parley_adapters_embeddings::minilm::l2_normalize;
use parley_domain::ports::Embedder;

use crate::common::{embedder, reference};

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

async fn embed_one(embedder: &MiniLmEmbedder, text: &str) -> Vec<f32> {
    embedder.embed(&[text.to_owned()]).await.unwrap().remove(0)
}

#[test]
fn names_the_model_and_its_weights() {
    assert_eq!(embedder().identity(), "minilm:all-MiniLM-L6-v2@53aa5117");
    assert_eq!(embedder().dimensions(), 384);
}

#[tokio::test]
async fn gives_the_reference_embeddings() {
    for case in reference() {
        let vector = embed_one(embedder(), &case.text).await;
        // The reference is rounded to 6 decimals.
        assert!(max_diff(&vector, &case.embedding) < 1e-4, "{:?} differs by {}", case.text, max_diff(&vector, &case.embedding));
        assert!((norm(&vector) - 1.0).abs() < 1e-5, "{:?} has norm {}", case.text, norm(&vector));
    }
}

#[tokio::test]
async fn a_batch_gives_the_same_vectors_as_one_text_at_a_time() {
    // The texts have different lengths, so the shorter ones are padded in the batch.
    let texts: Vec<String> = reference().into_iter().map(|c| c.text).collect();
    let batched = embedder().embed(&texts).await.unwrap();
    assert_eq!(batched.len(), texts.len());
    for (text, vector) in texts.iter().zip(&batched) {
        let alone = embed_one(embedder(), text).await;
        assert!(max_diff(vector, &alone) < 1e-5, "{text:?} depends on its batch by {}", max_diff(vector, &alone));
    }
}

#[tokio::test]
async fn more_texts_than_a_batch_keep_their_order() {
    // Lengths vary, so batching by length reorders the texts internally.
    let texts: Vec<String> = (0..40).map(|i| format!("product number {i}{}", " with more words".repeat((i * 7) % 11))).collect();
    let vectors = embedder().embed(&texts).await.unwrap();
    assert_eq!(vectors.len(), 40);
    for i in [0, 1, 10, 31, 32, 39] {
        assert!(max_diff(&vectors[i], &embed_one(embedder(), &texts[i]).await) < 1e-5, "text {i}");
    }
}

#[tokio::test]
async fn a_text_over_256_tokens_is_truncated_not_an_error() {
    let long = "noise cancelling wireless earbuds with a long battery life ".repeat(60);
    let unlimited = embedder().tokenizer().clone().with_max_tokens(10_000).unwrap();
    assert!(unlimited.encode(&long, true).unwrap().len() > 256 * 2);
    let vector = embed_one(embedder(), &long).await;
    assert!((norm(&vector) - 1.0).abs() < 1e-5);
    // Only the first 256 tokens count: more of the same text past them changes nothing.
    let longer = format!("{long}{long}");
    assert!(max_diff(&vector, &embed_one(embedder(), &longer).await) < 1e-6);
}

#[tokio::test]
async fn no_texts_give_no_vectors() {
    assert!(embedder().embed(&[]).await.unwrap().is_empty());
}

#[test]
fn pooled_for_ids_is_the_embedding_before_normalization() {
    let case = &reference()[0];
    let pooled = embedder().pooled_for_ids(std::slice::from_ref(&case.token_ids)).unwrap().remove(0);
    assert_eq!(pooled.len(), 384);
    assert!((norm(&pooled) - 1.0).abs() > 0.01, "not normalized");
    let mut normalized = pooled.clone();
    l2_normalize(&mut normalized);
    assert!(max_diff(&normalized, &case.embedding) < 1e-4);
}

#[test]
fn pooled_for_ids_rejects_what_the_model_cannot_take() {
    let embedder = embedder();
    assert!(embedder.pooled_for_ids(&[]).unwrap().is_empty());
    for bad in [vec![], vec![101, 30522, 102], vec![101; 513]] {
        let err = embedder.pooled_for_ids(&[vec![101, 102], bad]).unwrap_err();
        assert!(matches!(err, parley_adapters_embeddings::ModelError::Input(_)), "{err}");
    }
}
