use parley_adapters_embeddings::{BertTokenizer, TokenizerError};

use crate::common::{model_dir, reference};

fn tokenizer() -> BertTokenizer {
    BertTokenizer::from_file(&model_dir().join("tokenizer.json")).unwrap()
}

#[test]
fn gives_the_reference_token_ids() {
    let tokenizer = tokenizer();
    for case in reference() {
        assert_eq!(tokenizer.encode(&case.text, true).unwrap(), case.token_ids, "{:?}", case.text);
    }
}

#[test]
fn without_special_tokens_gives_only_the_text_tokens() {
    let tokenizer = tokenizer();
    for case in reference() {
        assert_eq!(tokenizer.encode(&case.text, false).unwrap(), case.token_ids[1..case.token_ids.len() - 1], "{:?}", case.text);
    }
}

#[test]
fn truncates_to_the_limit_keeping_the_special_tokens() {
    let tokenizer = tokenizer();
    assert_eq!(tokenizer.max_tokens(), 256);
    let long = "word ".repeat(1000);
    let ids = tokenizer.encode(&long, true).unwrap();
    assert_eq!(ids.len(), 256);
    assert_eq!((ids[0], ids[255]), (101, 102), "[CLS] … [SEP]");
    assert_eq!(tokenizer.encode(&long, false).unwrap().len(), 256);

    let short = tokenizer.with_max_tokens(5).unwrap();
    assert_eq!(short.encode(&long, true).unwrap(), [101, 2773, 2773, 2773, 102]);
    assert!(matches!(short.with_max_tokens(2), Err(TokenizerError::LimitTooSmall { max_tokens: 2, special: 2 })));
}

#[test]
fn never_pads() {
    // The model's tokenizer.json asks for padding to 128; an encoding must stay its own length.
    assert_eq!(tokenizer().encode("hi", true).unwrap().len(), 3);
}

#[test]
fn maps_ids_and_tokens_both_ways() {
    let tokenizer = tokenizer();
    assert_eq!(tokenizer.vocab_size(), 30522);
    assert_eq!(tokenizer.id_to_token(101).as_deref(), Some("[CLS]"));
    assert_eq!(tokenizer.id_to_token(8569).as_deref(), Some("##bu"));
    assert_eq!(tokenizer.token_to_id("bread"), Some(7852));
    assert_eq!(tokenizer.id_to_token(1_000_000), None);
}

#[test]
fn loads_from_bytes_as_from_a_file() {
    let bytes = std::fs::read(model_dir().join("tokenizer.json")).unwrap();
    let from_bytes = BertTokenizer::from_bytes(&bytes).unwrap();
    assert_eq!(from_bytes.encode("Wireless earbuds", true).unwrap(), tokenizer().encode("Wireless earbuds", true).unwrap());
    assert!(matches!(BertTokenizer::from_bytes(b"{not json"), Err(TokenizerError::Load(_))));
}
