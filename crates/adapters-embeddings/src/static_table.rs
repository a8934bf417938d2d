//! The static embedding table: one quantized row per vocabulary token, already weighted by how
//! informative the token is, so a text's embedding is the normalized sum of its tokens' rows.
//!
//! File layout (little-endian): magic `PRLYST01`, `u32` vocabulary size, `u32` dimensions,
//! `u32` identity length and the identity (UTF-8), then one `f32` scale per token, then the
//! `i8` rows (`vocabulary × dimensions`). A token's row is `scale × i8 values`.

/// Identifies the format, so a stale or foreign file fails loudly instead of embedding noise.
const MAGIC: &[u8; 8] = b"PRLYST01";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TableError {
    #[error("not a static embedding table (bad magic)")]
    BadMagic,
    #[error("the static embedding table is truncated or has trailing bytes (expected {expected} bytes, found {found})")]
    WrongSize { expected: usize, found: usize },
    #[error("the static embedding table's identity is not UTF-8")]
    BadIdentity,
}

/// A parsed table; rows are kept quantized (a quarter of the f32 size) and expanded per lookup.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticTable {
    identity: String,
    dimensions: usize,
    scales: Vec<f32>,
    rows: Vec<i8>,
}

impl StaticTable {
    /// Quantizes float rows (one per token, each already weighted) to `i8` with a per-row scale.
    pub fn quantize(identity: impl Into<String>, rows: &[Vec<f32>]) -> Self {
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
        Self { identity: identity.into(), dimensions, scales, rows: quantized }
    }

    pub fn parse(bytes: &[u8]) -> Result<Self, TableError> {
        let header = 8 + 12;
        if bytes.len() < header || &bytes[..8] != MAGIC {
            return Err(TableError::BadMagic);
        }
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize;
        let (vocabulary, dimensions, identity_len) = (word(8), word(12), word(16));
        let expected = header + identity_len + vocabulary * 4 + vocabulary * dimensions;
        if bytes.len() != expected {
            return Err(TableError::WrongSize { expected, found: bytes.len() });
        }
        let identity = std::str::from_utf8(&bytes[header..header + identity_len]).map_err(|_| TableError::BadIdentity)?.to_string();
        let scales_at = header + identity_len;
        let rows_at = scales_at + vocabulary * 4;
        let scales = bytes[scales_at..rows_at].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let rows = bytes[rows_at..].iter().map(|&b| b as i8).collect();
        Ok(Self { identity, dimensions, scales, rows })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(20 + self.identity.len() + self.scales.len() * 4 + self.rows.len());
        out.extend_from_slice(MAGIC);
        for n in [self.scales.len(), self.dimensions, self.identity.len()] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        out.extend_from_slice(self.identity.as_bytes());
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

    pub fn vocabulary(&self) -> usize {
        self.scales.len()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> StaticTable {
        StaticTable::quantize("test@1", &[vec![1.0, 0.0, 0.0], vec![0.0, 0.5, -0.5], vec![0.0, 0.0, 0.0], vec![0.25, 1.0, 0.0]])
    }

    #[test]
    fn a_table_survives_its_byte_form() {
        let t = table();
        let parsed = StaticTable::parse(&t.to_bytes()).unwrap();
        assert_eq!(parsed, t);
        assert_eq!((parsed.identity(), parsed.vocabulary(), parsed.dimensions()), ("test@1", 4, 3));
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
    }
}
