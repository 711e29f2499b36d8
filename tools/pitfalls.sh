#!/usr/bin/env bash
# pitfalls.sh: runs every demonstration of docs/pitfalls.md and prints what it gave.
# Needs a GPU, compute-sanitizer, the release build and the debug build of 01 and 06
# (tools/gpu_suite.sh build makes both).
set -u
cd "$(dirname "$0")/.."
R=build/release/bin D=build/debug/bin
show() { echo; echo "\$ $*"; "$@" 2>&1; echo "[exit $?]"; }
first_lines() { "$@" 2>&1 | head -n 40; }

echo "### 1. The race of the Korean course notes: 01 without the % filter"
for build in "$R" "$D"; do
  for i in 1 2 3 4 5; do
    show "$build/01_global_naive" --variant race --n 2^20 --reps 1 --seed 7 --json
  done
done
echo; echo "\$ compute-sanitizer --tool racecheck $R/01_global_naive --variant race --n 4096 --reps 1 --seed 7"
compute-sanitizer --tool racecheck "$R/01_global_naive" --variant race --n 4096 --reps 1 --seed 7 2>&1 | tail -n 6
echo; echo "\$ compute-sanitizer --tool memcheck $R/01_global_naive --variant race --n 4096 --reps 1 --seed 7"
compute-sanitizer --tool memcheck "$R/01_global_naive" --variant race --n 4096 --reps 1 --seed 7 2>&1 | tail -n 4

echo; echo "### 2. Early return before __syncthreads (Professional CUDA C notes), n not a multiple of the block"
show "$R/01_global_naive" --variant early-return --n 1000 --block 256 --reps 1 --seed 7
echo; echo "\$ compute-sanitizer --tool synccheck $R/01_global_naive --variant early-return --n 1000 --block 256 --reps 1 --seed 7"
compute-sanitizer --tool synccheck "$R/01_global_naive" --variant early-return --n 1000 --block 256 --reps 1 --seed 7 2>&1 | head -n 30
echo; echo "\$ compute-sanitizer --tool memcheck $R/01_global_naive --variant early-return --n 1000 --block 256 --reps 1 --seed 7"
compute-sanitizer --tool memcheck "$R/01_global_naive" --variant early-return --n 1000 --block 256 --reps 1 --seed 7 2>&1 | head -n 30

echo; echo "### 3. Warp-synchronous code without __syncwarp (volatile)"
for i in 1 2 3; do show "$R/06_warp_unroll" --variant volatile --n 2^24 --reps 1 --seed 7 --json; done
echo; echo "\$ compute-sanitizer --tool racecheck $R/06_warp_unroll --variant volatile --n 4096 --reps 1 --seed 7"
compute-sanitizer --tool racecheck "$R/06_warp_unroll" --variant volatile --n 4096 --reps 1 --seed 7 2>&1 | tail -n 12
echo; echo "\$ compute-sanitizer --tool racecheck $R/06_warp_unroll --n 4096 --reps 1 --seed 7"
compute-sanitizer --tool racecheck "$R/06_warp_unroll" --n 4096 --reps 1 --seed 7 2>&1 | tail -n 3
echo; echo "\$ compute-sanitizer --tool synccheck $R/06_warp_unroll --n 4096 --reps 1 --seed 7"
compute-sanitizer --tool synccheck "$R/06_warp_unroll" --n 4096 --reps 1 --seed 7 2>&1 | tail -n 3

echo; echo "### 4. Float accumulator stall, int overflow"
show "$R/00_cpu_baseline" --n 300000001 --type float --reps 1 --seed 7
python3 -c "import numpy as np; np.save('/tmp/big_ints.npy', np.full(1000, 2000000000, dtype=np.int32))"
show "$R/04_shared_tree" --input /tmp/big_ints.npy --type int --reps 1
show "$R/04_shared_tree" --input /tmp/big_ints.npy --type int --reps 1 --json
show "$R/04_shared_tree" --input /tmp/big_ints.npy --type double --reps 1

echo; echo "### 5. In-place kernels destroy their input"
show "$R/pitfall_no_restore" --seed 7

echo; echo "### 6. Timing: host clock, no warm-up, out of L2"
show "$R/pitfall_timing" --reps 30 --seed 7
