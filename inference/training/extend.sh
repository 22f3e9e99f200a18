#!/usr/bin/env bash
# The default model's run, taken past the end of its schedule on programs it
# has never seen: the committed campaign checkpoint (step 1,800 of 1,800,
# inference/training/campaign/) goes on with the campaign's settings, the
# cosine stretched to --to-steps (`train.py --extend`), on a new dataset of
# freshly generated programs beside the same real code (`--adopt-data`). The
# new dataset's held-out records score the adopted model first, as the one
# to beat; whenever a later step beats it, the adapter lands in OUT/run/best/.
#
#   bash inference/training/extend.sh OUT --to-steps N [--programs P] [--program-seed S]
#                                     [--session-minutes M] [--from CHECKPOINT]
#
#   --to-steps N          the run's new length in optimiser steps (past the
#                         checkpoint's step)
#   --programs P          generated programs in the new dataset (default 1000)
#   --program-seed S      their seed (default 3: seeds 1 and 2 made the
#                         campaign's programs)
#   --session-minutes M   train this long now (default 60), then stop with a
#                         checkpoint; run the same command to go on
#   --from CHECKPOINT     the checkpoint to go on from, when OUT/run has none
#                         (default: inference/training/campaign/checkpoint.pt)
#
# The split between training and held-out records is by program and the
# data seed (1, as in the campaign), so the real functions held out there
# stay held out here. Needs `bash .ci/setup` (PyTorch included).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
usage="usage: extend.sh OUT --to-steps N [--programs P] [--program-seed S] [--session-minutes M] [--from CHECKPOINT]"
out="${1:?$usage}"
shift
to_steps="" programs=1000 program_seed=3 session_minutes=60
from="$here/campaign/checkpoint.pt"
while [ $# -gt 0 ]; do
    case "$1" in
        --to-steps) to_steps="$2"; shift 2 ;;
        --programs) programs="$2"; shift 2 ;;
        --program-seed) program_seed="$2"; shift 2 ;;
        --session-minutes) session_minutes="$2"; shift 2 ;;
        --from) from="$2"; shift 2 ;;
        *) echo "extend: unknown option $1 ($usage)" >&2; exit 2 ;;
    esac
done
[ -n "$to_steps" ] || { echo "extend: --to-steps is required ($usage)" >&2; exit 2; }
case "$program_seed" in 1|2) echo "extend: seeds 1 and 2 made the campaign's programs" >&2; exit 2 ;; esac
ndb="${NDB:-$repo/target/debug/ndb}"
[ -x "$ndb" ] || (cd "$repo" && cargo build --workspace --locked -q)
cruxeval="${NDB_CRUXEVAL_DEV:-$repo/../shared/data/cruxeval-dev.jsonl}"
[ -f "$cruxeval" ] || { echo "extend: the CruxEval dev set is needed for the guard ($cruxeval)" >&2; exit 1; }
mkdir -p "$out/programs"

if [ ! -f "$out/data/manifest.json" ]; then
    echo "extend: making the dataset (once)" >&2
    "$ndb" data programs --programs "$programs" --seed "$program_seed" > "$out/programs/generated.jsonl"
    python3 "$here/cruxeval_guard.py" --cruxeval "$cruxeval" "$out/programs/generated.jsonl"
    python3 -c 'import algorithms' 2>/dev/null \
        || python3 -m pip install --quiet --no-deps 'algorithms==1.0.1'
    python3 "$here/code_corpus.py" --stdlib --package algorithms --variants 2 --seed 1 \
        --guard "$cruxeval" > "$out/programs/real.jsonl"
    if [ ! -f "$out/data.raw/manifest.json" ]; then
        rm -rf "$out/data.raw.partial"
        "$ndb" data generate --out "$out/data.raw.partial" --corpus "$out/programs/generated.jsonl" \
            --corpus "$out/programs/real.jsonl" \
            --programs 1000000 --workers "${NDB_WORKERS:-2}" --seed 1 --heldout-share 0.05 \
            --forward 1 --inverse 2
        mv "$out/data.raw.partial" "$out/data.raw"
    fi
    rm -rf "$out/data.partial"
    python3 "$here/shuffle_data.py" "$out/data.raw" "$out/data.partial" --seed 1
    mv "$out/data.partial" "$out/data"
fi

mkdir -p "$out/run"
if [ ! -f "$out/run/checkpoint.pt" ]; then
    cp "$from" "$out/run/checkpoint.pt"
    [ -f "$(dirname "$from")/log.jsonl" ] && cp "$(dirname "$from")/log.jsonl" "$out/run/"
fi
# The campaign's settings (campaign.sh), but for the schedule's length.
exec python3 "$here/train.py" --data "$out/data" --out "$out/run" \
    --init smollm2 --lora 16 --lr 5e-4 --token-init words --new-token-lr-scale 3 \
    --batch-tokens 2048 --seq-len 1024 --max-steps "$to_steps" --extend --adopt-data \
    --eval-every 100 --eval-records 100 --checkpoint-minutes 10 \
    --session-minutes "$session_minutes" --threads "${NDB_THREADS:-2}" \
    --export-adapter "$out/run/adapter"
