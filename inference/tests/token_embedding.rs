//! The GGUF models' token embeddings in the vendored mistralrs-core
//! (`layers::TokenEmbedding`, patch 0016): on the CPU the table stays
//! quantized and a lookup dequantizes only the rows it reads. Each row must
//! be bit for bit the row of the whole table dequantized (what upstream
//! keeps in memory), for a prompt's ids in any shape, repeated ids and the
//! last row included; an id past the table is an error, not another row.

use std::sync::Arc;

use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{DType, Device, Tensor};
use mistralrs_core::layers::TokenEmbedding;

mod common;
use common::values;

/// A table of `rows` rows of width `hidden` in `dtype`, and the same table
/// dequantized whole.
fn table(rows: usize, hidden: usize, dtype: GgmlDType) -> (Arc<QTensor>, Tensor) {
    let weights = Tensor::from_vec(values(rows * hidden, 3), (rows, hidden), &Device::Cpu).unwrap();
    let quantized = QTensor::quantize(&weights, dtype).unwrap();
    let whole = quantized.dequantize(&Device::Cpu).unwrap();
    (Arc::new(quantized), whole)
}

#[test]
fn a_lookup_reads_the_rows_the_whole_table_dequantized_has() {
    for dtype in [
        GgmlDType::Q8_0,
        GgmlDType::Q4_0,
        GgmlDType::Q4K,
        GgmlDType::F32,
    ] {
        let (rows, hidden) = (300, 256);
        let (weight, whole) = table(rows, hidden, dtype);
        let embedding = TokenEmbedding::new(weight, hidden, &Device::Cpu).unwrap();
        assert!(
            matches!(embedding, TokenEmbedding::Quantized { .. }),
            "{dtype:?}: the CPU keeps the table quantized"
        );
        let ids: Vec<u32> = vec![0, 7, 7, 299, 150, 1, 42, 298];
        // A batch of two prompts of four tokens, as the model passes them.
        let batch = Tensor::from_vec(ids.clone(), (2, 4), &Device::Cpu).unwrap();
        let got = embedding.forward(&batch).unwrap();
        assert_eq!(got.dims(), &[2, 4, hidden], "{dtype:?}");
        assert_eq!(got.dtype(), DType::F32);
        let expected = whole
            .index_select(&Tensor::new(ids.as_slice(), &Device::Cpu).unwrap(), 0)
            .unwrap()
            .reshape((2, 4, hidden))
            .unwrap();
        let got = got.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let expected = expected.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        assert!(
            got.iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{dtype:?}: a looked-up row differs from the dequantized table's"
        );
    }
}

#[test]
fn an_id_past_the_table_is_an_error() {
    let (weight, _) = table(64, 64, GgmlDType::Q8_0);
    let embedding = TokenEmbedding::new(weight, 64, &Device::Cpu).unwrap();
    let ids = Tensor::new(&[[3u32, 64]], &Device::Cpu).unwrap();
    let error = embedding.forward(&ids).unwrap_err().to_string();
    assert!(error.contains("token id 64"), "{error}");
}
