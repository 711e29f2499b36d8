#!/usr/bin/env bash
# accuracy_study.sh: chapter 12's error study on a GPU machine (12_accuracy/README.md).
# Builds nothing: build the release preset and the target first,
#   cmake --build --preset release --target accuracy_study 09_single_pass 12_accuracy
# then run this from anywhere (tools/gpu_suite.sh calls it). Output, in $RESULTS/accuracy
# ($RESULTS defaults to build/gpu-results):
#   errors.jsonl, times.jsonl, reproducibility.jsonl,        accuracy_study (error_study.cu)
#   device.json
#   study.log                                                its progress and errors
#   ncu_09_single_pass_float.csv, ncu_12_accuracy_float.csv  Nsight Compute, 2^24 floats,
#                                                            the metrics of gpu_suite.sh's ncu
#                                                            step (skipped without ncu)
# tools/publish.py RESULTS copies them to docs/data/accuracy/run1 and turns them into 12's
# README block, docs/tuning.md's 12 section and the plots.
# Prints one summary line; exits with accuracy_study's exit code.
set -u
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-$PWD/build/gpu-results}
OUT_DIR="$RESULTS/accuracy"
BIN=build/release/bin
mkdir -p "$OUT_DIR"

start=$(date +%s)
"$BIN/accuracy_study" --out "$OUT_DIR" >"$OUT_DIR/study.log" 2>&1
rc=$?

# Why the extra arithmetic costs little: instructions per warp against memory stalls,
# 09 beside 12 on the same float input.
ncu_note="ncu: skipped (not found)"
if command -v ncu >/dev/null 2>&1; then
  metrics=$(python3 tools/ncu_table.py)  # the metrics of gpu_suite.sh's ncu step
  ncu_rc=0
  for chapter in 09_single_pass 12_accuracy; do
    ncu --metrics "$metrics" --csv --page raw --clock-control none "$BIN/$chapter" --n 2^24 --type float --reps 1 \
      --no-flush >"$OUT_DIR/ncu_${chapter}_float.csv" 2>"$OUT_DIR/ncu_${chapter}_float.err" || ncu_rc=$?
  done
  ncu_note="ncu: exit $ncu_rc"
fi

summary="accuracy_study: exit $rc ($(( $(date +%s) - start )) s)"
# The issue's target (12 within 2 ulps of the correctly rounded sum on every input) and how
# many distinct results each method gave over 100 runs.
summary+=$(python3 - "$OUT_DIR" <<'PY' 2>/dev/null
import json, sys
def lines(name):
    with open(f"{sys.argv[1]}/{name}") as f:
        return [json.loads(line) for line in f if line.strip()]
worst = max((float(r["ulps"]) for r in lines("errors.jsonl") if r["method"] == "12"), default=0.0)
runs = ", ".join(f"{r['method']} {r['distinct']}" for r in lines("reproducibility.jsonl") if r["case"] == "runs")
print(f", 12 at most {worst:g} ulps from the correctly rounded sum; distinct results over 100 runs: {runs}")
PY
)
echo "$summary; $ncu_note"
exit $rc
