#!/usr/bin/env bash
# rows_bench.sh: chapter 13's measurements on a GPU machine (13_rows/README.md's results).
# Writes into "$RESULTS/rows" (RESULTS defaults to build/gpu-results):
#   gpu.txt          nvidia-smi's view of the GPU and nvcc's version
#   rows_sweep.json  13_rows --sweep: M x K = 2^26 at K = 1 .. 65536, float and bf16, every
#   rows_sweep.csv   method, both CUB yardsticks and the read-only floor interleaved; each
#                    operator against the sum at six K
#   sweep.log        what the sweep printed (a line per K, any WRONG row)
#   example.txt      one run's report: 13_rows --cols 32 --type bf16
#   runs.jsonl       13_rows --json for every operator at K = 32 and 1024, float and bf16
# and prints one summary line (appended to "$RESULTS/summary.txt" too). Then, on any
# machine: python3 tools/fill_rows.py "$RESULTS" fills the README and draws the plots.
# BIN is where the programs are (default build/release/bin); 13_rows is built if missing.
set -u
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-$PWD/build/gpu-results}
BIN=${BIN:-build/release/bin}
out="$RESULTS/rows"
mkdir -p "$out"

if [ ! -x "$BIN/13_rows" ]; then
  { cmake --preset release && cmake --build --preset release --target 13_rows rows_tests; } >"$out/build.log" 2>&1 ||
    { echo "rows: build failed (see $out/build.log)" | tee -a "$RESULTS/summary.txt"; exit 1; }
fi
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv; nvcc --version; } \
  >"$out/gpu.txt" 2>&1

start=$(date +%s)
"$BIN/13_rows" --sweep --out "$out" >"$out/sweep.log" 2>&1
sweep=$?
"$BIN/13_rows" --cols 32 --type bf16 >"$out/example.txt" 2>&1
example=$?
: >"$out/runs.jsonl"
runs=0
for type in float bf16; do
  for cols in 32 1024; do
    for op in sum max argmax meanvar; do
      "$BIN/13_rows" --cols "$cols" --type "$type" --op "$op" --json >>"$out/runs.jsonl" 2>>"$out/runs.err" ||
        runs=$((runs + 1))
    done
  done
done

ok=$(grep -c '"ok": true' "$out/rows_sweep.json" 2>/dev/null)
wrong=$(grep -c '"ok": false' "$out/rows_sweep.json" 2>/dev/null)
line="rows: sweep exit $sweep (${ok:-0} ok, ${wrong:-0} WRONG), example exit $example, $runs of 16 json runs failed"
line+=" ($(($(date +%s) - start)) s; files in $out)"
echo "$line"
echo "$line" >>"$RESULTS/summary.txt"
[ "$sweep" -eq 0 ] && [ "$example" -eq 0 ] && [ "$runs" -eq 0 ]
