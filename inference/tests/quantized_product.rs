//! The 8-bit (and 4-bit) product of the vendored candle-core
//! (`inference/vendor/`). Fewer than 32 rows (a decoding step's one row, k
//! samples' rows) give bit for bit what upstream's loop gives (each row
//! quantized alone, each weight row's `vec_dot` alone); from 32 rows on (a
//! prompt, on a CPU without VNNI) each product is the float32 product of
//! the dequantized weights, without the activations' 8-bit rounding. Either way they stay close to
//! the float32 product. Shapes cover the model's layers and widths that do
//! not divide into the kernels' column blocks, their tiles (four weight
//! rows against two prompt rows, or two against two, four against one row
//! when decoding) or the float32 product's panels of 32 weight rows. The
//! 8-bit quantization and dequantization, rewritten to become vector code,
//! give upstream's bytes and floats.

use candle_core::quantized::k_quants::{matmul, BlockQ4_0, BlockQ8_0, GgmlType};

mod common;
use common::values;

fn quantize<T: GgmlType>(weights: &[f32]) -> Vec<T> {
    let mut blocks = vec![T::zeros(); weights.len() / T::BLCK_SIZE];
    T::from_float(weights, &mut blocks);
    blocks
}

/// The fewest rows the vendored `matmul` multiplies in float32
/// (`FLOAT_PROMPT_ROWS` there), on a CPU without VNNI; none with it (the
/// 8-bit tiles take every prompt: `float_prompt_products` there).
const FLOAT_PROMPT_ROWS: Option<usize> = if cfg!(any(
    target_feature = "avxvnni",
    all(target_feature = "avx512vnni", target_feature = "avx512vl")
)) {
    None
} else {
    Some(32)
};

/// Checks one shape: `m` rows of width `k` against `n` weight rows. The
/// float32 product may differ by `tolerance * sqrt(k)` (the activations are
/// quantized too, and the rounding errors of `k` terms add up like a random
/// walk); a wrong row or column is off by about `sqrt(k) / 3`.
fn check<T: GgmlType>(m: usize, k: usize, n: usize, tolerance: f32) {
    let bound = tolerance * (k as f32).sqrt();
    let lhs = values(m * k, 1 + (m * 31 + n) as u64);
    let weights = values(n * k, 7 + k as u64);
    let rhs = quantize::<T>(&weights);

    let mut together = vec![0f32; m * n];
    matmul((m, k, n), &lhs, &rhs, &mut together).unwrap();

    let mut dequantized = vec![0f32; n * k];
    T::to_float(&rhs, &mut dequantized);
    if FLOAT_PROMPT_ROWS.is_some_and(|rows| m >= rows) {
        // The float32 product of the dequantized weights: only float32's
        // own rounding, far below the 8-bit product's.
        for row in 0..m {
            for col in 0..n {
                let exact: f64 = (0..k)
                    .map(|i| lhs[row * k + i] as f64 * dequantized[col * k + i] as f64)
                    .sum();
                let got = together[row * n + col];
                assert!(
                    (got as f64 - exact).abs() <= 1e-5 * (k as f64).sqrt(),
                    "{:?} ({m}, {k}, {n}): [{row}, {col}] is {got}, the dequantized weights give {exact}",
                    T::DTYPE
                );
            }
        }
        return;
    }

    // Upstream's product: each row quantized alone, each weight row's
    // `vec_dot` alone.
    let k_in_blocks = k / T::BLCK_SIZE;
    for row in 0..m {
        let mut quantized = vec![T::VecDotType::zeros(); k / T::VecDotType::BLCK_SIZE];
        T::VecDotType::from_float(&lhs[row * k..(row + 1) * k], &mut quantized);
        let got = &together[row * n..(row + 1) * n];
        for (col, got) in got.iter().enumerate() {
            let want = T::vec_dot(
                k,
                &rhs[col * k_in_blocks..(col + 1) * k_in_blocks],
                &quantized,
            );
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{:?} ({m}, {k}, {n}): [{row}, {col}] is {got}, `vec_dot` alone gives {want}",
                T::DTYPE
            );
        }
    }

    for row in 0..m {
        for col in 0..n {
            let exact: f32 = (0..k)
                .map(|i| lhs[row * k + i] * dequantized[col * k + i])
                .sum();
            let got = together[row * n + col];
            assert!(
                (got - exact).abs() <= bound,
                "{:?} ({m}, {k}, {n}): [{row}, {col}] is {got}, float32 says {exact}",
                T::DTYPE
            );
        }
    }
}

#[test]
fn a_prompt_of_many_rows_gives_each_row_its_own_product_8_bit() {
    // A 190-token prompt against the model's projections (float32), and
    // odd widths: a last panel of 8 weight rows, 5 rows, or 1.
    check::<BlockQ8_0>(190, 576, 576, 0.01);
    check::<BlockQ8_0>(190, 576, 192, 0.01);
    check::<BlockQ8_0>(37, 1536, 576, 0.01);
    check::<BlockQ8_0>(32, 64, 200, 0.01);
    check::<BlockQ8_0>(33, 96, 65, 0.01);
    // Just below: the 8-bit tiles, bit for bit upstream's.
    check::<BlockQ8_0>(31, 1536, 576, 0.01);
    check::<BlockQ8_0>(5, 64, 200, 0.01);
    // Blocks of 8 weight rows and a last one of 6 (a 4 × 2 tile, then a
    // pair) or 3 (a pair and one alone), with an odd last row.
    check::<BlockQ8_0>(6, 64, 30, 0.01);
    check::<BlockQ8_0>(7, 96, 27, 0.01);
    check::<BlockQ8_0>(2, 32, 3, 0.01);
    check::<BlockQ8_0>(1, 576, 130, 0.01);
}

#[test]
fn a_decoding_step_gives_each_column_upstreams_product_8_bit() {
    // The model's projections and output head, one row: blocks of 32 to
    // 512 weight rows, four at a time, and widths that leave one to three
    // rows after the last tile or a short last block.
    check::<BlockQ8_0>(1, 576, 192, 0.01);
    check::<BlockQ8_0>(1, 1536, 576, 0.01);
    check::<BlockQ8_0>(1, 576, 49_152, 0.01);
    check::<BlockQ8_0>(1, 64, 1001, 0.01);
    check::<BlockQ8_0>(1, 32, 35, 0.01);
    check::<BlockQ8_0>(1, 96, 3, 0.01);
}

#[test]
fn a_prompt_of_many_rows_gives_each_row_its_own_product_4_bit() {
    check::<BlockQ4_0>(190, 576, 192, 0.1);
    check::<BlockQ4_0>(31, 576, 192, 0.1);
    check::<BlockQ4_0>(9, 64, 77, 0.1);
    check::<BlockQ4_0>(1, 576, 301, 0.1);
}

/// candle-core 0.10.2's `BlockQ8_0::from_float` as published, one block,
/// as the block's bytes (`#[repr(C)]`: the scale in half precision, then
/// the 32 values).
fn upstream_q8_0(xs: &[f32]) -> Vec<u8> {
    let mut amax = 0f32;
    for &x in xs {
        amax = amax.max(x.abs())
    }
    let d = amax / ((1 << 7) - 1) as f32;
    let id = if d != 0f32 { 1. / d } else { 0. };
    let mut bytes = half::f16::from_f32(d).to_le_bytes().to_vec();
    bytes.extend(xs.iter().map(|&x| f32::round(x * id) as i8 as u8));
    bytes
}

#[test]
fn quantizing_to_8_bits_gives_upstreams_bytes() {
    let mut xs = values(32 * 4096, 99);
    // A block whose largest magnitude is 127 (scale 1, so every value is
    // rounded as written): halves, which round away from zero (to-even
    // rounding would differ), then zeros, negative zeros, a NaN and
    // infinities.
    xs[0] = 127.0;
    for (i, x) in xs[1..32].iter_mut().enumerate() {
        *x = i as f32 * 7.0 - 104.5;
    }
    xs[32..64].fill(0.0);
    xs[64..96].fill(-0.0);
    xs[100] = f32::NAN;
    xs[130] = f32::INFINITY;
    xs[170] = f32::NEG_INFINITY;
    assert_eq!(std::mem::size_of::<BlockQ8_0>(), 34);
    let blocks = quantize::<BlockQ8_0>(&xs);
    for (i, block) in blocks.iter().enumerate() {
        // SAFETY: BlockQ8_0 is #[repr(C)] plain data of 34 bytes.
        let got = unsafe { std::slice::from_raw_parts(block as *const BlockQ8_0 as *const u8, 34) };
        let want = upstream_q8_0(&xs[i * 32..(i + 1) * 32]);
        assert_eq!(got, &want[..], "block {i}: {:?}", &xs[i * 32..(i + 1) * 32]);
    }
}

#[test]
fn dequantizing_8_bit_weights_gives_upstreams_floats() {
    // Blocks of scales from 1e-4 to 1e4, and a block of negative zeros.
    let mut xs = values(32 * 512, 5);
    for (i, x) in xs.iter_mut().enumerate() {
        *x *= 10f32.powi((i / 32 % 9) as i32 - 4);
    }
    xs[32..64].fill(-0.0);
    let blocks = quantize::<BlockQ8_0>(&xs);
    let mut got = vec![0f32; xs.len()];
    BlockQ8_0::to_float(&blocks, &mut got);
    for (i, block) in blocks.iter().enumerate() {
        // SAFETY: BlockQ8_0 is #[repr(C)] plain data of 34 bytes: the
        // scale in half precision, then the 32 values.
        let bytes =
            unsafe { std::slice::from_raw_parts(block as *const BlockQ8_0 as *const u8, 34) };
        let d = half::f16::from_le_bytes([bytes[0], bytes[1]]).to_f32();
        for j in 0..32 {
            // candle-core 0.10.2's `dequantize_row_q8_0`.
            let want = bytes[2 + j] as i8 as f32 * d;
            let got = got[i * 32 + j];
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "block {i}, value {j}: {got} against {want}"
            );
        }
    }
}
