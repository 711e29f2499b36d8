#!/usr/bin/env bash
# gpu_suite.sh STEP... : what the maintainers run on a GPU machine to verify and measure
# the tutorial. Logs and results go to $RESULTS (default build/gpu-results), and the whole
# folder is packed into $OUT/results.tgz when $OUT is set (the lent-GPU workflow).
#
# Steps (in the order given):
#   build     configure + build the release preset, the demos and the benches (and the debug
#             build of 01 and 06 for pitfalls)
#   test      ctest: CPU and GPU tests
#   sanitize  ctest: compute-sanitizer's four tools on every chapter
#   tour      the tour for int and float at 2^24 and 2^28
#   sweep     tour --sweep for int and float (docs/results.md, the plot); then the suspect points
#             (tools/publish.py check) measured again with the tour, up to twice
#   chapters  every chapter's --json at the seeds' settings (2^24 and 2^28 ints)
#   ncu       Nsight Compute metrics for every chapter at 2^24 ints
#   sass      cuobjdump -sass of 08: its global loads counted by kind (the 128-bit loads); builds 08
#             where no build step ran
#   tuning    docs/tuning.md: the single-pass bench, and 01-03 at every block size
#   steps     tour --steps NN for the chapters flagged steps in chapters.txt (int and float, 2^24
#             and 2^28; 09 int at 2^16, 2^20 and 2^28, where its changes matter) ->
#             steps.jsonl: each chapter's changes timed one at a time (its README's step table);
#             builds the tour where no build step ran
#   undo      each change a chapter undoes in a second build of its program (chapters.txt's flag
#             undo: NN_name_undo_<name>, add_reduction_chapter's UNDO), run in turn with the program
#             at the shapes where the change matters -> undo.jsonl (its README's results:NN_undo);
#             builds its targets
#   pitfalls  the demonstrations of docs/pitfalls.md
#   accuracy  bash tools/accuracy_study.sh
#   rows      bash tools/rows_bench.sh
#   smalln    build/release/bin/tune_small_n > tune_small_n.jsonl (when it was built)
#   multigpu  chapter 11 on 2+ GPUs: ctest --preset multigpu (the sanitizer on 11 and on 17 on
#             several GPUs among them), the run larger than one GPU, MPI runs (one rank per GPU,
#             two ranks placed as two nodes, a rank that stops answering)
#   scaling   11 at 1 and 2 GPUs, 2^30 and 2^32 (multigpu.jsonl), configuring and building only its
#             target where no build step ran (the second and third machines of a published table)
#   reproducible  17's tables on one GPU: bench_reproducible (reproducible.jsonl; CUB's gpu_to_gpu
#             beside it when CCCL names a CCCL 3.1+ checkout), Nsight Compute on 09 and 17 at 2^16 and
#             2^20 (per_call_*.csv); builds its targets
#   reproducible_gpus  17 on 1 and 2 GPUs beside 11: bench_reproducible_gpus (reproducible_gpus.jsonl,
#             gpu_x2.txt); builds its target
#   ragged    19's tables: bench_ragged (ragged.jsonl: 19, 19 without each of its steps, its MeanVar at 3 blocks an
#             SM, CUB and the floor), and 18_split_rows --method auto on its equal rows, M = 1, 64 and 4096 of
#             K = 2^26 / M, the sum, float and bf16 (ragged_rows.jsonl: 18's rule beside 19's sum); builds its targets
#   ragged_n  19's sum on one segment of 2^24, 2^26, 2^28 and 2^30 floats (equal rows, M = 1), each run with its
#             read-only floor, and 18_split_rows --method auto on the same rows (ragged_n.jsonl: docs/tuning.md's
#             account of what grows with n there); builds its targets
#   ragged_ncu  19's kernel (ragged_tiles) in Nsight Compute, the sum at each of its distributions, float and bf16
#             (ragged_ncu_<type>_<lengths>.csv: instructions, issue rate, DRAM, occupancy, stalls; docs/tuning.md's
#             account of where 19's time goes), and float's other operators (ragged_ncu_<op>_float_<lengths>.csv);
#             builds its target
# The run's facts for the docs (tools/publish.py reads them; nothing is typed there):
# gpu.txt (GPU, driver, memory, UUID, nvcc --version, the CPU model, the date), written before the first step.
set -u
cd "$(dirname "$0")/.." || exit 2
RESULTS=${RESULTS:-$PWD/build/gpu-results}
export RESULTS  # for the scripts the steps run (accuracy_study.sh, rows_bench.sh)
mkdir -p "$RESULTS"
BIN=build/release/bin
summary="$RESULTS/summary.txt"
note() { echo "$*" | tee -a "$summary"; }

pack() {
  if [ -n "${OUT:-}" ]; then tar czf "$OUT/results.tgz" -C "$RESULTS" . && cp "$summary" "$OUT/summary.txt"; fi
}
trap pack EXIT

gtest_arg=()
[ -d .gtest-src ] && gtest_arg=(-DFETCHCONTENT_SOURCE_DIR_GOOGLETEST="$PWD/.gtest-src")

# gpu_facts FILE: what the docs say about the machine. The UUID only tells the docs whether
# runs were on different GPUs (tools/results.py keeps a hash of it, never the UUID).
gpu_facts() {
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory,uuid --format=csv
    nvcc --version
    echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"  # the host of 00's CPU times
    echo "date: $(date -u +%F)"
  } >"$1" 2>&1
}

# build_targets TARGET...: only these targets, configuring the release preset first where no step did
# (the steps that run alone on a machine: the second and third machines of a published table).
build_targets() {
  [ -f build/release/CMakeCache.txt ] || cmake --preset release "${gtest_arg[@]}" >>"$RESULTS/configure.log" 2>&1
  cmake --build --preset release --target "$@" >>"$RESULTS/build.log" 2>&1
  note "build $*: exit $? ($(grep -c warning "$RESULTS/build.log") warnings in build.log)"
}

# scaling: 11 (int and float) at 1 and 2 GPUs, 2^30 and 2^32; topo.txt (nvidia-smi topo -m) and
# gpu_x2.txt for the "measured on" lines.
scaling() {
  gpu_facts "$RESULTS/gpu_x2.txt"
  nvidia-smi topo -m >"$RESULTS/topo.txt" 2>&1
  note "nvidia-smi topo -m: exit $? (topo.txt: the link between GPU0 and GPU1 for 11's README)"
  : >"$RESULTS/multigpu.jsonl"
  for type in int float; do
    for n in 2^30 2^32; do
      for k in 1 2; do
        $BIN/11_multi_gpu --gpus $k --n $n --type $type --json >>"$RESULTS/multigpu.jsonl" 2>>"$RESULTS/multigpu.err"
        note "11 --gpus $k --n $n --type $type: exit $?"
      done
    done
  done
}

# chapters KIND|FLAG...: the programs of those chapters of chapters.txt (the only list of them).
chapters() {
  awk -v want=" $* " '!/^#/ && NF >= 2 { for (i = 2; i <= NF; i++) if (index(want, " " $i " ")) { print "'"$BIN"'/" $1; break } }' chapters.txt
}

# undo_run STEP CHANGE PROGRAM ARG...: one run of $BIN/PROGRAM ARG... --json, its run head and a line of
# undo.jsonl with "step" (its column in the step table) and "change" (what it adds to the column before; ""
# for the first).
undo_run() {
  local step=$1 change=$2 program=$3
  shift 3
  undo_runs=$((undo_runs + 1))
  "$BIN/$program" "$@" --json 2>>"$RESULTS/undo.err" | python3 -c 'import json, sys
for o in map(json.loads, sys.stdin):
    print(json.dumps(o if o.get("head") is True else dict(o, step=sys.argv[1], change=sys.argv[2])))' \
    "$step" "$change" >>"$RESULTS/undo.jsonl" || undo_rc=1
}

# undo_chapter NN_name: its step table's runs, at M x K = 2^26 for the rows chapters. Each shape's
# runs follow each other, the build without the change first.
undo_chapter() {
  local type k m n size bytes
  case "$1" in
    14_row_stats)  # ArgMax: the lane's best vector read again from memory, or kept in shared memory
      for type in float bf16; do for k in 1024 8192 65536; do
        m=$((67108864 / k))
        undo_run "read again" "" 14_row_stats_undo_copy --rows $m --cols $k --type $type --op argmax
        undo_run "a copy in shared memory (14)" "the copy" 14_row_stats --rows $m --cols $k --type $type --op argmax
      done; done ;;
    15_lane_groups)  # groups of 2 and 4 lanes read part of a line per load; 8 and more are the control
      for type in float bf16; do for k in 8 16 32 64 128 256; do
        m=$((67108864 / k))
        undo_run "plain loads" "" 15_lane_groups_undo_line_hint --rows $m --cols $k --type $type --op sum
        undo_run "the .L2::128B hint (15)" "the hint" 15_lane_groups --rows $m --cols $k --type $type --op sum
      done; done ;;
    16_short_rows)  # rows of 16 to 128 bytes: 15's groups, then staged without and with spare words
      for type in float bf16; do for bytes in 16 32 64 128; do
        size=4 && [ $type = bf16 ] && size=2
        k=$((bytes / size)) m=$((67108864 / k))
        undo_run "15's groups" "" 16_short_rows --rows $m --cols $k --type $type --op sum --method group
        undo_run "staged, no spare words" "staging" 16_short_rows_undo_spare_words --rows $m --cols $k --type $type \
          --op sum --method thread
        undo_run "staged with spare words (16)" "spare words" 16_short_rows --rows $m --cols $k --type $type --op sum \
          --method thread
      done; done ;;
    17_reproducible)  # the values do not change what a load costs: uniform [0, 1), the program's own input
      for n in 2^16 2^20 2^24 2^28; do
        undo_run "loads in their own trip" "" 17_reproducible_undo_early_loads --n $n
        undo_run "loads a trip early (17)" "early loads" 17_reproducible --n $n
      done ;;
    *) note "undo: no runs listed for $1 in tools/gpu_suite.sh (undo_chapter)"; undo_rc=1 ;;
  esac
}

[ -f "$RESULTS/gpu.txt" ] || gpu_facts "$RESULTS/gpu.txt"
for step in "$@"; do
  start=$(date +%s)
  case "$step" in
    build)
      cmake --preset release "${gtest_arg[@]}" >"$RESULTS/configure.log" 2>&1 &&
        cmake --build --preset release >"$RESULTS/build.log" 2>&1 &&
        cmake --build --preset release --target pitfall_no_restore pitfall_timing tune_single_pass tune_small_n \
          accuracy_study bench_reproducible >>"$RESULTS/build.log" 2>&1
      note "build (and the demos and benches): exit $? ($(grep -c warning "$RESULTS/build.log") warnings)"
      cmake --preset debug "${gtest_arg[@]}" >"$RESULTS/configure_debug.log" 2>&1 &&
        cmake --build --preset debug --target 01_global_naive 06_warp_unroll >"$RESULTS/build_debug.log" 2>&1
      note "build debug (01, 06): exit $?"
      ;;
    test)
      ctest --preset release -L "^(cpu|gpu)$" -j 8 >"$RESULTS/ctest.log" 2>&1
      note "ctest -L cpu|gpu: exit $? :: $(grep -E 'tests passed|tests failed' "$RESULTS/ctest.log")"
      grep -E "\(Failed\)|\(Skipped\)|Timeout|Not Run" "$RESULTS/ctest.log" | head -20 | tee -a "$summary"
      ;;
    sanitize)
      ctest --preset sanitize -j 8 >"$RESULTS/sanitize.log" 2>&1
      note "ctest -L sanitize: exit $? :: $(grep -E 'tests passed|tests failed' "$RESULTS/sanitize.log")"
      grep -E "\(Failed\)|\(Skipped\)|Timeout" "$RESULTS/sanitize.log" | head -20 | tee -a "$summary"
      ;;
    tour)
      for type in int float; do
        for n in 2^24 2^28; do
          $BIN/tour --type $type --n $n >"$RESULTS/tour_${type}_${n/^/_}.txt" 2>&1
          note "tour --type $type --n $n: exit $?"
        done
      done
      cat "$RESULTS/tour_int_2_24.txt" >>"$summary"
      ;;
    sweep)
      mkdir -p "$RESULTS/data"
      for type in int float; do
        $BIN/tour --sweep --type $type --out "$RESULTS/data" >"$RESULTS/sweep_$type.log" 2>&1
        note "tour --sweep --type $type: exit $?"
      done
      # Suspect points (tools/publish.py check: a large spread of the repetitions, int and float
      # disagreeing at one N, a time that falls or a GB/s that drops when N doubles) are measured
      # again by the tour at that type and N, up to twice; each re-measurement replaces the
      # sweep's rows there (the rows record "remeasured" and the sweep's own "sweep_ms"). What
      # is still suspect afterwards goes to check.txt and summary.txt.
      if ! command -v python3 >/dev/null; then
        note "sweep check: no python3 here; suspect points not checked (tools/publish.py will check them)"
      else
        mkdir -p "$RESULTS/remeasure"
        for attempt in 1 2; do
          points="$RESULTS/remeasure/points_$attempt.txt"
          python3 tools/publish.py check "$RESULTS" --list >"$points" 2>>"$RESULTS/remeasure/check.log"
          [ -s "$points" ] || break
          note "sweep check, attempt $attempt: $(wc -l <"$points") size(s) to measure again"
          files=()
          while read -r type n reps; do
            out="$RESULTS/remeasure/tour_${type}_${n}_$attempt.json"
            $BIN/tour --type "$type" --n "$n" --reps "$reps" --json >"$out" 2>>"$RESULTS/remeasure/tour.err" </dev/null
            note "  tour --type $type --n $n --reps $reps --json: exit $?"
            [ -s "$out" ] && files+=("$out")
          done <"$points"
          python3 tools/publish.py remeasure "$RESULTS" ${files[@]+"${files[@]}"} --attempt $attempt 2>&1 |
            tee -a "$summary"
        done
        python3 tools/publish.py check "$RESULTS" >"$RESULTS/check.txt" 2>&1
        note "sweep check after re-measuring: exit $? (0: no suspect point left; 1: see below)"
        grep -v "^0 suspect" "$RESULTS/check.txt" | tee -a "$summary"
      fi
      ;;
    chapters)
      : >"$RESULTS/chapters.jsonl"
      for exe in $(chapters cpu array); do  # the tour's chapters
        for n in 2^24 2^28; do
          $exe --n $n --json >>"$RESULTS/chapters.jsonl" 2>>"$RESULTS/chapters.err"
        done
      done
      $BIN/00_cpu_baseline --n 300000001 --type float --reps 3 >"$RESULTS/cpu_300M_float.txt" 2>&1
      note "chapters: $(grep -c '"ok": true' "$RESULTS/chapters.jsonl") ok, $(grep -c '"ok": false' "$RESULTS/chapters.jsonl") not ok"
      ;;
    ncu)
      metrics=$(python3 tools/ncu_table.py)  # the metrics the tables show
      for exe in $(chapters ncu); do
        name=$(basename "$exe")
        ncu --metrics "$metrics" --csv --page raw --clock-control none \
          "$exe" --n 2^24 --reps 1 --no-flush ${NCU_ARGS_EXTRA:-} >"$RESULTS/ncu_$name.csv" 2>"$RESULTS/ncu_$name.err"
        note "ncu $name: exit $?"
      done
      # 04's strided-index variant, for the bank-conflict comparison of 04's README.
      ncu --metrics "$metrics" --csv --page raw --clock-control none $BIN/04_shared_tree --variant strided \
        --n 2^24 --reps 1 --no-flush >"$RESULTS/ncu_04_shared_tree_strided.csv" 2>"$RESULTS/ncu_strided.err"
      note "ncu 04 strided: exit $?"
      ;;
    sass)
      [ -x $BIN/08_vectorized ] || build_targets 08_vectorized
      # The global loads of 08's SASS, counted (the command 08's README shows).
      cuobjdump -sass $BIN/08_vectorized | grep -oE "LDG\.E[.0-9A-Z]*" | sort | uniq -c >"$RESULTS/sass_08.txt"
      note "sass 08: $(grep -c 'LDG' "$RESULTS/sass_08.txt") kinds of global load: $(tr -s ' \n' ' ' <"$RESULTS/sass_08.txt")"
      ;;
    tuning)
      $BIN/tune_single_pass >"$RESULTS/tune_single_pass.jsonl" 2>"$RESULTS/tune_single_pass.err"
      note "tune_single_pass: exit $?"
      : >"$RESULTS/blocks.jsonl"
      for exe in 01_global_naive 02_neighbored_less 03_interleaved; do
        for block in 128 256 512 1024; do
          for n in 2^24 2^28; do $BIN/$exe --n $n --block $block --json >>"$RESULTS/blocks.jsonl"; done
        done
      done
      note "blocks: $(grep -c '"ok": true' "$RESULTS/blocks.jsonl") ok"
      ;;
    steps)
      [ -x $BIN/tour ] || build_targets tour
      : >"$RESULTS/steps.jsonl"
      rc=0
      runs=0
      for exe in $(chapters steps); do
        chapter=$(basename "$exe")
        sizes="2^24 2^28" types="int float"
        # 09's changes (one launch, the shape per n) matter at small n, and not by type: ints, as 09's tables
        [ "$chapter" = 09_single_pass ] && sizes="2^16 2^20 2^28" types=int
        for type in $types; do
          for n in $sizes; do
            $BIN/tour --steps "$chapter" --type $type --n $n --json >>"$RESULTS/steps.jsonl" 2>>"$RESULTS/steps.err" || rc=$?
            runs=$((runs + 1))
          done
        done
      done
      note "steps: exit $rc ($(grep -c '"ok": true, "rows"' "$RESULTS/steps.jsonl") of $runs runs ok)"
      ;;
    undo)
      undone=$(awk '!/^#/ && / undo( |$)/ { print $1 }' chapters.txt)
      targets=$(for chapter in $undone; do
        echo "$chapter"; sed -n "s/.*UNDO \([a-z_]*\)=.*/${chapter}_undo_\1/p" "$chapter/CMakeLists.txt"; done)
      build_targets $targets
      : >"$RESULTS/undo.jsonl"
      undo_rc=0 undo_runs=0
      for chapter in $undone; do undo_chapter "$chapter"; done
      note "undo: exit $undo_rc ($(grep -c '"ok": true' "$RESULTS/undo.jsonl") of $undo_runs runs ok)"
      ;;
    pitfalls)
      bash tools/pitfalls.sh >"$RESULTS/pitfalls.txt" 2>&1
      note "pitfalls: exit $?"
      ;;
    accuracy)
      bash tools/accuracy_study.sh >"$RESULTS/accuracy_study.txt" 2>&1
      note "accuracy_study.sh: exit $?"
      ;;
    rows)
      bash tools/rows_bench.sh >"$RESULTS/rows_bench.txt" 2>&1
      note "rows_bench.sh: exit $?"
      ;;
    smalln)
      if [ -x $BIN/tune_small_n ]; then
        $BIN/tune_small_n >"$RESULTS/tune_small_n.jsonl" 2>"$RESULTS/tune_small_n.err"
        note "tune_small_n: exit $?"
      else
        note "smalln: $BIN/tune_small_n was not built (no such target, or the build step not run); step skipped"
      fi
      ;;
    multigpu)
      export NCCL_NVLS_ENABLE=0  # never NVLink multicast on shared hosts
      build_targets multigpu_tests bench_reproducible_gpus
      ctest --preset multigpu >"$RESULTS/ctest_multigpu.log" 2>&1
      note "ctest --preset multigpu: exit $? :: $(grep -E 'tests passed|tests failed' "$RESULTS/ctest_multigpu.log")"
      grep -E "Failed|Skipped|Timeout|No tests were found" "$RESULTS/ctest_multigpu.log" | head -20 | tee -a "$summary"
      # More than one GPU's memory in total: 38e9 floats = 141.6 GiB over two GPUs.
      $BIN/11_multi_gpu --gpus 2 --n 38000000000 --type float --reps 3 >"$RESULTS/multigpu_large.txt" 2>&1
      note "11 --gpus 2 --n 38000000000 --type float: exit $?"
      mpi=(mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE)
      "${mpi[@]}" -np 2 $BIN/11_multi_gpu_mpi --n 2^30 --type float >"$RESULTS/multigpu_mpi.txt" 2>&1
      note "mpirun -np 2 11_multi_gpu_mpi --n 2^30 --type float: exit $?"
      "${mpi[@]}" -np 2 $BIN/11_multi_gpu_mpi --n 2^30 --type float --json >"$RESULTS/multigpu_mpi.jsonl" \
        2>>"$RESULTS/multigpu.err"
      # Two ranks of this machine placed as two nodes of one GPU each (11's README).
      "${mpi[@]}" -np 1 env CUDA_VISIBLE_DEVICES=0 REDUCTION_NODE=0 $BIN/11_multi_gpu_mpi --n 2^30 --type float : \
        -np 1 env CUDA_VISIBLE_DEVICES=1 REDUCTION_NODE=1 $BIN/11_multi_gpu_mpi --n 2^30 --type float \
        >"$RESULTS/multigpu_mpi_two_nodes.txt" 2>&1
      note "mpirun 11_multi_gpu_mpi placed as two nodes: exit $?"
      # A rank that stops answering before the all-reduce: the other rank gives up after
      # REDUCTION_NCCL_TIMEOUT seconds with a message (11's README); the exit code is 3.
      REDUCTION_TEST_FAIL=1:allreduce REDUCTION_NCCL_TIMEOUT=10 timeout -k 10 120 "${mpi[@]}" -np 2 \
        $BIN/11_multi_gpu_mpi --n 2^30 --type float >"$RESULTS/multigpu_mpi_silent_peer.txt" 2>&1
      note "mpirun 11_multi_gpu_mpi with a silent rank 1: exit $? (3 expected, 124 = hung)"
      ;;
    scaling)
      export NCCL_NVLS_ENABLE=0
      [ -x $BIN/11_multi_gpu ] || build_targets 11_multi_gpu
      scaling
      ;;
    reproducible)
      # Configured again, for CCCL: a CCCL 3.1+ checkout gives the bench CUB's gpu_to_gpu.
      cmake --preset release "${gtest_arg[@]}" ${CCCL:+-DREDUCTION_CCCL_INCLUDE="$CCCL"} >>"$RESULTS/configure.log" 2>&1
      build_targets bench_reproducible 09_single_pass 17_reproducible
      $BIN/bench_reproducible >"$RESULTS/reproducible.jsonl" 2>"$RESULTS/reproducible.err"
      note "bench_reproducible: exit $? ($([ -n "${CCCL:-}" ] && echo "CUB's gpu_to_gpu from $CCCL" ||
        echo "no CCCL given: no CUB gpu_to_gpu column"))"
      # Where most of 17's extra time is paid per call (docs/tuning.md, "What every call pays").
      sections=$(python3 tools/fill_reproducible.py)
      for n in 16 20; do
        for exe in 09_single_pass 17_reproducible; do
          ncu $sections --csv --page raw --clock-control none $BIN/$exe --n 2^$n --type float --reps 1 --no-flush \
            >"$RESULTS/per_call_${exe}_$n.csv" 2>>"$RESULTS/per_call.err"
          note "ncu $exe --n 2^$n: exit $?"
        done
      done
      ;;
    reproducible_gpus)
      build_targets bench_reproducible_gpus  # a target where CMake finds NCCL
      gpu_facts "$RESULTS/gpu_x2.txt"
      NCCL_NVLS_ENABLE=0 $BIN/bench_reproducible_gpus >"$RESULTS/reproducible_gpus.jsonl" 2>"$RESULTS/reproducible_gpus.err"
      note "bench_reproducible_gpus: exit $? (0: every total has the same bits; 1: a 17 total whose bits differ between GPUs or from one GPU)"
      ;;
    ragged)
      build_targets bench_ragged 18_split_rows
      $BIN/bench_ragged >"$RESULTS/ragged.jsonl" 2>"$RESULTS/ragged.err"
      note "bench_ragged: exit $? (0: every checked result right; 1: a WRONG result, said in ragged.err)"
      # 18's own rule on the bench's equal rows (M x K = 2^26), beside 19 in its table.
      : >"$RESULTS/ragged_rows.jsonl"
      runs=0
      for type in float bf16; do
        for m in 1 64 4096; do
          $BIN/18_split_rows --rows $m --cols $((67108864 / m)) --type $type --op sum --method auto --json \
            >>"$RESULTS/ragged_rows.jsonl" 2>>"$RESULTS/ragged.err"
          runs=$((runs + 1))
        done
      done
      note "ragged: 18's rule on the equal rows, $(grep -c '"ok": true' "$RESULTS/ragged_rows.jsonl") of $runs runs ok"
      ;;
    ragged_n)
      build_targets 19_ragged_segments 18_split_rows
      : >"$RESULTS/ragged_n.jsonl"
      for k in 24 26 28 30; do
        $BIN/19_ragged_segments --n $((1 << k)) --lengths equal --rows 1 --type float --op sum --json \
          >>"$RESULTS/ragged_n.jsonl" 2>>"$RESULTS/ragged_n.err"
        $BIN/18_split_rows --rows 1 --cols $((1 << k)) --type float --op sum --method auto --json \
          >>"$RESULTS/ragged_n.jsonl" 2>>"$RESULTS/ragged_n.err"
      done
      note "ragged_n: $(grep -c '"ok": true' "$RESULTS/ragged_n.jsonl") of 8 runs ok"
      ;;
    ragged_ncu)
      build_targets 19_ragged_segments
      metrics=gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.per_cycle_active
      metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
      metrics+=,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct
      # The bench's distributions (its seed, bench.cu's kSeed: the same lengths), the first launch of the kernel:
      # the sum of float and bf16 (ragged_ncu_<type>_<lengths>.csv), then float's other operators
      # (ragged_ncu_<op>_float_<lengths>.csv).
      for case in float:sum bf16:sum float:max float:argmax float:meanvar; do
        type=${case%%:*} op=${case#*:}
        prefix=ragged_ncu_
        [ "$op" != sum ] && prefix+="${op}_"
        for lengths in uniform pareto one_half four_eighths equal:1 equal:64 equal:4096; do
          args=(--lengths "${lengths%%:*}")
          [ "$lengths" != "${lengths#*:}" ] && args+=(--rows "${lengths#*:}")
          ncu --kernel-name regex:ragged_tiles --launch-count 1 --metrics "$metrics" --csv --page raw --clock-control none \
            $BIN/19_ragged_segments "${args[@]}" --type $type --op $op --seed 20260046 --reps 1 --no-flush \
            >"$RESULTS/${prefix}${type}_${lengths/:/_}.csv" 2>>"$RESULTS/ragged_ncu.err"
          note "ncu 19 ${args[*]} --type $type --op $op: exit $?"
        done
      done
      ;;
    *)
      note "unknown step $step"
      ;;
  esac
  note "  ($step took $(( $(date +%s) - start )) s)"
done
