#!/usr/bin/env python3
"""fill_reproducible.py: 17_reproducible's yardstick table and targets, for tools/publish.py.

Reads build/release/bin/bench_reproducible's output (17_reproducible/bench/bench.cu), one file per
separately started machine (docs/data/reproducible/runK.jsonl); a file that is not raises ValueError or KeyError.
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
TARGETS = {16: 1.5, 20: 1.5, 24: 1.10, 28: 1.03, 30: 1.03}  # the targets: 17's time at most this times 09's


def load(path):
    """(device line, times by (n, job), distinct counts by (n, job)); ValueError when the file is not a run."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.strip()]
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: {error}") from error
    if not lines or "device" not in lines[0] or not any("median_us" in line for line in lines[1:]):
        raise ValueError(f"{path}: not the output of bench_reproducible (a device line, then one line per job)")
    times = {(r["n"], r["job"]): r for r in lines[1:] if "median_us" in r}
    return lines[0], times, {(r["n"], r["job"]): r for r in lines[1:] if "distinct_results" in r}


def fmt_us(us):
    return f"{us:.1f}" if us < 1000 else f"{us:.0f}"


def ratios(runs, n, job="17_reproducible"):
    """Each run's time of job over 09's at n."""
    return [t[(n, job)]["median_us"] / t[(n, "09_single_pass")]["median_us"] for _, t, _ in runs if (n, job) in t]


def measured_on(runs):
    heads = [h for h, _, _ in runs]
    devices = ", ".join(sorted({h["device"] for h in heads}))
    cuda = ", ".join(sorted({f"{h['cuda_runtime'] // 1000}.{h['cuda_runtime'] % 1000 // 10}" for h in heads}))
    return (f"{devices}, CUDA {cuda}, {', '.join(sorted({h['date'] for h in heads}))}; {len(heads)} separately "
            f"started machine{'s' if len(heads) != 1 else ''}, {heads[0]['reps']} interleaved repetitions each, "
            "L2 flushed")


def table(runs):
    """17's README block: per n, each job's median time over the machines, 17 / 09, 17's share of the
    floor and how many distinct results 09, 12 and 17 gave over five launch shapes."""
    sizes = sorted({n for _, times, _ in runs for (n, _) in times})
    jobs = [(job, name) for job, name in JOBS if any((sizes[0], job) in t for _, t, _ in runs)]
    lines, wrong = [], []
    for n in sizes:
        cells = [power(n)]
        for job, name in jobs:
            rows = [t[(n, job)] for _, t, _ in runs if (n, job) in t]
            bad = [r["result"] for r in rows if r["ok"] is False]
            cells.append(fmt_us(statistics.median(r["median_us"] for r in rows)) + (" ✗" if bad else ""))
            if bad:
                wrong.append(f"{name} at {power(n)} ({', '.join(bad)})")
        floor = [t[(n, FLOOR)]["median_us"] for _, t, _ in runs]
        of_floor = [100 * f / t[(n, "17_reproducible")]["median_us"] for f, (_, t, _) in zip(floor, runs)]
        found = ratios(runs, n)
        lo, hi = f"{min(found):.2f}", f"{max(found):.2f}"
        cells += [fmt_us(statistics.median(floor)), f"{lo}×" if lo == hi else f"{lo}–{hi}×",
                  f"{statistics.median(of_floor):.0f} %"]
        counts = [f"{max(d[(n, job)]['distinct_results'] for _, _, d in runs)}/"
                  f"{max(d[(n, job)]['distinct_results_cancelling'] for _, _, d in runs)}"
                  for job in ("09_single_pass", "12_accuracy", "17_reproducible")]
        lines.append(cells + [" · ".join(counts)])
    notes = [f"Float, random input; {measured_on(runs)}. Times: the median over the machines of each one's "
             "median; 17 / 09: the range of the machines' ratios. Distinct bits: how many different results "
             "each gave over five launch shapes (its default, 256 × 1000, 128 × 77, 1024 × 132, 64 × 4001), "
             "on the random input / on pairs that cancel to a tiny fraction of their sum of magnitudes; the "
             "most any machine saw. [How the numbers are measured](../docs/README.md#how-the-numbers-are-measured)."]
    if wrong:
        notes.append("✗: outside the harness's check (a loose bound for CUB's gpu_to_gpu, which states none): "
                     + "; ".join(wrong) + ".")
    header = (["n"] + [f"{name} µs" for _, name in jobs] +
              ["floor µs", "17 / 09", "17 % of floor", "distinct bits 09 / 12 / 17"])
    return results.table(header, "compact", lines) + "\n\n" + "\n\n".join(notes) + "\n"


def targets(runs):
    """docs/tuning.md's block: the issue's targets for 17 / 09, met or not on every machine."""
    rows = []
    for k, limit in sorted(TARGETS.items()):
        found = ratios(runs, 1 << k)
        if found:
            rows.append([power(1 << k), f"{limit:.2f}×", ", ".join(f"{r:.3f}" for r in found),
                         "yes" if max(found) <= limit else "no"])
    return (results.table(["n", "target 17 / 09", "17 / 09 on each machine", "met"], "compact", rows) + "\n\n"
            + measured_on(runs) + ".\n")


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
    return count + fill_file(os.path.join(root, "docs", "tuning.md"), "results:17_targets", targets(runs))
