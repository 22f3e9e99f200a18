#!/usr/bin/env python3
"""Rewrite a GGUF model with its weight matrices in Q8_0: the format ndb's
vendored prompt kernel computes fastest on a CPU.

The Qwen2.5-Coder files ship as Q4_K_M. candle has no fast path for a
prompt's many rows against k-quants: the 0.5B read a 328-token prompt at
47 tokens/s on 2 cores, seven seconds a question. Q8_0 weights take the
vendored panel kernel (float32 against dequantized 8-bit rows), and decode
through the 8-bit dot products. Every Q4_K/Q6_K/Q5_0 block is dequantized
and written again in 8 bits: nothing of the model changes beyond the
rounding of the 8-bit blocks (the 4-bit values are exact in 8 bits up to
the block scales). Metadata and the tokenizer are copied as they are;
tensors that are not quantized (norms, biases) stay as they were.

    python3 inference/scripts/requantize_gguf.py IN.gguf OUT.gguf

numpy and gguf only. Writes OUT atomically (OUT.partial, then renamed).
"""

import argparse
import os
import sys

import numpy as np


def requantize(source, target):
    import gguf
    from gguf.quants import dequantize, quantize

    reader = gguf.GGUFReader(source)
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    partial = target + ".partial"
    writer = gguf.GGUFWriter(partial, arch=arch, endianess=reader.endianess)
    alignment = reader.fields.get(gguf.Keys.General.ALIGNMENT)
    if alignment is not None:
        writer.data_alignment = alignment.contents()
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue
        value_type = field.types[0]
        sub_type = field.types[-1] if value_type == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), value_type, sub_type=sub_type)
    kept = (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16, gguf.GGMLQuantizationType.Q8_0)
    for tensor in reader.tensors:
        if tensor.tensor_type in kept:
            writer.add_tensor(tensor.name, tensor.data, raw_dtype=tensor.tensor_type)
            continue
        shape = [int(size) for size in reversed(tensor.shape.tolist())]
        values = dequantize(tensor.data, tensor.tensor_type).astype(np.float32).reshape(shape)
        if shape[-1] % 32:
            writer.add_tensor(tensor.name, values)
            continue
        blocks = quantize(values, gguf.GGMLQuantizationType.Q8_0)
        writer.add_tensor(tensor.name, blocks, raw_shape=blocks.shape,
                          raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(partial, target)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("target")
    args = parser.parse_args()
    requantize(args.source, args.target)
    print("wrote %s (%d bytes)" % (args.target, os.path.getsize(args.target)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
