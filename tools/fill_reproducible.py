#!/usr/bin/env python3
"""fill_reproducible.py: 17_reproducible's table (publish), for tools/publish.py, from bench_reproducible's output
(17_reproducible/bench/bench.cu), one file per separately started machine (docs/data/reproducible/runK.jsonl).
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402
from results import differs, power_label as power, reps_of  # noqa: E402

JOBS = [("09_single_pass", "09"), ("12_accuracy", "12"), ("10_cub", "CUB Sum"),
        ("cub_gpu_to_gpu", "CUB gpu_to_gpu"), ("17_reproducible", "17")]


def is_run(path):
    """Whether path is bench_reproducible's output: its first line the run's head."""
    try:
        with open(path, encoding="utf-8") as f:
            head = json.loads(f.readline())
    except (OSError, ValueError):
        return False
    return isinstance(head, dict) and "cuda_runtime" in head and "peak_gbps" in head


def fmt_us(us):
    return f"{us:.1f}" if us < 1000 else f"{us:.0f}"


def publish(paths, root):
    """17's README block from bench_reproducible's files (is_run), one per machine: per n, each job's median
    time over the machines, 17 / 09 (the range of the machines' ratios), 17's share of the floor and how many
    distinct results 09, 12 and 17 gave. Returns what it wrote."""
    heads, runs, distinct = [], [], []  # per machine: its head, its times and its distinct counts by (n, job)
    for path in paths:
        head, *lines = results.read_jsonl(path)
        heads.append(head)
        runs.append({(r["n"], r["job"]): r for r in lines if "median_us" in r})
        distinct.append({(r["n"], r["job"]): r for r in lines if "distinct_results" in r})
    sizes = sorted({n for times in runs for (n, _) in times})
    jobs = [(job, name) for job, name in JOBS if any((sizes[0], job) in t for t in runs)]
    lines, wrong = [], []
    for n in sizes:
        cells = [power(n)]
        for job, name in jobs:
            rows = [t[(n, job)] for t in runs if (n, job) in t]
            bad = [r["result"] for r in rows if r["ok"] is False]
            cells.append(fmt_us(statistics.median(r["median_us"] for r in rows)) + (" ✗" if bad else ""))
            if bad:
                wrong.append(f"{name} at {power(n)} ({', '.join(bad)})")
        floor = [t[(n, "read-only floor")]["median_us"] for t in runs]
        seventeen = [t[(n, "17_reproducible")]["median_us"] for t in runs]
        ratios = [s / t[(n, "09_single_pass")]["median_us"] for s, t in zip(seventeen, runs)]
        cells += [fmt_us(statistics.median(floor)), results.value_range(ratios, "{:.2f}") + "×",
                  f"{statistics.median(100 * f / s for f, s in zip(floor, seventeen)):.0f} %"]
        counts = [f"{max(d[(n, job)]['distinct_results'] for d in distinct)}/"
                  f"{max(d[(n, job)]['distinct_results_cancelling'] for d in distinct)}"
                  for job in ("09_single_pass", "12_accuracy", "17_reproducible")]
        lines.append(cells + [" · ".join(counts)])
    facts = [{"gpu": h["device"], "cuda": f"{h['cuda_runtime'] // 1000}.{h['cuda_runtime'] % 1000 // 10}",
              "date": h["date"]} for h in heads]
    page = os.path.join(root, "17_reproducible", "README.md")
    what = "`bench_reproducible` ([bench/bench.cu](bench/bench.cu)), float sums of a random input"
    out = [results.caption(facts, what + differs(reps_of(heads), one_run=len(runs) < 2), page, root),
           results.table(["n"] + [f"{name} µs" for _, name in jobs]
                         + ["floor µs", "17 / 09", "17 % of floor", "distinct bits 09 / 12 / 17"], "compact", lines),
           "17 / 09: the range of the machines' ratios. Distinct bits: how many different results each gave over "
           "five launch shapes (its default, 256 × 1000, 128 × 77, 1024 × 132, 64 × 4001), on the random input / "
           "on pairs that cancel to a tiny fraction of their sum of magnitudes; the most any machine saw."]
    if wrong:
        out.append("✗: outside the harness's check (a loose bound for CUB's gpu_to_gpu, which states none): "
                   + "; ".join(wrong) + ".")
    return results.write_blocks([(page, "results:17_reproducible", "\n\n".join(out))], root, "fill_reproducible")
