//! The CPU attention of the vendored mistralrs-core (`inference/vendor/`):
//! ndb's kernels (on the global rayon pool, scores computed across key
//! positions) give, bit for bit, what upstream's give for one sequence, a
//! prompt's many queries and a decoding step's one (a few causal rows of
//! one sequence after cached keys: what upstream's decoding steps give,
//! one row at a time); several sequences
//! decoded together each get what they get alone (upstream gives every
//! sequence the last one's attention); and both agree with attention written
//! out plainly (softmax of the masked scores times the values) to float
//! rounding. Shapes are SmolLM2-135M's (9 query heads over 3 key heads of 64)
//! and odd ones: key lengths that leave part of a 16-key tile, a head width
//! that leaves part of a 4-element step, one key head per query head.

use candle_core::{Device, Tensor};
use mistralrs_core::ndb_cpu_attention;

mod common;

/// Deterministic values in [-2, 2), so a failure reproduces.
fn values(count: usize, seed: u64) -> Vec<f32> {
    common::values(count, seed)
        .into_iter()
        .map(|x| 2.0 * x)
        .collect()
}

/// `(B, S, H, D)` as mistral.rs hands it over: made `(B, H, S, D)` and
/// transposed, so its strides are not the contiguous ones.
fn tensor(b: usize, s: usize, h: usize, d: usize, seed: u64) -> Tensor {
    Tensor::from_vec(values(b * h * s * d, seed), (b, h, s, d), &Device::Cpu)
        .unwrap()
        .transpose(1, 2)
        .unwrap()
}

/// The causal mask of `q_len` new queries after `past` cached keys,
/// `(q_len, past + q_len)`: 0 where a query sees a key, -inf after it.
fn causal(q_len: usize, past: usize) -> Tensor {
    let kv_len = past + q_len;
    let mask: Vec<f32> = (0..q_len)
        .flat_map(|q| {
            (0..kv_len).map(move |kv| {
                if kv <= past + q {
                    0.0
                } else {
                    f32::NEG_INFINITY
                }
            })
        })
        .collect();
    Tensor::from_vec(mask, (q_len, kv_len), &Device::Cpu).unwrap()
}

fn flat(t: &Tensor) -> Vec<f32> {
    t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
}

fn assert_bits(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    if let Some(at) = got
        .iter()
        .zip(want)
        .position(|(a, b)| a.to_bits() != b.to_bits())
    {
        panic!("{what}: element {at} is {} against {}", got[at], want[at]);
    }
}

/// Attention written out: for each batch row, head and query, the softmax
/// of the scaled, masked scores, times the values. Output `(B, H, S, D)`.
fn plain(q: &Tensor, k: &Tensor, v: &Tensor, mask: Option<&Tensor>, scale: f32) -> Vec<f32> {
    let (b, q_len, h, d) = q.dims4().unwrap();
    let (_, kv_len, k_h, _) = k.dims4().unwrap();
    let (q, k, v) = (flat(q), flat(k), flat(v));
    // Element i of (batch, position, head) in a contiguous (B, S, H, D).
    let at = |heads: usize, len: usize, b_i: usize, pos: usize, head: usize| {
        ((b_i * len + pos) * heads + head) * d
    };
    let mask = mask.map(flat);
    let mut out = vec![0f32; b * h * q_len * d];
    for b_i in 0..b {
        for h_i in 0..h {
            let kh = h_i / (h / k_h);
            for qi in 0..q_len {
                let q_row = &q[at(h, q_len, b_i, qi, h_i)..][..d];
                let scores: Vec<f32> = (0..kv_len)
                    .map(|kv| {
                        let k_row = &k[at(k_h, kv_len, b_i, kv, kh)..][..d];
                        let dot: f32 = q_row.iter().zip(k_row).map(|(x, y)| x * y).sum();
                        dot * scale + mask.as_ref().map_or(0.0, |m| m[qi * kv_len + kv])
                    })
                    .collect();
                let top = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let weights: Vec<f32> = scores.iter().map(|s| (s - top).exp()).collect();
                let total: f32 = weights.iter().sum();
                for i in 0..d {
                    let sum: f32 = (0..kv_len)
                        .map(|kv| weights[kv] * v[at(k_h, kv_len, b_i, kv, kh) + i])
                        .sum();
                    out[((b_i * h + h_i) * q_len + qi) * d + i] = sum / total;
                }
            }
        }
    }
    out
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    for (at, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
            "{what}: element {at} is {a}, written out {b}"
        );
    }
}

/// A prompt: `q_len` new queries after `past` cached keys, causal mask.
fn check_prompt(b: usize, q_len: usize, past: usize, h: usize, k_h: usize, d: usize) {
    let what = format!("prompt b={b} q={q_len} past={past} h={h}/{k_h} d={d}");
    let kv_len = past + q_len;
    let seed = (b * 1000 + q_len * 10 + past + d) as u64;
    let q = tensor(b, q_len, h, d, seed);
    let k = tensor(b, kv_len, k_h, d, seed + 1);
    let v = tensor(b, kv_len, k_h, d, seed + 2);
    let mask = causal(q_len, past);
    let scale = 1.0 / (d as f32).sqrt();
    let ndb = flat(&ndb_cpu_attention(&q, &k, &v, Some(&mask), scale, false).unwrap());
    if b == 1 && (2..=16).contains(&q_len) {
        // A few causal rows of one sequence (a fast-forward's forced
        // tokens, a prefix-cache hit's tail) are taken one at a time: each
        // row is bit for bit the decoding step that would have taken it.
        assert_bits(&ndb, &as_decoding_steps(&q, &k, &v, scale), &what);
    } else {
        let upstream = flat(&ndb_cpu_attention(&q, &k, &v, Some(&mask), scale, true).unwrap());
        assert_bits(&ndb, &upstream, &what);
    }
    assert_close(&ndb, &plain(&q, &k, &v, Some(&mask), scale), &what);

    // The same queries without a mask see every key.
    let ndb = flat(&ndb_cpu_attention(&q, &k, &v, None, scale, false).unwrap());
    let upstream = flat(&ndb_cpu_attention(&q, &k, &v, None, scale, true).unwrap());
    assert_bits(&ndb, &upstream, &format!("{what}, no mask"));
    assert_close(
        &ndb,
        &plain(&q, &k, &v, None, scale),
        &format!("{what}, no mask"),
    );
}

/// What upstream's one-query kernel gives each row of a one-sequence
/// prompt after its cached keys, decoding it alone against the keys up to
/// its position, laid out as a prompt's output `(1, h, q_len, d)`.
fn as_decoding_steps(q: &Tensor, k: &Tensor, v: &Tensor, scale: f32) -> Vec<f32> {
    let (q_len, h, d) = (q.dim(1).unwrap(), q.dim(2).unwrap(), q.dim(3).unwrap());
    let kv_len = k.dim(1).unwrap();
    let mut out = vec![0f32; h * q_len * d];
    for i in 0..q_len {
        let keys = kv_len - q_len + i + 1;
        let (q1, k1, v1) = (
            q.narrow(1, i, 1).unwrap().contiguous().unwrap(),
            k.narrow(1, 0, keys).unwrap().contiguous().unwrap(),
            v.narrow(1, 0, keys).unwrap().contiguous().unwrap(),
        );
        let step = flat(&ndb_cpu_attention(&q1, &k1, &v1, None, scale, true).unwrap());
        for h_i in 0..h {
            let to = (h_i * q_len + i) * d;
            out[to..to + d].copy_from_slice(&step[h_i * d..(h_i + 1) * d]);
        }
    }
    out
}

/// A decoding step: one query per sequence against `kv_len` keys.
fn check_one_query(b: usize, kv_len: usize, h: usize, k_h: usize, d: usize) {
    let what = format!("one query b={b} kv={kv_len} h={h}/{k_h} d={d}");
    let seed = (b * 7000 + kv_len * 3 + d) as u64;
    let q = tensor(b, 1, h, d, seed);
    let k = tensor(b, kv_len, k_h, d, seed + 1);
    let v = tensor(b, kv_len, k_h, d, seed + 2);
    let scale = 1.0 / (d as f32).sqrt();
    let together = flat(&ndb_cpu_attention(&q, &k, &v, None, scale, false).unwrap());
    assert_close(&together, &plain(&q, &k, &v, None, scale), &what);
    let row = h * d;
    for b_i in 0..b {
        let (q1, k1, v1) = (
            q.narrow(0, b_i, 1).unwrap(),
            k.narrow(0, b_i, 1).unwrap(),
            v.narrow(0, b_i, 1).unwrap(),
        );
        let alone = flat(&ndb_cpu_attention(&q1, &k1, &v1, None, scale, false).unwrap());
        let upstream = flat(&ndb_cpu_attention(&q1, &k1, &v1, None, scale, true).unwrap());
        assert_bits(
            &alone,
            &upstream,
            &format!("{what}: sequence {b_i} alone against upstream"),
        );
        assert_bits(
            &together[b_i * row..(b_i + 1) * row],
            &alone,
            &format!("{what}: sequence {b_i} in the batch against alone"),
        );
    }
}

#[test]
fn a_prompt_s_attention_is_upstream_s_bit_for_bit() {
    check_prompt(1, 190, 0, 9, 3, 64);
    check_prompt(1, 37, 0, 9, 3, 64);
    check_prompt(1, 6, 190, 9, 3, 64);
    check_prompt(2, 17, 5, 4, 4, 6);
    check_prompt(1, 3, 0, 2, 1, 3);
}

#[test]
fn a_decoding_step_is_upstream_s_bit_for_bit_and_each_sequence_its_own() {
    check_one_query(1, 203, 9, 3, 64);
    check_one_query(1, 16, 9, 3, 64);
    check_one_query(1, 1, 9, 3, 64);
    check_one_query(8, 203, 9, 3, 64);
    check_one_query(3, 33, 4, 4, 6);
}

#[test]
fn upstream_gives_every_decoded_sequence_the_last_one_s_attention() {
    // What the batch fix is for: upstream's one-query kernel keeps one
    // partial sum per head, so two sequences decoded together both get the
    // second one's attention.
    let (h, k_h, d, kv_len) = (9, 3, 64, 40);
    let q = tensor(2, 1, h, d, 11);
    let k = tensor(2, kv_len, k_h, d, 12);
    let v = tensor(2, kv_len, k_h, d, 13);
    let scale = 0.125;
    let upstream = flat(&ndb_cpu_attention(&q, &k, &v, None, scale, true).unwrap());
    let ndb = flat(&ndb_cpu_attention(&q, &k, &v, None, scale, false).unwrap());
    let row = h * d;
    assert_bits(
        &upstream[..row],
        &upstream[row..],
        "upstream's two sequences",
    );
    assert_bits(&ndb[row..], &upstream[row..], "the last sequence");
    assert!(ndb[..row] != ndb[row..], "ndb's two sequences differ");
}
