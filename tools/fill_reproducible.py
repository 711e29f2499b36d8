#!/usr/bin/env python3
"""fill_reproducible.py: 17_reproducible's table and docs/tuning.md's 17 block sizes and fixed cost (publish), for
tools/publish.py,
from bench_reproducible's output (17_reproducible/bench/bench.cu), one file per separately started machine
(docs/data/reproducible/runK/run.jsonl).
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402
from results import differs, median_over_machines as median, power_label as power, reps_of  # noqa: E402

SEVENTEEN, NINE, CUB, FLOOR = "17_reproducible", "09_single_pass", "cub_gpu_to_gpu", "read-only floor"
RUN_FILE = "run.jsonl"  # bench_reproducible's output in a run folder (docs/data/reproducible/runK)


def run_file(path):
    """A run's bench_reproducible output: path itself, or a run folder's run.jsonl."""
    return os.path.join(path, RUN_FILE) if os.path.isdir(path) else path


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


def load(paths):
    """Per machine: its head, its timed rows by (data, n, job), its block sweep by (n, block), its fixed-cost rows
    by (shape_of_n, job), its bit counts by (data, n, job)."""
    machines = []
    for path in paths:
        head, *lines = results.read_jsonl(run_file(path))
        timed = {(r["data"], r["n"], r["job"]): r for r in lines
                 if "median_us" in r and not r.get("block_sweep") and not r.get("fixed_cost")}
        sweep = {(r["n"], r["block"]): r for r in lines if r.get("block_sweep")}
        fixed = {(r["shape_of_n"], r["job"]): r for r in lines if r.get("fixed_cost")}
        bits = {(r["data"], r["n"], r["job"]): r for r in lines if "distinct_results" in r}
        machines.append({"head": head, "timed": timed, "sweep": sweep, "fixed": fixed, "bits": bits})
    return machines


def facts_of(machines):
    return [{"gpu": m["head"]["device"], "date": m["head"]["date"],
             "cuda": f"{m['head']['cuda_runtime'] // 1000}.{m['head']['cuda_runtime'] % 1000 // 10}"} for m in machines]


def exact_value(machines, data, n):
    """The exact sum rounded once (17's bits, ExactSum's on the CPU) as the bench prints a float (%.9g)."""
    bits = machines[0]["bits"][(data, n, SEVENTEEN)]["exact_bits"]
    return f"{struct.unpack('>f', bytes.fromhex(bits[2:]))[0]:.9g}"


def readme_block(machines, root):
    """17's README: per data and n, 09's, 17's and CUB's gpu_to_gpu times (the median of the machines' medians),
    the floor, 17 / 09 and CUB / 17 (the range of the machines' ratios), 17's share of the floor, and how many
    distinct bits 09 and 17 gave over five launch shapes (17's: its bits the exact sum rounded once, ✓)."""
    keys = list(machines[0]["timed"])
    data_kinds = list(dict.fromkeys(d for d, _, _ in keys))
    sizes = sorted({n for _, n, _ in keys})
    has_cub = any(k[2] == CUB for k in keys)
    lines, wrong = [], []
    for data in data_kinds:
        for n in sizes:
            def times(job):
                return [m["timed"][(data, n, job)]["median_us"] for m in machines]
            nine, seventeen, floor = times(NINE), times(SEVENTEEN), times(FLOOR)
            cells = [data if n == sizes[0] else "", power(n), fmt_us(median(nine)),
                     fmt_us(median(seventeen))]
            if has_cub:
                cub = times(CUB)
                bad = [m["timed"][(data, n, CUB)]["result"] for m in machines if m["timed"][(data, n, CUB)]["ok"] is False]
                cells.append(fmt_us(median(cub)) + (" ✗" if bad else ""))
                if bad:
                    said = bad[0] + " on every machine" if len(set(bad)) == 1 and len(bad) == len(machines) else \
                        ", ".join(bad)
                    wrong.append(f"{data} at {power(n)} ({said}; the exact sum {exact_value(machines, data, n)})")
            cells += [fmt_us(median(floor)),
                      results.value_range([s / t for s, t in zip(seventeen, nine)], "{:.2f}") + "×",
                      f"{median(100 * f / s for f, s in zip(floor, seventeen)):.0f} %"]
            if has_cub:
                cells.append(results.value_range([c / s for c, s in zip(cub, seventeen)], "{:.1f}") + "×")
            exact = all(m["bits"][(data, n, SEVENTEEN)]["exact"] for m in machines)
            cells.append(f"{max(m['bits'][(data, n, NINE)]['distinct_results'] for m in machines)} / "
                         f"{max(m['bits'][(data, n, SEVENTEEN)]['distinct_results'] for m in machines)}"
                         + (" ✓" if exact else " ✗"))
            lines.append(cells)
    page = os.path.join(root, "17_reproducible", "README.md")
    what = "`bench_reproducible` ([bench/bench.cu](bench/bench.cu)), float sums" + differs(
        reps_of([m["head"] for m in machines]), one_run=len(machines) < 2)
    header = ["data", "n", "09 µs", "17 µs"] + ["CUB gpu_to_gpu µs"] * has_cub + ["floor µs", "17 / 09",
                                                                                  "17 % of floor"]
    header += ["CUB / 17"] * has_cub + ["distinct bits 09 / 17"]
    out = [results.caption(facts_of(machines), what, page, root), results.table(header, "compact", lines),
           "17 / 09" + (" and CUB / 17" if has_cub else "") + ": the range of the machines' ratios. Distinct bits: "
           "how many different results each gave over five launch shapes (its default, 256 × 1000, 128 × 77, "
           "1024 × 132, 64 × 4001), the most any machine saw; ✓: 17's were the exact sum rounded once on every "
           "machine (ExactSum on the CPU)."]
    if wrong:
        out.append("✗: outside the harness's check (a loose bound for CUB's gpu_to_gpu, which states none): "
                   + "; ".join(wrong) + ".")
    return page, "\n\n".join(out)


def tuning_block(machines, root):
    """docs/tuning.md: 17 at blocks of 256, 512 and 1024 (each with its default grid) on the uniform data,
    beside 09, per n: the median of the machines' medians, and each block's time over 09's (their range)."""
    sweeps = [m["sweep"] for m in machines]
    if not all(sweeps):
        return os.path.join(root, "docs", "tuning.md"), None
    sizes = sorted({n for n, _ in sweeps[0]})
    blocks = sorted({b for _, b in sweeps[0]})
    data = next(d for d, _, _ in machines[0]["timed"])
    lines = []
    for n in sizes:
        nine = [m["timed"][(data, n, NINE)]["median_us"] for m in machines]
        cells = [power(n), fmt_us(median(nine))]
        for b in blocks:
            t = [s[(n, b)]["median_us"] for s in sweeps]
            cells.append(f"{fmt_us(median(t))} ({results.value_range([x / y for x, y in zip(t, nine)], '{:.2f}')}×)")
        default = {m["timed"][(data, n, SEVENTEEN)]["block"] for m in machines}
        cells.append(" / ".join(map(str, sorted(default))))
        lines.append(cells)
    page = os.path.join(root, "docs", "tuning.md")
    what = (f"`bench_reproducible` ([bench/bench.cu](../17_reproducible/bench/bench.cu)), {data}, 17 at each block "
            "with its default grid" + differs(reps_of([m["head"] for m in machines]), one_run=len(machines) < 2))
    out = [results.caption(facts_of(machines), what, page, root),
           results.table(["n", "09 µs"] + [f"17, {b} threads µs (/ 09)" for b in blocks] + ["default_shape's block"],
                         "compact", lines)]
    return page, "\n\n".join(out)


def fixed_block(machines, root):
    """docs/tuning.md: per n up to 2^24, 09's and 17's times at n and at n's shapes over one float a thread of
    17's shape (the medians of the machines' medians), 17 - 09 in both (the median of the machines'
    differences), and the second difference over the first (their range): the share of 17's extra time that
    every call pays whatever n."""
    if not all(m["fixed"] for m in machines):
        return os.path.join(root, "docs", "tuning.md"), None
    data = next(d for d, _, _ in machines[0]["timed"])
    lines = []
    for n in sorted({s for s, _ in machines[0]["fixed"]}):
        def times(table, key):
            return [m[table][key]["median_us"] for m in machines]
        nine, seventeen = times("timed", (data, n, NINE)), times("timed", (data, n, SEVENTEEN))
        few_nine, few_seventeen = times("fixed", (n, NINE)), times("fixed", (n, SEVENTEEN))
        gap = [s - t for s, t in zip(seventeen, nine)]
        fixed = [s - t for s, t in zip(few_seventeen, few_nine)]
        rows = {m["fixed"][(n, SEVENTEEN)]["n"] for m in machines}
        shape = {job: machines[0]["timed"][(data, n, job)] for job in (NINE, SEVENTEEN)}  # the first machine's
        blocks = " / ".join(f"{shape[job]['block']} × {shape[job]['grid']}" for job in (NINE, SEVENTEEN))
        lines.append([power(n), blocks, fmt_us(median(nine)), fmt_us(median(seventeen)),
                      fmt_us(median(gap)), " / ".join(str(r) for r in sorted(rows)),
                      fmt_us(median(few_nine)), fmt_us(median(few_seventeen)),
                      fmt_us(median(fixed)),
                      results.value_range([100 * f / g for f, g in zip(fixed, gap)], "{:.0f}") + " %"])
    page = os.path.join(root, "docs", "tuning.md")
    what = (f"`bench_reproducible` ([bench/bench.cu](../17_reproducible/bench/bench.cu)), {data}, 09 and 17 at "
            "their default shapes for n, then at the same shapes over one float a thread of 17's"
            + differs(reps_of([m["head"] for m in machines]), one_run=len(machines) < 2))
    header = ["n", "09 / 17 shape", "09 µs", "17 µs", "17 − 09 µs", "one float a thread: floats", "09 µs",
              "17 µs", "17 − 09 µs", "of the gap at n"]
    out = [results.caption(facts_of(machines), what, page, root), results.table(header, "compact", lines)]
    return page, "\n\n".join(out)


def publish(paths, root):
    """17's README table and docs/tuning.md's block sizes and fixed cost from bench_reproducible's files (is_run) or
    run folders (run_file), one per machine. Returns what it wrote."""
    machines = load(paths)
    readme, text = readme_block(machines, root)
    tuning, sizes = tuning_block(machines, root)
    _, fixed = fixed_block(machines, root)
    return results.write_blocks([(readme, "results:17_reproducible", text), (tuning, "results:17_blocks", sizes),
                                 (tuning, "results:17_fixed", fixed)], root, "fill_reproducible")
