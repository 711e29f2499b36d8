#!/usr/bin/env bash
# rows_bench.sh: the rows chapters' measurements on a GPU machine (the results of
# 13_rows .. 16_short_rows's and 18_split_rows's READMEs). Writes into "$RESULTS/rows" (RESULTS defaults to
# build/gpu-results):
#   gpu.txt                 nvidia-smi's view of the GPU and nvcc's version
#   NN_name/rows_sweep.json each chapter's --sweep: M x K = 2^26 at its K, float and bf16
#   NN_name/rows_sweep.csv  where offered, its methods, both CUB yardsticks and the
#                           read-only floor interleaved; each operator against the sum
#   NN_name/sweep.log       what the sweep printed (a line per K, any WRONG row)
#   example.txt             one run's report: 16_short_rows --cols 32 --type bf16
#   18_split_rows/argmax_copy.jsonl  18's argmax (--method split) against the same program built
#                           with the copy unit of commit ae396f5, which read each thread's winning
#                           vector again instead of keeping a copy (docs/tuning.md); needs git
# and prints one summary line (appended to "$RESULTS/summary.txt" too). Then, on any
# machine: python3 tools/publish.py RUN_1 RUN_2 RUN_3 copies them to docs/data/rows/runK, fills the READMEs
# and draws the plots.
# BIN is where the programs are (default build/release/bin); they are built if missing.
set -u -o pipefail
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-$PWD/build/gpu-results}
BIN=${BIN:-build/release/bin}
CHAPTERS=$(awk '!/^#/ && $2 == "rows" { printf "%s ", $1 }' chapters.txt)  # chapters.txt, the only list
out="$RESULTS/rows"
mkdir -p "$out"

missing=0
for chapter in $CHAPTERS; do [ -x "$BIN/$chapter" ] || missing=1; done
if [ $missing -eq 1 ]; then
  { cmake --preset release && cmake --build --preset release --target $CHAPTERS; } >"$out/build.log" 2>&1 ||
    { echo "rows: build failed (see $out/build.log)" | tee -a "$RESULTS/summary.txt"; exit 1; }
fi
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv; nvcc --version; } \
  >"$out/gpu.txt" 2>&1

start=$(date +%s)
failed=0
line="rows:"
for chapter in $CHAPTERS; do
  mkdir -p "$out/$chapter"
  "$BIN/$chapter" --sweep --out "$out/$chapter" >"$out/$chapter/sweep.log" 2>&1 || failed=$((failed + 1))
  ok=$(grep -c '"ok": true' "$out/$chapter/rows_sweep.json" 2>/dev/null)
  wrong=$(grep -c '"ok": false' "$out/$chapter/rows_sweep.json" 2>/dev/null)
  line+=" $chapter ${ok:-0} ok ${wrong:-0} WRONG;"
done
"$BIN/16_short_rows" --cols 32 --type bf16 >"$out/example.txt" 2>&1 || failed=$((failed + 1))

# The A/B: the tree at HEAD with 18's copy unit of ae396f5, built beside; both interleaved per M.
before=ae396f5
if git cat-file -e "$before:18_split_rows/split_rows.cu" 2>/dev/null; then
  tree=$(mktemp -d)
  git archive HEAD | tar -x -C "$tree" && git show "$before:18_split_rows/split_rows.cu" >"$tree/18_split_rows/split_rows.cu" &&
    (cd "$tree" && cmake --preset release && cmake --build --preset release --target 18_split_rows) \
      >"$out/18_split_rows/build_$before.log" 2>&1 || failed=$((failed + 1))
  ab="$out/18_split_rows/argmax_copy.jsonl"
  : >"$ab"
  for type in float bf16; do
    for m in 1 4 16 64 256 1024 4096; do
      for variant in reread copy; do
        bin="$BIN/18_split_rows"
        [ $variant = reread ] && bin="$tree/build/release/bin/18_split_rows"
        "$bin" --rows $m --cols $((67108864 / m)) --type $type --op argmax --method split --json |
          python3 -c 'import json, sys; [print(json.dumps(dict(json.loads(l), variant=sys.argv[1]))) for l in sys.stdin]' \
            $variant >>"$ab" || failed=$((failed + 1))
      done
    done
  done
  line+=" argmax A/B $(grep -c '"ok": true' "$ab") ok;"
else
  line+=" argmax A/B skipped (no git history here: $before);"
fi
line+=" $failed failed runs ($(($(date +%s) - start)) s; files in $out)"
echo "$line"
echo "$line" >>"$RESULTS/summary.txt"
[ "$failed" -eq 0 ]
