#!/usr/bin/env python3
"""publish.py: one command that puts the runs' measurements into every README and doc.

    python3 tools/publish.py [--allow-suspect] [--root DIR] INPUT...   (docs/data: again from what it holds)
    python3 tools/publish.py check RUN... [--list]     suspect points, exit 1 if any; --list: "TYPE N REPS"
    python3 tools/publish.py remeasure RUN TOUR_JSON... --attempt K    the tour's --json rows for the sweep's

Each INPUT is recognized by what it holds (kinds_of: sweep, suite, steps, undo, sass, rows, split_rows, accuracy,
reproducible, reproducible_gpus, multigpu, ragged, ragged_n, build; several may share a folder, and a folder of them such as
docs/data stands for them). docs/data holds every published run, one folder per kind and run: docs/data/KIND/runK,
with the run files its blocks read (RUN_FILES). Runs of a kind given from outside docs/data replace that kind's runs
there: docs/data/KIND becomes the runs given, in their order, as run1, run2, ... (to add a machine's run to those
published, give them all: docs/data/KIND/run1 ... and the new one). So `publish.py docs/data` always writes the same
pages again. BLOCKS says which block of which page each kind fills; each block written is said on one line ("wrote
PAGE (MARKER)"), and a kind not among the inputs leaves its blocks as they were, said in one line. A suspect sweep
point (results.check) among runs from outside docs/data makes it refuse and list them unless --allow-suspect, which
publishes them marked †; runs already in docs/data keep their marks. Exit codes: 0 written; 1 suspect points (nothing
written or copied); 2 bad usage or unreadable data.
"""
import argparse
import glob
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import chapters  # noqa: E402
import fill_accuracy  # noqa: E402
import fill_docs  # noqa: E402
import fill_ragged  # noqa: E402
import fill_reproducible  # noqa: E402
import fill_rows  # noqa: E402
import results  # noqa: E402

SWEEP_CHAPTERS = chapters.folders("cpu", "array")  # the tour's rows: chapters.txt
NCU_CHAPTERS = chapters.folders("ncu")
STEPS_CHAPTERS = chapters.folders("steps")  # timed one change at a time by `tour --steps NN`
UNDO_CHAPTERS = chapters.folders("undo")  # a change timed alone by a build without it (gpu_suite.sh undo)
TUNING = "docs/tuning.md"
DATA = os.path.join("docs", "data")  # under the repository written (--root)

# Every generated block: (page, marker, the function that writes it, the run files it reads).
BLOCKS = [
    ("README.md", "results:main", "results.main_block", "sweep"),
    *[("docs/results.md", f"results:{k}", "results.page_block", "sweep") for k in results.PAGE_BLOCKS],
    *[(f"{c}/README.md", f"results:{c}", "results.chapter_block", "sweep") for c in SWEEP_CHAPTERS],
    *[(f"{c}/README.md", f"results:{c[:2]}_steps", "fill_docs.steps_blocks", "steps: steps.jsonl")
      for c in STEPS_CHAPTERS],
    *[(fill_docs.UNDO_PAGES.get(c, f"{c}/README.md"), f"results:{c[:2]}_undo", "fill_docs.undo_blocks",
       "undo: undo.jsonl") for c in UNDO_CHAPTERS],
    ("00_cpu_baseline/README.md", "output:00_cpu_methods", "fill_docs.cpu_block",
     "suite: chapters.jsonl, cpu_300M_float.txt"),
    ("04_shared_tree/README.md", "ncu:04_bank_conflicts", "fill_docs.ncu_blocks",
     "suite: ncu_04_shared_tree{,_strided}.csv"),
    *[(f"{c}/README.md", f"ncu:{c}", "fill_docs.ncu_blocks", "suite: ncu_*.csv") for c in NCU_CHAPTERS],
    ("docs/profiling.md", "ncu:all", "fill_docs.ncu_blocks", "suite: ncu_*.csv"),
    ("08_vectorized/README.md", "sass:08_vectorized", "fill_docs.sass", "sass"),
    *[("docs/pitfalls.md", f"output:{k}", "fill_docs.pitfalls", "suite: pitfalls.txt") for k in range(1, 7)],
    ("06_warp_unroll/README.md", "sanitize:06_warp_unroll", "fill_docs.pitfalls", "suite: pitfalls.txt"),
    (TUNING, "results:tuning_single_pass", "fill_docs.single_pass", "suite: tune_single_pass.jsonl"),
    (TUNING, "results:tuning_blocks", "fill_docs.block_sizes", "suite: blocks.jsonl"),
    ("09_single_pass/README.md", "results:09_small_n", "fill_docs.small_n", "suite: tune_small_n.jsonl, gpu.txt"),
    (TUNING, "results:09_shape", "fill_docs.small_n", "suite: tune_small_n.jsonl, gpu.txt"),
    ("13_rows/README.md", "results:13_rows", "fill_rows.crossover_block", "rows"),
    ("14_row_stats/README.md", "results:14_row_stats", "fill_rows.ops_block", "rows"),
    ("15_lane_groups/README.md", "results:15_lane_groups", "fill_rows.crossover_block", "rows"),
    ("16_short_rows/README.md", "results:16_short_rows", "fill_rows.crossover_block", "rows"),
    ("16_short_rows/README.md", "results:16_short_rows_example", "fill_rows.fill", "rows: rows/example.txt"),
    ("18_split_rows/README.md", "results:18_split_rows", "fill_rows.split_block", "split_rows"),
    (TUNING, "results:rows_ops", "fill_rows.ops_block", "rows"),
    (TUNING, "results:rows_split_ops", "fill_rows.split_ops_block", "split_rows"),
    ("12_accuracy/README.md", "accuracy:ncu", "fill_accuracy.ncu_block", "accuracy"),
    (TUNING, "accuracy:errors", "fill_accuracy.errors_block", "accuracy"),
    (TUNING, "accuracy:time", "fill_accuracy.time_block", "accuracy"),
    (TUNING, "accuracy:repro", "fill_accuracy.repro_block", "accuracy"),
    ("17_reproducible/README.md", "results:17_reproducible", "fill_reproducible.publish", "reproducible"),
    (TUNING, "results:17_blocks", "fill_reproducible.publish", "reproducible"),
    (TUNING, "results:17_fixed", "fill_reproducible.publish", "reproducible"),
    ("11_multi_gpu/README.md", "results:11_multi_gpu", "fill_docs.multigpu_block", "multigpu"),
    ("11_multi_gpu/README.md", "output:11_silent_peer", "fill_docs.multigpu_block",
     "multigpu: multigpu_mpi_silent_peer.txt"),
    ("17_reproducible/README.md", "results:17_on_gpus", "fill_reproducible.publish_on_gpus", "reproducible_gpus"),
    (TUNING, "results:17_profile", "fill_reproducible.publish", "reproducible: per_call_*.csv"),
    (f"{fill_ragged.CHAPTER}/README.md", f"results:{fill_ragged.CHAPTER}", "fill_ragged.publish", "ragged"),
    (f"{fill_ragged.CHAPTER}/README.md", fill_ragged.STEPS_MARKER, "fill_ragged.publish", "ragged"),
    (TUNING, "results:ragged_ops", "fill_ragged.publish", "ragged"),
    (TUNING, "results:ragged_meanvar", "fill_ragged.publish", "ragged"),
    (TUNING, "results:ragged_profile", "fill_ragged.publish", "ragged: ragged_ncu_*.csv"),
    (TUNING, "results:ragged_n", "fill_ragged.n_block", "ragged_n"),
    ("README.md", "results:build_time", "fill_docs.build_time_block", "build"),
]
# Besides the blocks: docs/images/results_{int,float}.svg
# from the sweep; rows_crossover_*.svg from rows, rows_split_*.svg from split_rows; accuracy_error_*.svg from accuracy;
# ragged_*.svg from ragged.

SUITE_FILES = [name for _, names in fill_docs.SUITE for name in names.split()]  # what fill_suite's writers read

# The files of a run that are copied to docs/data/KIND/runK (glob patterns, where the tools write them: rows/ and
# accuracy/ stay folders of the run). Besides: a sweep's sweep_*.json, from its data/ too, and its facts as
# run.json (copy_run); bench_reproducible's output as reproducible.jsonl.
RUN_FILES = {
    "suite": ["gpu.txt"] + SUITE_FILES,
    "steps": ["gpu.txt", "steps.jsonl"],
    "undo": ["gpu.txt", "undo.jsonl"],
    "sass": ["gpu.txt", "sass_08.txt"],
    "rows": ["rows/gpu.txt", "rows/example.txt"] + [f"rows/{c}/rows_sweep.{e}" for c in fill_rows.ROW_CHAPTERS
                                                     for e in ("json", "csv")],
    "split_rows": ["rows/gpu.txt", f"rows/{fill_rows.SPLIT}/rows_sweep.json", f"rows/{fill_rows.SPLIT}/rows_sweep.csv"],
    "accuracy": ["gpu.txt", "accuracy_study.txt", "accuracy/*.jsonl", "accuracy/device.json", "accuracy/study.log",
                 "accuracy/ncu_*.csv"],
    "multigpu": ["gpu.txt", "gpu_x2.txt", "topo.txt", "multigpu*.jsonl", "multigpu*.txt", "ctest_multigpu.log"],
    "reproducible": ["per_call_*.csv"],
    "reproducible_gpus": ["reproducible_gpus.jsonl", "gpu_x2.txt"],
    "ragged": ["gpu.txt", fill_ragged.RUN_FILE, fill_ragged.RULE_FILE, "ragged_ncu_*.csv"],
    "ragged_n": ["gpu.txt", fill_ragged.N_FILE],
    "build": ["build_time.json"],
}


def kinds_of(path):
    """The kinds of run files a folder or file holds (see the docstring)."""
    if os.path.isfile(path):
        return ["reproducible"] if fill_reproducible.is_run(path) else []

    def has(pattern):
        return bool(glob.glob(os.path.join(path, pattern)))
    found = {"sweep": glob.glob(os.path.join(results.sweep_dir(path), "sweep_*.json")),
             "suite": any(has(name) for name in SUITE_FILES), "steps": has("steps.jsonl"), "undo": has("undo.jsonl"),
             "sass": has("sass_08.txt"),
             "rows": any(has(f"rows/{c}/rows_sweep.json") for c in fill_rows.ROW_CHAPTERS),
             "split_rows": has(f"rows/{fill_rows.SPLIT}/rows_sweep.json"),
             "accuracy": has("accuracy/errors.jsonl"),
             "reproducible": fill_reproducible.is_run(fill_reproducible.run_file(path)),
             "reproducible_gpus": has(fill_reproducible.GPUS_FILE) and has("gpu_x2.txt"),
             "multigpu": has("multigpu.jsonl"), "ragged": has(fill_ragged.RUN_FILE),
             "ragged_n": has(fill_ragged.N_FILE), "build": has("build_time.json")}
    return [kind for kind, yes in found.items() if yes]


def run_order(path):
    """The key that sorts run folders by their numbers: run2 before run10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path)]


def classify(paths):
    """{kind: [paths]}, and the paths that are no input: those given (an error) and those
    found inside a folder such as docs/data (skipped, said on one line each)."""
    by_kind, unknown = {}, []
    given = {os.path.abspath(p) for p in paths}
    todo = list(paths)
    while todo:
        path = os.path.abspath(todo.pop(0))
        kinds = kinds_of(path)
        if not kinds and os.path.isdir(path):
            inside = sorted((os.path.join(path, name) for name in os.listdir(path) if not name.startswith(".")),
                            key=run_order)
            if any(kinds_of(p) or os.path.isdir(p) for p in inside):
                todo[:0] = inside  # docs/data: its run folders and files
                continue
        if not kinds:
            unknown.append((path, path in given))
        for kind in kinds:
            by_kind.setdefault(kind, []).append(path)
    return by_kind, unknown


def declared(root, kind):
    """The (absolute page, marker) pairs of BLOCKS that the inputs of this kind fill."""
    return {(os.path.join(root, page), marker) for page, marker, _, needs in BLOCKS
            if needs.split(":")[0].split(" ")[0] == kind}


def in_data(path, root):
    """Whether path lies in docs/data (runs published before)."""
    return os.path.abspath(path).startswith(os.path.join(root, DATA) + os.sep)


def data_runs(root, kind):
    """The runs of a kind in docs/data: docs/data/KIND/runK, in the order of K."""
    found = glob.glob(os.path.join(root, DATA, kind, "run*"))
    return sorted((p for p in found if re.fullmatch(r"run\d+", os.path.basename(p))), key=run_order)


def copy_file(source, target):
    """Copies a file; in a gpu*.txt (nvidia-smi's view of the machine) each GPU's UUID becomes a hash of it: the
    pages only tell different GPUs apart (results.parse_gpu_txt), and no UUID is published."""
    if not re.fullmatch(r"gpu.*\.txt", os.path.basename(source)):
        shutil.copy(source, target)
        return
    with open(source, encoding="utf-8", errors="replace") as f:
        text = f.read()
    hashed = re.sub(r"\bGPU-[\w-]+", lambda m: "sha256:" + results.gpu_id(m.group()), text)
    with open(target, "w", encoding="utf-8") as f:
        f.write(hashed)


def copy_run(kind, path, target):
    """Copies a run of this kind (a folder; reproducible: also a file) to target, docs/data/KIND/runK: RUN_FILES;
    a sweep's sweep_*.json and its facts as run.json (GPU, driver, CUDA, date, hashed GPU ids); bench_reproducible's
    output as reproducible.jsonl."""
    os.makedirs(target)
    if kind == "reproducible":
        shutil.copy(fill_reproducible.run_file(path), os.path.join(target, fill_reproducible.RUN_FILE))
    if kind == "sweep":
        for source in glob.glob(os.path.join(results.sweep_dir(path), "sweep_*.json")):
            shutil.copy(source, target)
        facts = results.run_facts(path, results.load_all(path))
        with open(os.path.join(target, "run.json"), "w", encoding="utf-8") as f:
            json.dump({key: facts.get(key) for key in ("gpu", "driver", "cuda", "cpu", "date", "memory", "gpus",
                                                       "gpu_ids")},
                      f, indent=1)
            f.write("\n")
    for pattern in RUN_FILES.get(kind, []):
        for source in glob.glob(os.path.join(path, pattern)):
            copy = os.path.join(target, os.path.relpath(source, path))
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            copy_file(source, copy)


def copy_in(by_kind, root):
    """For each kind given a run from outside docs/data: docs/data/KIND becomes the runs given, in their order, as
    run1, run2, ... (copy_run; those there before are removed), and the kind's input those copies."""
    for kind, paths in by_kind.items():
        if all(in_data(path, root) for path in paths):
            continue
        target = os.path.join(root, DATA, kind)
        with tempfile.TemporaryDirectory() as tmp:  # first the copies: a given run may lie in the folder replaced
            for k, path in enumerate(paths, 1):
                copy_run(kind, path, os.path.join(tmp, f"run{k}"))
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(tmp, target)
        by_kind[kind] = data_runs(root, kind)
        print(f"publish: docs/data/{kind} holds the {plural(len(paths), 'run')} given: "
              + ", ".join(os.path.relpath(run, root) for run in by_kind[kind]))


def plural(count, word):
    return f"{count} {word}{'s' if count != 1 else ''}"


def publish(paths, root, allow_suspect=False):
    """Fills every block the inputs feed (see the docstring). Returns the exit code."""
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        print(f"publish: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    by_kind, unknown = classify(paths)
    for path, given in unknown:
        print(f"publish: {os.path.relpath(path)} holds no run files that a block reads"
              + ("" if given else "; skipped"), file=sys.stderr)
    if any(given for _, given in unknown):
        return 2  # a mistyped or wrong input: nothing is written
    sweeps = by_kind.get("sweep", [])
    try:
        suspects = results.check(results.load_runs(sweeps)) if sweeps else []
    except results.DataError as e:  # such as runs of different GPU models: nothing copied or written
        print(f"publish: {e}", file=sys.stderr)
        return 2
    if suspects and not allow_suspect and not all(in_data(d, root) for d in sweeps):
        print(f"publish: {plural(len(suspects), 'suspect point')}; nothing written. Measure them again "
              "(tools/gpu_suite.sh sweep does), or publish them marked with --allow-suspect:", file=sys.stderr)
        for s in suspects:
            print("  " + results.describe_suspect(s), file=sys.stderr)
        return 1
    copy_in(by_kind, root)
    fill_docs.ROOT = root
    pages = sorted((p, m) for p, m, function, needs in BLOCKS if needs == "sweep" and function.startswith("results."))
    jobs = {"sweep": lambda dirs: results.update(dirs, root, pages), "suite": fill_docs.fill_suite,
            "steps": fill_docs.steps_blocks, "undo": fill_docs.undo_blocks, "sass": fill_docs.sass,
            "rows": lambda dirs: fill_rows.fill(dirs, root), "split_rows": lambda dirs: fill_rows.fill_split(dirs, root),
            "accuracy": lambda dirs: fill_accuracy.fill(dirs, root),
            "reproducible": lambda runs: fill_reproducible.publish(runs, root),
            "reproducible_gpus": lambda runs: fill_reproducible.publish_on_gpus(runs, root),
            "multigpu": fill_docs.multigpu_block, "ragged": lambda runs: fill_ragged.publish(runs, root),
            "ragged_n": lambda runs: fill_ragged.n_block(runs, root),
            "build": fill_docs.build_time_block}
    status = 0
    for kind, job in jobs.items():
        if kind not in by_kind:
            left = sorted({m for p, m in declared(root, kind) if os.path.exists(p)})
            if left:
                print(f"publish: no {kind} run among the inputs; left as they were: {', '.join(left)}")
            continue
        results.DECLARED = declared(root, kind)
        try:
            for written in job(by_kind[kind]):  # a plot's path or "PAGE (MARKER)"
                print("wrote", os.path.relpath(written, root))
        except (results.DataError, ValueError, KeyError) as e:
            print(f"publish: {kind}: {e}", file=sys.stderr)
            status = 2
        finally:
            results.DECLARED = None
    return status


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv and argv[0] in ("check", "remeasure") else None
    parser = argparse.ArgumentParser(prog="publish.py" + (f" {command}" if command else ""),
                                     description=__doc__.split("\n\n")[0])
    if command == "remeasure":
        parser.add_argument("run")
        parser.add_argument("tour_json", nargs="*")
        parser.add_argument("--attempt", type=int, default=1)
    else:
        parser.add_argument("inputs", nargs="+", help="run folders and files (see the docstring), or docs/data")
    if command == "check":
        parser.add_argument("--list", action="store_true", help="print only 'TYPE N REPS' for each size to measure "
                                                                "again (tools/gpu_suite.sh)")
    elif not command:
        parser.add_argument("--root", default=os.path.dirname(HERE), help="the repository to write (default: this one)")
        parser.add_argument("--allow-suspect", action="store_true",
                            help="publish suspect points, marked with †, instead of refusing")
    args = parser.parse_args(argv[1:] if command else argv)
    if not command:
        return publish(args.inputs, os.path.abspath(args.root), args.allow_suspect)
    if command == "remeasure":
        replaced, warnings = results.remeasure(args.run, args.tour_json, args.attempt)
        for w in warnings:
            print("warning:", w, file=sys.stderr)
        points = sorted({(t, n) for t, _, n in replaced})
        print(f"re-measured (attempt {args.attempt}): "
              + (", ".join(f"{t} {results.power_label(n)}" for t, n in points) or "nothing"))
        return 0
    try:
        runs = results.load_runs(args.inputs)
        suspects = results.check(runs)
    except results.DataError as e:
        print(f"publish.py check: {e}", file=sys.stderr)
        return 2
    if args.list:
        for dtype, n in sorted({size for s in suspects for size in s["sizes"]}):
            reps = next((run["sweeps"][dtype].get("reps") for run in runs if dtype in run["sweeps"]), None)
            print(f"{dtype} {n} {reps if isinstance(reps, int) else 30}")
        return 1 if suspects else 0
    for s in suspects:
        print(results.describe_suspect(s))
    print(f"{plural(len(suspects), 'suspect point')} in {plural(len(runs), 'run')}"
          + ("" if suspects else ": all clean"))
    return 1 if suspects else 0


if __name__ == "__main__":
    sys.exit(main())
