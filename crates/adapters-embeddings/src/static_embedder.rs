//! The default embedder: a static token table distilled from all-MiniLM-L6-v2 (`cargo xtask
//! distill`), compiled into the binary. Offline, no download, microseconds per text: a text is
//! the normalized sum of its rows (a whole word's own row when the table has one, its WordPiece
//! tokens' rows otherwise), each already weighted by informativeness.

use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use parley_domain::ports::{EmbedError, Embedder};

use crate::static_table::{StaticTable, TableError};
use crate::tokenizer::{BertTokenizer, TokenizerError};
use crate::whole_words::WholeWords;

/// The distilled table shipped with Parley (see `docs/embedders.md` for its provenance).
const BUNDLED_TABLE: &[u8] = include_bytes!("../assets/static-minilm-l6-v2.table");
/// The teacher model's tokenizer: the table has one row per entry of its vocabulary.
const BUNDLED_TOKENIZER: &[u8] = include_bytes!("../assets/minilm-tokenizer.json");

/// Tokens of a text that count: enough for any product description, bounded for hostile input.
const MAX_TOKENS: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum StaticEmbedderError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    #[error("the table has {table} rows ({words} of them whole words) but the tokenizer knows {tokenizer} tokens")]
    Mismatch { table: usize, words: usize, tokenizer: usize },
}

/// Cheap to clone: the table and tokenizer are shared.
#[derive(Clone)]
pub struct StaticEmbedder {
    inner: Arc<Inner>,
}

struct Inner {
    tokenizer: BertTokenizer,
    words: WholeWords,
    table: StaticTable,
}

impl StaticEmbedder {
    /// The table compiled into the binary. Parsed once per process.
    pub fn bundled() -> Self {
        static BUNDLED: OnceLock<StaticEmbedder> = OnceLock::new();
        BUNDLED
            .get_or_init(|| Self::from_bytes(BUNDLED_TABLE, BUNDLED_TOKENIZER).expect("the bundled static embedding table is valid"))
            .clone()
    }

    /// A table and the tokenizer whose vocabulary its rows follow.
    pub fn from_bytes(table: &[u8], tokenizer: &[u8]) -> Result<Self, StaticEmbedderError> {
        let table = StaticTable::parse(table)?;
        let tokenizer = BertTokenizer::from_bytes(tokenizer)?.with_max_tokens(MAX_TOKENS)?;
        if table.vocabulary() != tokenizer.vocab_size() + table.words().len() {
            return Err(StaticEmbedderError::Mismatch {
                table: table.vocabulary(),
                words: table.words().len(),
                tokenizer: tokenizer.vocab_size(),
            });
        }
        let words = WholeWords::new(tokenizer.vocab_size() as u32, table.words().to_vec());
        Ok(Self { inner: Arc::new(Inner { tokenizer, words, table }) })
    }

    /// One text's unit vector (the zero vector when no token of it is known).
    pub fn embed_one(&self, text: &str) -> Result<Vec<f32>, TokenizerError> {
        let ids = self.inner.words.encode(&self.inner.tokenizer, text)?;
        Ok(self.inner.table.embed_ids(&ids))
    }
}

impl std::fmt::Debug for StaticEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEmbedder").field("identity", &self.inner.table.identity()).finish()
    }
}

#[async_trait]
impl Embedder for StaticEmbedder {
    fn identity(&self) -> String {
        self.inner.table.identity().to_string()
    }

    fn dimensions(&self) -> usize {
        self.inner.table.dimensions()
    }

    /// Runs inline: a text costs microseconds, less than a hop to a blocking thread.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        texts.iter().map(|t| self.embed_one(t).map_err(|e| EmbedError::Failed(e.to_string()))).collect()
    }
}
