#!/usr/bin/env bash
# The GPU recipe on a machine that is reached through a size-limited copy of
# the repository (this workplace's `device` tool: 64 MiB a call, files back
# at most 16 MiB each, eight of them). What it needs travels in `.gpu/`
# (ignored by git), over two calls made while the machine stays warm:
#
#   .gpu/base.part-0 .gpu/base.part-1   the 98 MB GGUF, cut in two (`split -n 2`)
#   .gpu/base.sha256                    its digest
#   .gpu/gguf-0.19.0-py3-none-any.whl   the GGUF reader (pure Python)
#   .gpu/data.tar.xz                    the dataset's shards, uncompressed
#                                       JSON lines in one xz archive (text of
#                                       traces compresses 40 times)
#
#   bash inference/training/gpu_device.sh stage           # call 1: keep what travelled
#   bash inference/training/gpu_device.sh train MINUTES   # call 2: join, unpack, train
#
# `train` runs gpu_recipe.sh and leaves in $OUT the best adapter (cut in
# parts of 15 MB: `cat adapter.safetensors.part-* > adapter.safetensors`),
# its adapter.json, the run's log, loss curve and output. The best so far is
# written to $OUT whenever the held-out score improves, so a run stopped at
# its time limit still brings its best back. Everything else stays in
# /tmp/ndb-gpu until the machine is given back.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
stage=/tmp/ndb-gpu
out="${OUT:?gpu_device.sh writes its results to \$OUT}"
mkdir -p "$stage"

collect() {
    # collect ADAPTER_DIR: the adapter into $OUT, cut to fit the transfer.
    rm -f "$out"/adapter.safetensors.part-*
    split -b 15M -d -a 1 "$1/adapter.safetensors" "$out/adapter.safetensors.part-"
    cp "$1/adapter.json" "$out/"
    [ -f "$stage/run/log.jsonl" ] && cp "$stage/run/log.jsonl" "$out/" || true
}

case "${1:-}" in
    stage)
        cp "$repo"/.gpu/* "$stage/"
        nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
        python3 -c 'import torch, tokenizers; print("torch", torch.__version__, "tokenizers", tokenizers.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU")'
        nproc
        ls -la "$stage"
        ;;
    collect)
        collect "$2"
        ;;
    train)
        minutes="${2:?usage: gpu_device.sh train MINUTES}"
        cp "$repo"/.gpu/* "$stage/"
        gguf="$stage/SmolLM2-135M-Instruct.Q4_1.gguf"
        cat "$stage"/base.part-* > "$gguf"
        (cd "$stage" && echo "$(cat base.sha256)  $gguf" | sha256sum -c --quiet)
        python3 -m pip install -q --no-index --no-deps --no-compile --target "$stage/site" "$stage"/gguf-*.whl
        export PYTHONPATH="$stage/site"
        rm -rf "$stage/data" && mkdir -p "$stage/data"
        tar -xJf "$stage/data.tar.xz" -C "$stage/data"
        ls "$stage"/data/*.jsonl | xargs -P "$(nproc)" -n 1 gzip -1
        ls -la "$stage/data"
        rm -rf "$stage/run" "$stage/out"
        export NDB_GPU_RUN="$stage/run" PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
        export NDB_ON_BEST="bash $here/gpu_device.sh collect \"\$NDB_BEST_DIR\""
        bash "$here/gpu_recipe.sh" "$stage/data" "$gguf" "$stage/out" "$minutes" 2>&1 | tee "$out/train.log"
        # The final adapter when it scores at least as well as the best one.
        if python3 - "$stage/run/log.jsonl" <<'EOF'
import json, sys
entries = [json.loads(line) for line in open(sys.argv[1])]
scores = [e["heldout"]["all"]["exact_match"] for e in entries if e.get("best")]
final = [e["heldout"]["all"]["exact_match"] for e in entries if e.get("final")]
print("best %s, final %s" % (max(scores) if scores else None, final[-1] if final else None))
sys.exit(0 if final and (not scores or final[-1] >= max(scores)) else 1)
EOF
        then
            collect "$stage/out/adapter"
        fi
        cp "$stage/run/log.jsonl" "$stage/out/loss.png" "$out/"
        ls -la "$out"
        ;;
    *)
        echo "usage: gpu_device.sh stage | train MINUTES" >&2
        exit 2
        ;;
esac
