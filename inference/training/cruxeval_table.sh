#!/usr/bin/env bash
# CruxEval-format pass@1 of one model in every answering mode, beside the
# no-model floors computed on the same problems with the same scorer.
#
#   bash inference/training/cruxeval_table.sh MODEL PROBLEMS.jsonl OUT_DIR [LIMIT]
#
# MODEL is anything `ndb --model` takes ("default" for the shipped one).
# Writes OUT_DIR/<run>.jsonl (predictions), OUT_DIR/<run>.log (stderr) and
# prints one line per run: `run<TAB>pass@1 line`. LIMIT takes the first
# LIMIT problems only; RUNS (space-separated names, default all) picks runs;
# WEIGHTS (f32, q8, ...) sets the weight format (default: ndb's).
# Runs the problems' code (scoring, --verify).
set -euo pipefail
model="${1:?usage: cruxeval_table.sh MODEL PROBLEMS.jsonl OUT_DIR [LIMIT]}"
problems="${2:?usage}"
out="${3:?usage}"
limit="${4:-1000000}"
ndb="${NDB:-$(dirname "$0")/../../target/debug/ndb}"
mkdir -p "$out"
model_args=()
[ "$model" != "default" ] && model_args=(--model "$model")
[ -n "${WEIGHTS:-}" ] && model_args+=(--weights "$WEIGHTS")
head -n "$limit" "$problems" > "$out/problems.jsonl"

only="${RUNS:-}"
run() {
    local name="$1"
    shift
    if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then
        return 0
    fi
    "$ndb" eval --report "$@" < "$out/problems.jsonl" > "$out/$name.jsonl" 2> "$out/$name.log" || true
    printf '%s\t%s\n' "$name" "$(grep -h '^pass@1' "$out/$name.log" | tail -n 1)"
}

run floor-output-first-argument --task output --baseline first-argument
run floor-input-output-as-input --task input --baseline output-as-input
run floor-input-fixed-candidates --task input --baseline fixed-candidates
run output-step_return --task output --mode step_return "${model_args[@]}"
run output-breakpoint --task output --mode breakpoint "${model_args[@]}"
run input --task input "${model_args[@]}"
run input-verify-k8 --task input --verify --samples 8 "${model_args[@]}"
run output-rollout --task output --mode rollout "${model_args[@]}"
