#!/usr/bin/env python3
"""fill_reproducible.py: 17_reproducible's yardstick table and targets, for tools/publish.py.

publish(paths, root) reads the files is_run() recognizes: each the output of
build/release/bin/bench_reproducible (17_reproducible/bench/bench.cu) on one separately started
machine (docs/data/reproducible/runK.jsonl). table(): per n, the median over the runs of each
run's median time, 17 / 09 (the range of the runs' ratios) and how many distinct results 09,
12 and 17 gave over five launch shapes; targets(): the issue's targets for 17 / 09, met or not
on every run. A file that is not the bench's output raises ValueError or KeyError.
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import results  # noqa: E402
from results import fill_file, power_label as power  # noqa: E402

JOBS = [("09_single_pass", "09"), ("12_accuracy", "12"), ("10_cub", "CUB Sum"),
        ("cub_gpu_to_gpu", "CUB gpu_to_gpu"), ("17_reproducible", "17")]
FLOOR = "read-only floor"
# The targets: 17's time at most this many times 09's.
TARGETS = {16: 1.5, 20: 1.5, 24: 1.10, 28: 1.03, 30: 1.03}


def load(path):
    """(device line, times by (n, job), distinct counts by (n, job)); ValueError when the file is not a run."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.strip()]
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: {error}") from error
    if not lines or "device" not in lines[0] or not any("median_us" in line for line in lines[1:]):
        raise ValueError(f"{path}: not the output of bench_reproducible (a device line, then one line per job)")
    head, rows = lines[0], lines[1:]
    times = {(r["n"], r["job"]): r for r in rows if "median_us" in r}
    distinct = {(r["n"], r["job"]): r for r in rows if "distinct_results" in r}
    return head, times, distinct


def fmt_us(us):
    return f"{us:.1f}" if us < 1000 else f"{us:.0f}"


def fmt_range(values, digits=2):
    lo, hi = min(values), max(values)
    return f"{lo:.{digits}f}×" if f"{lo:.{digits}f}" == f"{hi:.{digits}f}" else f"{lo:.{digits}f}–{hi:.{digits}f}×"


def measured_on(heads):
    devices = sorted({h["device"] for h in heads})
    cuda = sorted({f"{h['cuda_runtime'] // 1000}.{h['cuda_runtime'] % 1000 // 10}" for h in heads})
    dates = sorted({h["date"] for h in heads})
    count = len(heads)
    return (f"{', '.join(devices)}, CUDA {', '.join(cuda)}, {', '.join(dates)}; {count} separately started "
            f"machine{'s' if count != 1 else ''}, {heads[0]['reps']} interleaved repetitions each, L2 flushed")


def table(runs):
    heads = [h for h, _, _ in runs]
    sizes = sorted({n for _, times, _ in runs for (n, _) in times})
    jobs = [(job, name) for job, name in JOBS if any((sizes[0], job) in t for _, t, _ in runs)]
    header = ["n"] + [f"{name} µs" for _, name in jobs] + ["floor µs", "17 / 09", "17 % of floor",
                                                            "distinct bits 09 / 12 / 17"]
    lines, wrong = [], []
    for n in sizes:
        cells = [power(n)]
        for job, name in jobs:
            rows = [t[(n, job)] for _, t, _ in runs if (n, job) in t]
            cells.append(fmt_us(statistics.median(r["median_us"] for r in rows)))
            if any(r["ok"] is False for r in rows):
                cells[-1] += " ✗"
                wrong.append(f"{name} at {power(n)} ({', '.join(r['result'] for r in rows if r['ok'] is False)})")
        floor = statistics.median(t[(n, FLOOR)]["median_us"] for _, t, _ in runs)
        ratios = [t[(n, "17_reproducible")]["median_us"] / t[(n, "09_single_pass")]["median_us"] for _, t, _ in runs]
        of_floor = [100 * t[(n, FLOOR)]["median_us"] / t[(n, "17_reproducible")]["median_us"] for _, t, _ in runs]
        cells += [fmt_us(floor), fmt_range(ratios), f"{statistics.median(of_floor):.0f} %"]
        counts = []
        for job in ("09_single_pass", "12_accuracy", "17_reproducible"):
            plain = max(d[(n, job)]["distinct_results"] for _, _, d in runs)
            hard = max(d[(n, job)]["distinct_results_cancelling"] for _, _, d in runs)
            counts.append(f"{plain}/{hard}")
        lines.append(cells + [" · ".join(counts)])
    notes = [f"Float, random input; {measured_on(heads)}. Times: the median over the machines of each one's "
             "median; 17 / 09: the range of the machines' ratios. Distinct bits: how many different results "
             "each gave over five launch shapes (its default, 256 × 1000, 128 × 77, 1024 × 132, 64 × 4001), "
             "on the random input / on pairs that cancel to a tiny fraction of their sum of magnitudes; the "
             "most any machine saw. [How the numbers are measured](../docs/README.md#how-the-numbers-are-measured)."]
    if wrong:
        notes.append("✗: outside the harness's check (a loose bound for CUB's gpu_to_gpu, which states none): "
                     + "; ".join(wrong) + ".")
    return results.table(header, "compact", lines) + "\n\n" + "\n\n".join(notes) + "\n"


def targets(runs):
    rows = []
    for k, limit in sorted(TARGETS.items()):
        n = 1 << k
        ratios = [t[(n, "17_reproducible")]["median_us"] / t[(n, "09_single_pass")]["median_us"]
                  for _, t, _ in runs if (n, "17_reproducible") in t]
        if not ratios:
            continue
        met = "yes" if max(ratios) <= limit else "no"
        rows.append([power(n), f"{limit:.2f}×", ", ".join(f"{r:.3f}" for r in ratios), met])
    return results.table(["n", "target 17 / 09", "17 / 09 on each machine", "met"], "compact", rows) + "\n\n" + measured_on([h for h, _, _ in runs]) + ".\n"


def is_run(path):
    """Whether path is bench_reproducible's output: its first line the run's head."""
    try:
        with open(path, encoding="utf-8") as f:
            head = json.loads(f.readline())
    except (OSError, ValueError):
        return False
    return isinstance(head, dict) and "cuda_runtime" in head and "peak_gbps" in head


def publish(paths, root=ROOT):
    runs = [load(p) for p in paths]
    count = fill_file(os.path.join(root, "17_reproducible", "README.md"), "results:17_reproducible", table(runs))
    count += fill_file(os.path.join(root, "docs", "tuning.md"), "results:17_targets", targets(runs))
    return count
