#!/usr/bin/env bash
# The default model's recipe in one command, on the CPU: programs, traces,
# a LoRA fine-tune of SmolLM2-135M, held-out scores, and the adapter ready
# to become the default.
#
#   bash inference/training/recipe.sh OUT [--minutes M] [--programs N] [--real]
#                                         [--code DIR]... [--seed S]
#
#   --minutes M    training time (default 40; the 2-hour budget on 2 cores
#                  allows about 100 once data is made)
#   --programs N   generated programs (default 300)
#   --real         add real code with its own inputs: the standard library
#                  and its tests, and the MIT-licensed exercise set
#                  `algorithms` from PyPI (code_corpus.py; installed if missing)
#   --code DIR     add the functions of a source folder with their own inputs
#                  (code_corpus.py --dir; repeatable)
#   --max-steps N, --eval-records N, --heldout-share F
#                  passed on (a quick run: --max-steps 1 --eval-records 4)
#
# Needs `bash .ci/setup` (the base GGUF, numpy, gguf, tokenizers) and
# `pip install -r inference/training/requirements.txt` (PyTorch). Leaves in
# OUT: programs/*.jsonl, data/ (the traced dataset), run/ (checkpoint,
# log.jsonl, loss.png, model/, adapter/). To make the result the default:
#   cp OUT/run/adapter/adapter.* inference/default-model/
#   python3 inference/scripts/build_default_model.py
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
usage="usage: recipe.sh OUT [--minutes M] [--programs N] [--real] [--code DIR]... [--seed S]"
out="${1:?$usage}"
shift
minutes=40 programs=300 real=false seed=1 eval_records=100 heldout_share=0.05
code_dirs=() steps=()
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes="$2"; shift 2 ;;
        --programs) programs="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --real) real=true; shift ;;
        --code) code_dirs+=(--dir "$2"); shift 2 ;;
        --max-steps) steps=(--max-steps "$2"); shift 2 ;;
        --eval-records) eval_records="$2"; shift 2 ;;
        --heldout-share) heldout_share="$2"; shift 2 ;;
        *) echo "recipe: unknown option $1 ($usage)" >&2; exit 2 ;;
    esac
done
ndb="${NDB:-$repo/target/debug/ndb}"
[ -x "$ndb" ] || (cd "$repo" && cargo build --workspace --locked -q)
cruxeval="${NDB_CRUXEVAL_DEV:-$repo/../shared/data/cruxeval-dev.jsonl}"
guard=()
[ -f "$cruxeval" ] && guard=(--guard "$cruxeval")
mkdir -p "$out/programs"

echo "recipe: $programs generated programs (seed $seed)" >&2
"$ndb" data programs --programs "$programs" --seed "$seed" > "$out/programs/generated.jsonl"
corpora=(--corpus "$out/programs/generated.jsonl")
if $real; then
    python3 -c 'import algorithms' 2>/dev/null \
        || python3 -m pip install --quiet --no-deps 'algorithms==1.0.1'
    python3 "$here/code_corpus.py" --stdlib --package algorithms --variants 2 \
        --seed "$seed" "${guard[@]}" > "$out/programs/real.jsonl"
    corpora+=(--corpus "$out/programs/real.jsonl")
fi
if [ ${#code_dirs[@]} -gt 0 ]; then
    python3 "$here/code_corpus.py" "${code_dirs[@]}" --variants 2 --seed "$seed" \
        "${guard[@]}" > "$out/programs/code.jsonl"
    corpora+=(--corpus "$out/programs/code.jsonl")
fi
# code_corpus.py drops what the guard matches; generated programs are checked
# here, and the recipe stops if one matches.
if [ ${#guard[@]} -gt 0 ]; then
    python3 "$here/cruxeval_guard.py" --cruxeval "$cruxeval" "$out/programs/generated.jsonl"
fi

"$ndb" data generate --out "$out/data" "${corpora[@]}" --programs 1000000 \
    --workers "${NDB_WORKERS:-2}" --seed "$seed" --heldout-share "$heldout_share"
python3 "$here/train.py" --data "$out/data" --out "$out/run" \
    --init smollm2 --lora 16 --lr 5e-4 --batch-tokens 2048 --seq-len 1024 \
    --minutes "$minutes" "${steps[@]}" --eval-every 50 --eval-records "$eval_records" \
    --threads "${NDB_THREADS:-2}"
python3 "$here/evaluate.py" --model "$out/run/model" --data "$out/data" \
    --records "$eval_records" --threads "${NDB_THREADS:-2}" > "$out/run/heldout.json"
echo "recipe: adapter in $out/run/adapter (see the header of this script to make it the default)" >&2
