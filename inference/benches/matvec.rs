//! What one decoding step's matrix products cost on this CPU, outside the
//! model: the weight shapes of SmolLM2-135M (30 layers of q, k, v, o, gate,
//! up, down and the 49,152-row output head) multiplied as mistral.rs
//! multiplies them on the CPU (candle's `x.matmul(&w.t())`, row-major
//! weights, through the `gemm` crate).
//!
//! `cargo bench --workspace --profile dev --bench matvec`
//!
//! It prints milliseconds per decoding step (every weight read once) for:
//! - one answer (k = 1, one row): as candle runs it (gemm's dot-product
//!   kernel for one row, which takes no threads), then the weights' rows
//!   split over the CPU's threads, then half-precision weights;
//! - k = 8 answers decoded together (eight rows, as mistral.rs batches the
//!   samples of one question): as candle runs it, and as eight one-row
//!   products;
//! - k = 1 and k = 8 with 8-bit (`Q8_0`) weights, the output head included,
//!   as the model decodes (candle's `QMatMul`, the vendored one-row kernel;
//!   `NDB_Q8_PROMPT_KERNEL=upstream` in the environment gives upstream's
//!   loop instead, `inference/vendor/README.md`).
//!
//! - a 190-token prompt through the 30 layers with 8-bit (`Q8_0`) weights,
//!   the default: upstream candle's loop (one row at a time, the weights
//!   read once per row) against the vendored product that ndb builds with
//!   (panels of weight rows dequantized in cache and multiplied in float32;
//!   `NDB_Q8_PROMPT_KERNEL=q8` in the environment gives the vendored 8-bit
//!   kernel instead, `inference/vendor/README.md`), and float32 weights
//!   through gemm.
//!
//! It tells how much of `ndb`'s per-token time is the weights' products
//! (the rest is attention, norms, sampling and scheduling) and what a
//! kernel change would buy; the figures are in docs/neural-debugger.md.

use std::time::Instant;

use candle_core::quantized::k_quants::{BlockQ8_0, GgmlType};
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::Module;
use mistralrs::{DType, Device, Tensor};
use rayon::prelude::*;

const HIDDEN: usize = 576;
const LAYERS: usize = 30;
const VOCAB: usize = 49_152;
/// (rows, columns) of each layer's weights: q, k, v, o, gate, up, down.
const LAYER_SHAPES: [(usize, usize); 7] = [
    (576, 576),
    (192, 576),
    (192, 576),
    (576, 576),
    (1536, 576),
    (1536, 576),
    (576, 1536),
];
const REPEATS: usize = 5;
/// The prompt of a new source's first question, in tokens.
const PROMPT: usize = 190;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// (rows, columns) of every weight matrix a decoding step reads: the
/// layers', then the output head.
fn decoding_shapes() -> impl Iterator<Item = (usize, usize)> {
    (0..LAYERS)
        .flat_map(|_| LAYER_SHAPES)
        .chain([(VOCAB, HIDDEN)])
}

/// Every weight matrix of the model, each its own allocation (so a step
/// reads them from memory, as decoding does, not from one cached copy).
struct Model {
    weights: Vec<Tensor>,
}

impl Model {
    fn new(dtype: DType) -> Result<Model> {
        Model::of_shapes(decoding_shapes(), dtype)
    }

    /// The layers without the output head (a prompt runs the head for its
    /// last token only).
    fn new_layers(dtype: DType) -> Result<Model> {
        Model::of_shapes((0..LAYERS).flat_map(|_| LAYER_SHAPES), dtype)
    }

    fn of_shapes(shapes: impl Iterator<Item = (usize, usize)>, dtype: DType) -> Result<Model> {
        let weights = shapes
            .map(|shape| {
                Tensor::rand(-0.1f32, 0.1, shape, &Device::Cpu).and_then(|w| w.to_dtype(dtype))
            })
            .collect::<std::result::Result<_, _>>()?;
        Ok(Model { weights })
    }

    fn bytes(&self) -> usize {
        self.weights
            .iter()
            .map(|w| w.elem_count() * w.dtype().size_in_bytes())
            .sum()
    }

    /// One decoding step: `product(x, w)` for every weight matrix, where
    /// `x` holds `rows` input rows of the matrix's width.
    fn step(
        &self,
        rows: usize,
        product: impl Fn(&Tensor, &Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        for w in &self.weights {
            let x = Tensor::ones((rows, w.dim(1)?), w.dtype(), &Device::Cpu)?;
            product(&x, w)?;
        }
        Ok(())
    }
}

/// candle's product for a linear layer without bias.
fn linear(x: &Tensor, w: &Tensor) -> Result<Tensor> {
    Ok(x.matmul(&w.t()?)?)
}

/// The same product, the weights' rows split in two halves multiplied on
/// two threads at once.
fn linear_split(x: &Tensor, w: &Tensor) -> Result<Tensor> {
    let half = w.dim(0)? / 2;
    let (first, second) = rayon::join(
        || linear(x, &w.narrow(0, 0, half)?),
        || linear(x, &w.narrow(0, half, w.dim(0)? - half)?),
    );
    Ok(Tensor::cat(&[first?, second?], 1)?)
}

/// The rows of `x` one at a time.
fn linear_by_row(x: &Tensor, w: &Tensor) -> Result<Tensor> {
    let rows = (0..x.dim(0)?)
        .map(|row| linear(&x.narrow(0, row, 1)?, w))
        .collect::<Result<Vec<_>>>()?;
    Ok(Tensor::cat(&rows, 0)?)
}

/// The layers' weights in 8 bits, as mistral.rs quantizes them at load.
struct Q8Layers {
    /// (rows, columns, blocks) of each weight matrix.
    weights: Vec<(usize, usize, Vec<BlockQ8_0>)>,
    /// The same weights as the model holds them: candle's `QMatMul`, whose
    /// product calls `k_quants::matmul` from inside candle-core, so its
    /// generic code is compiled with the dependencies' optimization (called
    /// from this crate it would be compiled here, unoptimized in the dev
    /// profile, and measure the bench rather than the kernel).
    mats: Vec<(usize, QMatMul)>,
}

impl Q8Layers {
    fn new() -> Result<Q8Layers> {
        let mut weights = Vec::new();
        let mut mats = Vec::new();
        for (n, k) in (0..LAYERS).flat_map(|_| LAYER_SHAPES) {
            let values: Vec<f32> = (0..n * k)
                .map(|i| ((i % 251) as f32 - 125.0) / 1250.0)
                .collect();
            let mut blocks = vec![BlockQ8_0::zeros(); n * k / BlockQ8_0::BLCK_SIZE];
            BlockQ8_0::from_float(&values, &mut blocks);
            let tensor = Tensor::from_vec(values, (n, k), &Device::Cpu)?;
            let quantized = QTensor::quantize(&tensor, GgmlDType::Q8_0)?;
            mats.push((k, QMatMul::from_qtensor(quantized)?));
            weights.push((n, k, blocks));
        }
        Ok(Q8Layers { weights, mats })
    }

    /// The prompt's rows through every layer's weights as the model runs
    /// them (the vendored kernel).
    fn prompt_as_the_model(&self) -> Result<()> {
        for (k, mat) in &self.mats {
            let lhs = Tensor::full(0.5f32, (PROMPT, *k), &Device::Cpu)?;
            mat.forward(&lhs)?;
        }
        Ok(())
    }

    /// The prompt's rows through every layer's weights, by `product`.
    fn prompt(&self, product: impl Fn((usize, usize, usize), &[f32], &[BlockQ8_0], &mut [f32])) {
        for (n, k, blocks) in &self.weights {
            let lhs = vec![0.5f32; PROMPT * k];
            let mut dst = vec![0f32; PROMPT * n];
            product((PROMPT, *k, *n), &lhs, blocks, &mut dst);
        }
    }
}

/// Every weight matrix of the model, the output head included, in 8 bits
/// as the model holds them (candle's `QMatMul`, each its own allocation).
struct Q8Model {
    mats: Vec<(usize, QMatMul)>,
    /// Bytes of 8-bit weights read per decoding step.
    bytes: usize,
}

impl Q8Model {
    fn new() -> Result<Q8Model> {
        let mut mats = Vec::new();
        let mut bytes = 0;
        for (n, k) in decoding_shapes() {
            let tensor = Tensor::rand(-0.1f32, 0.1, (n, k), &Device::Cpu)?;
            mats.push((
                k,
                QMatMul::from_qtensor(QTensor::quantize(&tensor, GgmlDType::Q8_0)?)?,
            ));
            bytes += n * k / 32 * 34;
        }
        Ok(Q8Model { mats, bytes })
    }

    /// One decoding step of `rows` rows through every weight matrix.
    fn step(&self, rows: usize) -> Result<()> {
        for (k, mat) in &self.mats {
            let x = Tensor::full(0.5f32, (rows, *k), &Device::Cpu)?;
            mat.forward(&x)?;
        }
        Ok(())
    }
}

/// candle-core 0.10.2's `k_quants::matmul` as published: the rows one at a
/// time, each with its own fork/join over the weight rows.
fn upstream_q8((m, k, n): (usize, usize, usize), lhs: &[f32], rhs: &[BlockQ8_0], dst: &mut [f32]) {
    let k_in_blocks = k.div_ceil(BlockQ8_0::BLCK_SIZE);
    let mut lhs_b = vec![BlockQ8_0::zeros(); m * k_in_blocks];
    for row in 0..m {
        BlockQ8_0::from_float(
            &lhs[row * k..(row + 1) * k],
            &mut lhs_b[row * k_in_blocks..(row + 1) * k_in_blocks],
        );
    }
    for row in 0..m {
        let lhs_row = &lhs_b[row * k_in_blocks..(row + 1) * k_in_blocks];
        dst[row * n..(row + 1) * n]
            .par_iter_mut()
            .enumerate()
            .with_min_len(128)
            .with_max_len(512)
            .for_each(|(col, dst)| {
                *dst = BlockQ8_0::vec_dot(
                    k,
                    &rhs[col * k_in_blocks..(col + 1) * k_in_blocks],
                    lhs_row,
                );
            });
    }
}

fn milliseconds_per_step(mut step: impl FnMut() -> Result<()>) -> Result<f64> {
    step()?;
    let started = Instant::now();
    for _ in 0..REPEATS {
        step()?;
    }
    Ok(started.elapsed().as_secs_f64() * 1000.0 / REPEATS as f64)
}

/// The median of 21 steps after one to warm up: a step of a few
/// milliseconds varies more from one to the next than the mean of five
/// shows.
fn median_milliseconds_per_step(mut step: impl FnMut() -> Result<()>) -> Result<f64> {
    step()?;
    let mut times = Vec::new();
    for _ in 0..21 {
        let started = Instant::now();
        step()?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

fn report(what: &str, ms: f64, bytes: usize) {
    println!(
        "  {what}: {ms:.1} ms per step ({:.1} GB/s of weights, {:.0} steps/s)",
        bytes as f64 / ms / 1e6,
        1000.0 / ms
    );
}

fn main() -> Result<()> {
    // The kernel switch, as ndb reads it at its first model load.
    ndb_inference::neural::benchmark_switches_from_env();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let f32s = Model::new(DType::F32)?;
    let bytes = f32s.bytes();
    println!(
        "matvec: {:.0} MB of float32 weights per step, {threads} threads",
        bytes as f64 / 1e6
    );
    let one = milliseconds_per_step(|| f32s.step(1, linear))?;
    report("k = 1, as candle runs it", one, bytes);
    let split = milliseconds_per_step(|| f32s.step(1, linear_split))?;
    report("k = 1, rows split over two threads", split, bytes);
    let f16s = Model::new(DType::F16)?;
    let half = milliseconds_per_step(|| f16s.step(1, linear))?;
    report("k = 1, f16 weights", half, f16s.bytes());
    drop(f16s);
    let batched = milliseconds_per_step(|| f32s.step(8, linear))?;
    report("k = 8 rows together, as candle runs it", batched, bytes);
    let by_row = milliseconds_per_step(|| f32s.step(8, linear_by_row))?;
    report("k = 8 as eight one-row products", by_row, bytes);
    drop(f32s);
    // The default: 8-bit weights, the output head included, one row as the
    // model decodes it (candle's `QMatMul`, the vendored one-row path), on a
    // worker of the pool as the model's forward pass runs (from outside the
    // pool every product also pays for handing its work over to the pool and
    // waiting to be woken: that is shown too).
    let q8_all = Q8Model::new()?;
    let pool = rayon::ThreadPoolBuilder::new().build()?;
    for (what, rows) in [
        ("k = 1, q8 weights (the default)", 1),
        ("k = 8, q8 weights", 8),
    ] {
        let inside = pool.install(|| median_milliseconds_per_step(|| q8_all.step(rows)))?;
        report(
            &format!("{what}, from a worker of the pool, median of 21"),
            inside,
            q8_all.bytes,
        );
    }
    let outside = median_milliseconds_per_step(|| q8_all.step(1))?;
    report(
        "k = 1, q8 weights, from outside the pool, median of 21",
        outside,
        q8_all.bytes,
    );
    drop(q8_all);

    println!("prompt: {PROMPT} tokens through the {LAYERS} layers (the output head is run for the last token only)");
    let layers = Model::new_layers(DType::F32)?;
    let f32_prompt = milliseconds_per_step(|| layers.step(PROMPT, linear))?;
    drop(layers);
    let q8 = Q8Layers::new()?;
    let upstream = milliseconds_per_step(|| {
        q8.prompt(upstream_q8);
        Ok(())
    })?;
    let vendored = milliseconds_per_step(|| q8.prompt_as_the_model())?;
    for (what, ms) in [
        ("q8, upstream candle (a row at a time)", upstream),
        (
            match std::env::var("NDB_Q8_PROMPT_KERNEL").as_deref() {
                Ok("q8") => "q8, vendored 8-bit kernel (NDB_Q8_PROMPT_KERNEL=q8)",
                Ok("pairs") => "q8, vendored 8-bit kernel by pairs (NDB_Q8_PROMPT_KERNEL=pairs)",
                Ok("upstream") => "q8 as the model runs it (NDB_Q8_PROMPT_KERNEL=upstream)",
                _ => "q8, vendored (panels dequantized, float32 products)",
            },
            vendored,
        ),
        ("f32 weights, gemm", f32_prompt),
    ] {
        println!(
            "  {what}: {ms:.0} ms ({:.0} tokens/s)",
            PROMPT as f64 * 1000.0 / ms
        );
    }
    Ok(())
}
