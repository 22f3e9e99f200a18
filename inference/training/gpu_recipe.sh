#!/usr/bin/env bash
# The GPU recipe: train the debugger adapter on one GPU in about 10 minutes,
# from a dataset made on the CPU, and leave in $OUT what is worth bringing
# back (the adapter, the log, the loss curve, the held-out scores).
#
#   bash inference/training/gpu_recipe.sh DATA_DIR BASE_GGUF OUT_DIR [MINUTES]
#   bash inference/training/gpu_recipe.sh --tiny      # the same path on the CPU, in seconds
#
# On the GPU machine PyTorch and tokenizers are installed and nothing can be
# downloaded: `gguf` (pure Python) comes as a wheel next to the base model
# (see inference/training/README.md, "On a GPU", for carrying the 98 MB
# GGUF in two parts). The data is made here, where the `ndb` binary is:
#   ndb data generate --out DATA --programs 20000 --workers 2 --seed 1
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [[ "${1:-}" == "--tiny" ]]; then
    # The whole path at a tiny size on the CPU: a few programs, two steps.
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    ndb="${NDB:-$here/../../target/debug/ndb}"
    "$ndb" data generate --out "$scratch/data" --programs 24 --workers 2 --seed 3 \
        --heldout-share 0.25 >/dev/null
    python3 "$here/train.py" --data "$scratch/data" --out "$scratch/run" --init smollm2 \
        --lora 4 --max-steps 2 --batch-tokens 1024 --seq-len 768 --eval-every 1 \
        --eval-records 4 --device "${NDB_TRAIN_DEVICE:-cpu}"
    test -s "$scratch/run/adapter/adapter.safetensors"
    test -s "$scratch/run/model/model.safetensors"
    test -s "$scratch/run/loss.png"
    echo "gpu_recipe --tiny: passed" >&2
    exit 0
fi

data="${1:?usage: gpu_recipe.sh DATA_DIR BASE_GGUF OUT_DIR [MINUTES]}"
base="${2:?usage: gpu_recipe.sh DATA_DIR BASE_GGUF OUT_DIR [MINUTES]}"
out="${3:?usage: gpu_recipe.sh DATA_DIR BASE_GGUF OUT_DIR [MINUTES]}"
minutes="${4:-8}"
python3 -c 'import gguf' 2>/dev/null || python3 -m pip install --no-index --no-deps --quiet \
    --find-links "$(dirname "$base")" gguf
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >&2 || true
run="$(mktemp -d)/run"
# Every GPU of the machine, one process each (DDP); the same flags as one.
gpus="${NDB_GPUS:-$(nvidia-smi -L 2>/dev/null | wc -l)}"
launch=(python3)
[ "$gpus" -gt 1 ] && launch=(torchrun --standalone --nproc-per-node "$gpus")
"${launch[@]}" "$here/train.py" --data "$data" --out "$run" --init smollm2 --gguf "$base" \
    --lora 64 --lora-alpha 128 --lr 5e-4 --batch-tokens 65536 --seq-len 1536 \
    --minutes "$minutes" --eval-every 200 --eval-records 1000 --checkpoint-minutes 100 \
    --device cuda
mkdir -p "$out"
cp "$run/adapter/adapter.safetensors" "$run/adapter/adapter.json" "$run/log.jsonl" \
    "$run/loss.png" "$out/"
echo "gpu_recipe: adapter and log in $out" >&2
