#!/usr/bin/env bash
# h46check.sh (git-ignored): issue 46's check on a GPU machine, from the repository root.
# Configures release for sm_90, builds ragged_tests and 19_ragged_segments, runs ragged_tests, then
# 19_ragged_segments for every distribution (equal: M = 64) x float/bf16 x the four ops at --n 2^24
# --reps 3 (and CUB beside merge path for sum; M = 1 and 4096 for sum and argmax), a half/int64 run,
# an n = 0 run, the text report, memcheck and racecheck on a small run; one summary line at the end.
# Under 4 minutes on a 16-core H100 machine. Logs in $OUT (or /tmp/h46check).
set -u
export PATH=/usr/local/cuda/bin:$PATH
out=${OUT:-/tmp/h46check}; mkdir -p "$out"
start=$(date +%s)
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/configure.log" 2>&1 || { echo "h46check: configure FAILED"; exit 1; }
cmake --build build/release --target ragged_tests 19_ragged_segments -j 16 > "$out/build.log" 2>&1 \
  || { tail -30 "$out/build.log"; echo "h46check: build FAILED"; exit 1; }
warnings=$(grep -ci "warning" "$out/build.log")
bin=build/release/bin
tests_rc=0
"$bin/ragged_tests" > "$out/ragged_tests.log" 2>&1 || tests_rc=$?
tail -3 "$out/ragged_tests.log"
runs=0; bad=0; codes=""
run() {  # run ARGS...: one program run; exit code collected
  local rc=0
  "$bin/19_ragged_segments" "$@" --json >> "$out/runs.jsonl" 2>> "$out/runs.err" || rc=$?
  runs=$((runs + 1)); codes="$codes $rc"
  if [ "$rc" != 0 ]; then bad=$((bad + 1)); echo "rc $rc: 19_ragged_segments $*" | tee -a "$out/failures.txt"; fi
}
: > "$out/runs.jsonl"; : > "$out/runs.err"
for lengths in uniform pareto one_half four_eighths "equal --rows 64"; do
  for type in float bf16; do
    for op in sum max argmax meanvar; do
      # shellcheck disable=SC2086
      run --n 2^24 --reps 3 --seed 46 --lengths $lengths --type $type --op $op
    done
    # shellcheck disable=SC2086
    run --n 2^24 --reps 3 --seed 46 --lengths $lengths --type $type --op sum --method cub_segmented
  done
done
for rows in 1 4096; do
  run --n 2^24 --reps 3 --seed 46 --lengths equal --rows $rows --op sum
  run --n 2^24 --reps 3 --seed 46 --lengths equal --rows $rows --op argmax --offsets int64
done
run --n 2^20+3 --reps 3 --lengths pareto --type half --offsets int64 --op argmax
run --n 0 --reps 2 --lengths equal --rows 7 --op meanvar
"$bin/19_ragged_segments" --n 2^20 --reps 3 --lengths one_half > "$out/text_report.txt" 2>&1; echo "text rc $?" >> "$out/text_report.txt"
san_rc=0
for tool in memcheck racecheck; do
  compute-sanitizer --tool "$tool" --error-exitcode 99 "$bin/19_ragged_segments" --n 100003 --lengths four_eighths \
    --type bf16 --op meanvar --reps 1 --no-flush > "$out/$tool.log" 2>&1 || { san_rc=1; echo "$tool FAILED: see $out/$tool.log"; }
done
echo "h46check: build warnings $warnings, ragged_tests rc $tests_rc, 19_ragged_segments runs $runs, not 0: $bad (codes:$codes), sanitizers rc $san_rc, $(( $(date +%s) - start )) s"
[ "$warnings" = 0 ] && [ "$tests_rc" = 0 ] && [ "$bad" = 0 ] && [ "$san_rc" = 0 ]
