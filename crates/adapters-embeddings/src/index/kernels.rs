//! The inner loops of the index: dot products over f32 and over int8 rows, and int8 quantization.
//!
//! Scanning is bound by memory bandwidth, so rows are also kept as int8 (a quarter of the bytes)
//! for a first pass; see [`super::collection`]. Both dot products are written so that LLVM
//! vectorizes them; on x86-64 a copy compiled for AVX2 and FMA is picked at run time, since
//! release builds target the baseline CPU.

/// Largest magnitude of an int8 component.
const QMAX: f32 = 127.0;

/// A vector as int8 components times one scale: `v[j] ≈ scale * q[j]`, and `|v[j] - scale * q[j]|
/// ≤ scale / 2`.
pub(super) fn quantize(vector: &[f32], out: &mut [i8]) -> f32 {
    let peak = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
    if peak == 0.0 || !peak.is_finite() {
        out.fill(0);
        return 0.0;
    }
    let scale = peak / QMAX;
    for (q, x) in out.iter_mut().zip(vector) {
        *q = (x / scale).round().clamp(-QMAX, QMAX) as i8;
    }
    scale
}

/// Sum of absolute values.
pub(super) fn l1(vector: &[f32]) -> f32 {
    vector.iter().map(|x| x.abs()).sum()
}

#[inline(always)]
fn dot_f32_portable(a: &[f32], b: &[f32]) -> f32 {
    // Independent accumulators, so the additions pipeline and vectorize.
    const LANES: usize = 16;
    let mut acc = [0f32; LANES];
    let (a_body, a_tail) = a.split_at(a.len() - a.len() % LANES);
    let (b_body, b_tail) = b.split_at(a_body.len());
    for (ca, cb) in a_body.chunks_exact(LANES).zip(b_body.chunks_exact(LANES)) {
        for i in 0..LANES {
            acc[i] += ca[i] * cb[i];
        }
    }
    let tail: f32 = a_tail.iter().zip(b_tail).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

#[inline(always)]
fn dot_i8_portable(a: &[i8], b: &[i8]) -> i32 {
    // 256 products of at most 127² each fit an i32 many times over (any length below 133,000).
    const LANES: usize = 32;
    let mut acc = [0i32; LANES];
    let (a_body, a_tail) = a.split_at(a.len() - a.len() % LANES);
    let (b_body, b_tail) = b.split_at(a_body.len());
    for (ca, cb) in a_body.chunks_exact(LANES).zip(b_body.chunks_exact(LANES)) {
        for i in 0..LANES {
            acc[i] += i32::from(ca[i]) * i32::from(cb[i]);
        }
    }
    let tail: i32 = a_tail.iter().zip(b_tail).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
    acc.iter().sum::<i32>() + tail
}

/// `a · b` over f32.
pub(super) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: the CPU supports AVX2 and FMA, checked just above.
        return unsafe { x86::dot_f32(a, b) };
    }
    dot_f32_portable(a, b)
}

/// `a · b` over int8, exactly, as i32.
pub(super) fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { x86::dot_i8(a, b) };
    }
    dot_i8_portable(a, b)
}

#[cfg(target_arch = "x86_64")]
fn has_avx2_fma() -> bool {
    use std::sync::OnceLock;
    static DETECTED: OnceLock<bool> = OnceLock::new();
    *DETECTED.get_or_init(|| std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"))
}

/// The portable loops compiled again with AVX2 and FMA enabled.
#[cfg(target_arch = "x86_64")]
mod x86 {
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
        super::dot_f32_portable(a, b)
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
        super::dot_i8_portable(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_match_the_obvious_sum_for_every_length() {
        for len in [0, 1, 7, 16, 31, 32, 33, 255, 256, 384] {
            let a: Vec<f32> = (0..len).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
            let b: Vec<f32> = (0..len).map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0).collect();
            let expected: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            assert!((f64::from(dot_f32(&a, &b)) - expected).abs() < 1e-4, "f32, length {len}");
            let qa: Vec<i8> = (0..len).map(|i: i32| (i * 37 % 255) as u8 as i8).collect();
            let qb: Vec<i8> = (0..len).map(|i: i32| (i * 53 % 255) as u8 as i8).collect();
            let expected: i32 = qa.iter().zip(&qb).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
            assert_eq!(dot_i8(&qa, &qb), expected, "i8, length {len}");
            assert_eq!(dot_i8_portable(&qa, &qb), expected, "portable i8, length {len}");
            assert!((f64::from(dot_f32_portable(&a, &b)) - f64::from(dot_f32(&a, &b))).abs() < 1e-4);
        }
    }

    #[test]
    fn quantization_error_is_at_most_half_a_step() {
        let v: Vec<f32> = (0..256).map(|i| ((i * 29 % 113) as f32 - 56.0) / 300.0).collect();
        let mut q = vec![0i8; v.len()];
        let scale = quantize(&v, &mut q);
        assert!(q.iter().any(|&c| c.unsigned_abs() == 127), "the peak uses the whole range");
        for (x, c) in v.iter().zip(&q) {
            assert!((x - scale * f32::from(*c)).abs() <= scale / 2.0 + 1e-7);
        }
        assert_eq!(quantize(&[0.0; 4], &mut [1; 4]), 0.0);
    }
}
