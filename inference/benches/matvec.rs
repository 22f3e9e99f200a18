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
//!   products.
//!
//! It tells how much of `ndb`'s per-token time is the weights' products
//! (the rest is attention, norms, sampling and scheduling) and what a
//! kernel change would buy; the figures are in docs/neural-debugger.md.

use std::time::Instant;

use mistralrs::{DType, Device, Tensor};

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

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Every weight matrix of the model, each its own allocation (so a step
/// reads them from memory, as decoding does, not from one cached copy).
struct Model {
    weights: Vec<Tensor>,
}

impl Model {
    fn new(dtype: DType) -> Result<Model> {
        let shapes = (0..LAYERS)
            .flat_map(|_| LAYER_SHAPES)
            .chain([(VOCAB, HIDDEN)]);
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

fn milliseconds_per_step(mut step: impl FnMut() -> Result<()>) -> Result<f64> {
    step()?;
    let started = Instant::now();
    for _ in 0..REPEATS {
        step()?;
    }
    Ok(started.elapsed().as_secs_f64() * 1000.0 / REPEATS as f64)
}

fn report(what: &str, ms: f64, bytes: usize) {
    println!(
        "  {what}: {ms:.1} ms per step ({:.1} GB/s of weights, {:.0} steps/s)",
        bytes as f64 / ms / 1e6,
        1000.0 / ms
    );
}

fn main() -> Result<()> {
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
    Ok(())
}
