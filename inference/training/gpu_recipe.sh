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
    python3 "$here/train.py" --data "$scratch/data" --out "$scratch/run" --init "${NDB_GPU_INIT:-smollm2}" \
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
run="${NDB_GPU_RUN:-$(mktemp -d)/run}"
# Every GPU of the machine, one process each (DDP); the same flags as one.
gpus="${NDB_GPUS:-$( (nvidia-smi -L 2>/dev/null || true) | wc -l)}"
launch=(python3)
[ "$gpus" -gt 1 ] && launch=(torchrun --standalone --nproc-per-node "$gpus")
# The GPU tokenizes faster than one process can: the records are encoded
# by the machine's cores (the batches are the same with any number).
workers="${NDB_ENCODE_WORKERS:-$(( $(nproc) > 4 ? $(nproc) - 2 : 0 ))}"
on_best=()
[ -n "${NDB_ON_BEST:-}" ] && on_best=(--on-best "$NDB_ON_BEST")
# Rank 32 (a 39 MB adapter in float32), 64k tokens a step, the learning
# rate twice the CPU recipe's for batches 32 times larger; the schedule
# follows the clock (--minutes), scored every 250 steps on 400 held-out
# records, the best adapter kept in RUN/best/.
# NDB_GPU_INIT=qwen2.5-coder-0.5b trains the Qwen base instead (BASE_GGUF
# its Q4_K_M file; transformers, peft and accelerate must be importable).
"${launch[@]}" "$here/train.py" --data "$data" --out "$run" --init "${NDB_GPU_INIT:-smollm2}" --gguf "$base" \
    --lora 32 --lora-alpha 64 --lr 1e-3 --token-init words --new-token-lr-scale 3 \
    --batch-tokens "${NDB_BATCH_TOKENS:-65536}" --seq-len 1536 --minutes "$minutes" \
    --eval-every "${NDB_EVAL_EVERY:-250}" --eval-records "${NDB_EVAL_RECORDS:-400}" --checkpoint-minutes 100 \
    --encode-workers "$workers" --device "${NDB_TRAIN_DEVICE:-cuda}" "${on_best[@]}"
mkdir -p "$out"
cp -r "$run/adapter" "$out/"
[ -d "$run/best" ] && cp -r "$run/best" "$out/"
cp "$run/log.jsonl" "$run/loss.png" "$out/"
echo "gpu_recipe: adapter, best adapter and log in $out" >&2
