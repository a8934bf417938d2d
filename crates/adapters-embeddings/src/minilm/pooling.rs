//! Turning id sequences into padded tensors, and token states into one vector per sequence.

use candle_core::{DType, Device, Tensor};

/// `(ids, attention_mask)`, both `[batch, longest]` u32: each sequence is padded on the right
/// with `pad_id` up to the longest one, and the mask is 1 on real tokens, 0 on padding.
pub(super) fn padded_batch(batch: &[Vec<u32>], pad_id: u32, device: &Device) -> candle_core::Result<(Tensor, Tensor)> {
    let longest = batch.iter().map(Vec::len).max().unwrap_or(0);
    let mut ids = Vec::with_capacity(batch.len() * longest);
    let mut mask = Vec::with_capacity(batch.len() * longest);
    for sequence in batch {
        let padding = longest - sequence.len();
        ids.extend_from_slice(sequence);
        ids.extend(std::iter::repeat_n(pad_id, padding));
        mask.extend(std::iter::repeat_n(1u32, sequence.len()));
        mask.extend(std::iter::repeat_n(0u32, padding));
    }
    let shape = (batch.len(), longest);
    Ok((Tensor::from_vec(ids, shape, device)?, Tensor::from_vec(mask, shape, device)?))
}

/// Mean of the token states `[batch, len, hidden]` over the positions where `mask` `[batch, len]`
/// is 1, giving `[batch, hidden]`: padding contributes nothing, so a sequence's vector does not
/// depend on what it was batched with.
pub(super) fn masked_mean(states: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = states.broadcast_mul(&mask)?.sum(1)?;
    let counts = mask.sum(1)?;
    summed.broadcast_div(&counts)
}

/// Scales `v` to unit length (cosine similarity becomes a dot product); a zero vector stays zero.
pub fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_is_masked_out_of_the_mean() {
        let (ids, mask) = padded_batch(&[vec![5, 6, 7], vec![8]], 0, &Device::Cpu).unwrap();
        assert_eq!(ids.to_vec2::<u32>().unwrap(), [[5, 6, 7], [8, 0, 0]]);
        assert_eq!(mask.to_vec2::<u32>().unwrap(), [[1, 1, 1], [1, 0, 0]]);
        // Token states: the second sequence's padded positions hold large values that must not count.
        let states = Tensor::new(&[[[1f32, 2.], [3., 4.], [5., 6.]], [[7., 8.], [100., 100.], [100., 100.]]], &Device::Cpu).unwrap();
        let pooled = masked_mean(&states, &mask).unwrap().to_vec2::<f32>().unwrap();
        assert_eq!(pooled, [[3., 4.], [7., 8.]]);
    }

    #[test]
    fn normalizing_gives_unit_length_and_leaves_zero_alone() {
        let mut v = [3.0, 4.0];
        l2_normalize(&mut v);
        assert_eq!(v, [0.6, 0.8]);
        let mut zero = [0.0; 3];
        l2_normalize(&mut zero);
        assert_eq!(zero, [0.0; 3]);
    }
}
