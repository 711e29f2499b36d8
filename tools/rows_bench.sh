#!/usr/bin/env bash
# rows_bench.sh [NN_name...]: the rows chapters' measurements on a GPU machine (the results of
# 13_rows .. 16_short_rows's and 18_split_rows's READMEs), of the chapters named (default: every rows
# chapter of chapters.txt; 18's sweep, the longest, is a kind of run of its own for tools/publish.py,
# split_rows, so it may run on other machines). Writes into "$RESULTS/rows" (RESULTS defaults to
# build/gpu-results):
#   gpu.txt                 nvidia-smi's view of the GPU and nvcc's version
#   NN_name/rows_sweep.json each chapter's --sweep: M x K = 2^26 at its K, float and bf16
#   NN_name/rows_sweep.csv  where offered, its methods, both CUB yardsticks and the
#                           read-only floor interleaved; each operator against the sum
#   NN_name/sweep.log       what the sweep printed (a line per K, any WRONG row)
#   example.txt             one run's report: 16_short_rows --cols 32 --type bf16
# and prints one summary line (appended to "$RESULTS/summary.txt" too). Then, on any
# machine: python3 tools/publish.py RUN_1 RUN_2 RUN_3 copies them to docs/data/{rows,split_rows}/runK, fills the READMEs
# and draws the plots.
# BIN is where the programs are (default build/release/bin); they are built if missing.
set -u -o pipefail
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-$PWD/build/gpu-results}
BIN=${BIN:-build/release/bin}
ROWS=$(awk '!/^#/ && $2 == "rows" { printf "%s ", $1 }' chapters.txt)  # chapters.txt, the only list
CHAPTERS=${*:-$ROWS}
for chapter in $CHAPTERS; do
  case " $ROWS " in
    *" $chapter "*) ;;
    *) echo "rows_bench.sh: $chapter is not a rows chapter of chapters.txt (those: ${ROWS% })" >&2; exit 2 ;;
  esac
done
out="$RESULTS/rows"
mkdir -p "$out"

missing=0
for chapter in $CHAPTERS; do [ -x "$BIN/$chapter" ] || missing=1; done
if [ $missing -eq 1 ]; then
  { cmake --preset release && cmake --build --preset release --target $CHAPTERS; } >"$out/build.log" 2>&1 ||
    { echo "rows: build failed (see $out/build.log)" | tee -a "$RESULTS/summary.txt"; exit 1; }
fi
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory,uuid --format=csv; nvcc --version; } \
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
line+=" $failed failed runs ($(($(date +%s) - start)) s; files in $out)"
echo "$line"
echo "$line" >>"$RESULTS/summary.txt"
[ "$failed" -eq 0 ]
