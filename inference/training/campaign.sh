#!/usr/bin/env bash
# The default model's long training run, a session at a time, on the CPU:
# the same dataset every time (made once, deterministically: generated
# programs and real code with its own inputs; since step 1,128 the wider
# one below, see campaign/README.md), one LoRA run of SmolLM2-135M
# whose schedule spans --max-steps, stopped after --session-minutes with a
# checkpoint and continued exactly by running this again. Whenever the
# held-out exact match improves, the adapter lands in OUT/run/best/.
#
#   bash inference/training/campaign.sh OUT [--base NAME] [--session-minutes M] [--resume-from CHECKPOINT|DIR] [--record DIR]
#
#   --base NAME           smollm2 (default: the run of the default adapter,
#                         campaign/README.md) or qwen2.5-coder-0.5b (LoRA on
#                         Qwen2.5-Coder through transformers and peft, on a
#                         dataset of its own: the first 1,000 programs and
#                         the real code, 768-token records, 1,536 tokens a
#                         step; about 60 tokens/s on 2 cores)
#   --session-minutes M   train this long now (default 100), then stop with
#                         a checkpoint; run the same command to go on
#   --resume-from FILE    start from a checkpoint carried from another
#                         machine (inference/training/campaign/checkpoint.pt:
#                         the committed one), if OUT/run has none yet
#   --resume-from DIR     the same from a carry (a run's carry/: the weights,
#                         step, data position and random states, without the
#                         optimiser's moments; inference/training/campaign-qwen/carry/)
#                         or an adapter folder (train.py --carry-from)
#   --data DIR            train on this dataset instead of making one (the
#                         Qwen campaign's is committed:
#                         inference/training/campaign-qwen/data, so every
#                         session reads the very records the carry counts)
#   --record DIR          after the session, copy the run's log, its carry/
#                         and its best adapter into DIR (the committed record:
#                         inference/training/campaign-qwen/)
#   --adopt-data          go on although the rebuilt dataset's digest differs
#                         from the checkpoint's (the tracer changed since the
#                         run began), from the same step and data position
#
# The run's settings are fixed here: a checkpoint refuses other settings
# and other data (train.py checks the shards' digest), so every session
# continues the same run. Needs `bash .ci/setup` and
# `pip install -r inference/training/requirements.txt`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
usage="usage: campaign.sh OUT [--base smollm2|qwen2.5-coder-0.5b] [--session-minutes M] [--resume-from CHECKPOINT|DIR] [--data DIR] [--record DIR] [--adopt-data]"
out="${1:?$usage}"
shift
session_minutes=100 resume_from="" adopt="" base=smollm2 record="" data=""
while [ $# -gt 0 ]; do
    case "$1" in
        --base) base="$2"; shift 2 ;;
        --session-minutes) session_minutes="$2"; shift 2 ;;
        --resume-from) resume_from="$2"; shift 2 ;;
        --adopt-data) adopt="--adopt-data"; shift ;;
        --record) record="$2"; shift 2 ;;
        --data) data="$2"; shift 2 ;;
        *) echo "campaign: unknown option $1 ($usage)" >&2; exit 2 ;;
    esac
done
ndb="${NDB:-$repo/target/debug/ndb}"
[ -x "$ndb" ] || (cd "$repo" && cargo build --workspace --locked -q)
cruxeval="${NDB_CRUXEVAL_DEV:-$repo/../shared/data/cruxeval-dev.jsonl}"
[ -f "$cruxeval" ] || { echo "campaign: the CruxEval dev set is needed for the guard ($cruxeval)" >&2; exit 1; }
mkdir -p "$out/programs"

if [ -n "$data" ] && [ ! -f "$out/data/manifest.json" ]; then
    [ -f "$data/manifest.json" ] || { echo "campaign: $data is no dataset (no manifest.json)" >&2; exit 1; }
    mkdir -p "$out/data" && cp "$data"/* "$out/data/"
fi
if [ ! -f "$out/data/manifest.json" ]; then
    echo "campaign: making the dataset (once)" >&2
    # The first 1,000 programs (seed 1, the run's data to step 1,128) and
    # 6,000 more (seed 2): seven times the programs, one random forward
    # trajectory per call instead of two, so the model sees more functions
    # and fewer walks of each.
    "$ndb" data programs --programs 1000 --seed 1 > "$out/programs/generated.jsonl"
    if [ "$base" = smollm2 ]; then
        "$ndb" data programs --programs 6000 --seed 2 > "$out/programs/generated2.jsonl"
    else
        # A CPU run on the 0.5B base reads a few hundred thousand tokens a
        # session: the first 1,000 programs are more than it will finish.
        : > "$out/programs/generated2.jsonl"
    fi
    python3 "$here/cruxeval_guard.py" --cruxeval "$cruxeval" "$out/programs/generated.jsonl" \
        "$out/programs/generated2.jsonl"
    python3 -c 'import algorithms' 2>/dev/null \
        || python3 -m pip install --quiet --no-deps 'algorithms==1.0.1'
    python3 "$here/code_corpus.py" --stdlib --package algorithms --variants 2 --seed 1 \
        --guard "$cruxeval" > "$out/programs/real.jsonl"
    if [ ! -f "$out/data.raw/manifest.json" ]; then
        "$ndb" data generate --out "$out/data.raw.partial" --corpus "$out/programs/generated.jsonl" \
            --corpus "$out/programs/generated2.jsonl" --corpus "$out/programs/real.jsonl" \
            --programs 1000000 --workers "${NDB_WORKERS:-2}" --seed 1 --heldout-share 0.05 \
            --forward 1 --inverse 2
        mv "$out/data.raw.partial" "$out/data.raw"
    fi
    # One random order per split: the generator writes a program's ~25
    # trajectories together, and a session reads only a few thousand records.
    python3 "$here/shuffle_data.py" "$out/data.raw" "$out/data.partial" --seed 1
    mv "$out/data.partial" "$out/data"
fi

mkdir -p "$out/run"
carry=()
if [ -n "$resume_from" ] && [ ! -f "$out/run/checkpoint.pt" ]; then
    if [ -d "$resume_from" ]; then
        carry=(--carry-from "$resume_from")
        from_log="$resume_from/../log.jsonl"
        [ -f "$resume_from/log.jsonl" ] && from_log="$resume_from/log.jsonl"
    else
        cp "$resume_from" "$out/run/checkpoint.pt"
        from_log="$(dirname "$resume_from")/log.jsonl"
    fi
    [ -f "$from_log" ] && [ ! -f "$out/run/log.jsonl" ] && cp "$from_log" "$out/run/log.jsonl"
fi
if [ "$base" != smollm2 ]; then
    settings=(--init "$base" --lora 16 --lora-alpha 32 --lr 2e-4 --token-init words --new-token-lr-scale 3
              --batch-tokens 1536 --seq-len 768 --max-steps 4000 --eval-every 100 --eval-records 60)
else
    settings=(--init smollm2 --lora 16 --lr 5e-4 --token-init words --new-token-lr-scale 3
              --batch-tokens 2048 --seq-len 1024 --max-steps 1800 --eval-every 100 --eval-records 100)
fi
status=0
python3 "$here/train.py" --data "$out/data" --out "$out/run" "${settings[@]}" --checkpoint-minutes 10 \
    --session-minutes "$session_minutes" --threads "${NDB_THREADS:-2}" $adopt "${carry[@]}" || status=$?
if [ -n "$record" ]; then
    mkdir -p "$record"
    cp "$out/run/log.jsonl" "$record/log.jsonl"
    if [ -d "$out/run/carry" ]; then
        rm -rf "$record/carry" && cp -r "$out/run/carry" "$record/carry"
    fi
    if [ ! -f "$record/data/manifest.json" ]; then
        # The dataset travels with the record (7 MB for the Qwen run): the
        # next session reads the same records (--data), which a rebuild on
        # a loaded machine does not promise (calls cut by the time limit).
        mkdir -p "$record/data" && cp "$out/data"/* "$record/data/"
    fi
    if [ -f "$out/run/best/adapter.safetensors" ]; then
        cp "$out/run/best/adapter.safetensors" "$out/run/best/adapter.json" "$record/"
    fi
    echo "campaign: recorded the log, the carry and the best adapter in $record" >&2
fi
exit "$status"
