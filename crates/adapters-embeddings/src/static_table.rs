//! The static embedding table: one quantized row per vocabulary token, then one per whole word
//! (see [`crate::WholeWords`]), each already weighted by how informative it is, so a text's
//! embedding is the normalized sum of its rows.
//!
//! File layout (little-endian): magic `PRLYST02`, `u32` row count, `u32` dimensions, `u32`
//! identity length and the identity (UTF-8), `u32` whole-word count and each word as `u32`
//! length and UTF-8 (in row order, after the tokens' rows), then one `f32` scale per row, then
//! the `i8` rows (`rows × dimensions`). A row is `scale × i8 values`.

/// Identifies the format, so a stale or foreign file fails loudly instead of embedding noise.
const MAGIC: &[u8; 8] = b"PRLYST02";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TableError {
    #[error("not a static embedding table (bad magic)")]
    BadMagic,
    #[error("the static embedding table is truncated or has trailing bytes (expected {expected} bytes, found {found})")]
    WrongSize { expected: usize, found: usize },
    #[error("the static embedding table's identity or a word is not UTF-8, or its words overrun it")]
    BadText,
}

/// A parsed table; rows are kept quantized (a quarter of the f32 size) and expanded per lookup.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticTable {
    identity: String,
    /// The whole words whose rows follow the tokens' rows, in order.
    words: Vec<String>,
    dimensions: usize,
    scales: Vec<f32>,
    rows: Vec<i8>,
}

impl StaticTable {
    /// Quantizes float rows (one per token, then one per word of `words`, each already weighted)
    /// to `i8` with a per-row scale.
    pub fn quantize(identity: impl Into<String>, rows: &[Vec<f32>], words: Vec<String>) -> Self {
        assert!(words.len() <= rows.len(), "every word has a row");
        let dimensions = rows.first().map_or(0, Vec::len);
        let mut scales = Vec::with_capacity(rows.len());
        let mut quantized = Vec::with_capacity(rows.len() * dimensions);
        for row in rows {
            assert_eq!(row.len(), dimensions, "every row has the table's dimensions");
            let max = row.iter().fold(0f32, |m, x| m.max(x.abs()));
            let scale = if max > 0.0 { max / 127.0 } else { 0.0 };
            scales.push(scale);
            quantized.extend(row.iter().map(|x| if scale > 0.0 { (x / scale).round().clamp(-127.0, 127.0) as i8 } else { 0 }));
        }
        Self { identity: identity.into(), words, dimensions, scales, rows: quantized }
    }

    pub fn parse(bytes: &[u8]) -> Result<Self, TableError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(TableError::BadMagic);
        }
        let mut reader = Reader { bytes, at: 8 };
        let (rows, dimensions) = (reader.word()?, reader.word()?);
        let identity = reader.text()?;
        let words = (0..reader.word()?).map(|_| reader.text()).collect::<Result<Vec<_>, _>>()?;
        let expected = reader.at + rows * 4 + rows * dimensions;
        if bytes.len() != expected || words.len() > rows {
            return Err(TableError::WrongSize { expected, found: bytes.len() });
        }
        let rows_at = reader.at + rows * 4;
        let scales = bytes[reader.at..rows_at].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let rows = bytes[rows_at..].iter().map(|&b| b as i8).collect();
        Ok(Self { identity, words, dimensions, scales, rows })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.identity.len() + self.scales.len() * 4 + self.rows.len());
        out.extend_from_slice(MAGIC);
        let put = |out: &mut Vec<u8>, n: usize| out.extend_from_slice(&(n as u32).to_le_bytes());
        put(&mut out, self.scales.len());
        put(&mut out, self.dimensions);
        put(&mut out, self.identity.len());
        out.extend_from_slice(self.identity.as_bytes());
        put(&mut out, self.words.len());
        for word in &self.words {
            put(&mut out, word.len());
            out.extend_from_slice(word.as_bytes());
        }
        for s in &self.scales {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out.extend(self.rows.iter().map(|&r| r as u8));
        out
    }

    /// Names the distillation (teacher model, reduction, weighting, format version).
    pub fn identity(&self) -> &str {
        &self.identity
    }

    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// Rows: the tokens' and the whole words'.
    pub fn vocabulary(&self) -> usize {
        self.scales.len()
    }

    /// The whole words whose rows follow the tokens' rows.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The L2-normalized sum of the tokens' rows; ids outside the vocabulary are skipped. A text
    /// with no known token embeds as the zero vector, similar to nothing.
    pub fn embed_ids(&self, ids: &[u32]) -> Vec<f32> {
        let mut sum = vec![0f32; self.dimensions];
        for &id in ids {
            let id = id as usize;
            let Some(&scale) = self.scales.get(id) else { continue };
            let row = &self.rows[id * self.dimensions..(id + 1) * self.dimensions];
            for (acc, &q) in sum.iter_mut().zip(row) {
                *acc += scale * f32::from(q);
            }
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            sum.iter_mut().for_each(|x| *x /= norm);
        }
        sum
    }
}

/// Reads the header's little-endian counts and length-prefixed texts, refusing to overrun.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn word(&mut self) -> Result<usize, TableError> {
        let end = self.at + 4;
        let b = self.bytes.get(self.at..end).ok_or(TableError::WrongSize { expected: end, found: self.bytes.len() })?;
        self.at = end;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    fn text(&mut self) -> Result<String, TableError> {
        let len = self.word()?;
        let raw = self.bytes.get(self.at..self.at + len).ok_or(TableError::BadText)?;
        self.at += len;
        String::from_utf8(raw.to_vec()).map_err(|_| TableError::BadText)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> StaticTable {
        StaticTable::quantize(
            "test@1",
            &[vec![1.0, 0.0, 0.0], vec![0.0, 0.5, -0.5], vec![0.0, 0.0, 0.0], vec![0.25, 1.0, 0.0]],
            vec!["raincoat".into()],
        )
    }

    #[test]
    fn a_table_survives_its_byte_form() {
        let t = table();
        let parsed = StaticTable::parse(&t.to_bytes()).unwrap();
        assert_eq!(parsed, t);
        assert_eq!((parsed.identity(), parsed.vocabulary(), parsed.dimensions()), ("test@1", 4, 3));
        assert_eq!(parsed.words(), ["raincoat"]);
    }

    #[test]
    fn quantization_keeps_rows_within_half_a_step() {
        let t = table();
        let row = |id: usize| (0..3).map(|d| t.scales[id] * f32::from(t.rows[id * 3 + d])).collect::<Vec<_>>();
        for (id, original) in [(1, [0.0, 0.5, -0.5]), (3, [0.25, 1.0, 0.0])] {
            for (got, want) in row(id).iter().zip(original) {
                assert!((got - want).abs() <= t.scales[id] / 2.0 + 1e-6, "{got} vs {want}");
            }
        }
    }

    #[test]
    fn a_text_is_the_normalized_sum_of_its_rows() {
        let v = table().embed_ids(&[0, 1, 1]);
        let expected = [1.0, 1.0, -1.0].map(|x: f32| x / 3f32.sqrt());
        for (got, want) in v.iter().zip(expected) {
            assert!((got - want).abs() < 1e-2, "{v:?}");
        }
        assert!((v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn unknown_and_empty_texts_embed_as_zero() {
        assert_eq!(table().embed_ids(&[2, 99]), [0.0, 0.0, 0.0]);
        assert_eq!(table().embed_ids(&[]), [0.0, 0.0, 0.0]);
    }

    #[test]
    fn damaged_tables_are_refused() {
        let bytes = table().to_bytes();
        assert_eq!(StaticTable::parse(b"nonsense, not a table at all"), Err(TableError::BadMagic));
        assert!(matches!(StaticTable::parse(&bytes[..bytes.len() - 1]), Err(TableError::WrongSize { .. })));
        assert!(StaticTable::parse(&bytes[..30]).is_err(), "a header cut inside a word is refused, not overrun");
        let mut v1 = bytes.clone();
        v1[7] = b'1';
        assert_eq!(StaticTable::parse(&v1), Err(TableError::BadMagic), "a table of the old format is refused by name");
    }
}
