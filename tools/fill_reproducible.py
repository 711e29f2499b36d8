#!/usr/bin/env python3
"""fill_reproducible.py: 17_reproducible's tables and docs/tuning.md's 17 block sizes, fixed cost and profile, for
tools/publish.py, one folder per separately started machine:
  publish          `tools/gpu_suite.sh reproducible` runs (docs/data/reproducible/runK): reproducible.jsonl,
                   bench_reproducible's output (17_reproducible/bench/bench.cu; a file of it alone is a run too), and
                   per_call_*.csv, Nsight Compute on 09 and 17 at 2^16 and 2^20 (the first run that has them)
  publish_on_gpus  `tools/gpu_suite.sh reproducible_gpus` runs (docs/data/reproducible_gpus/runK):
                   reproducible_gpus.jsonl, bench_reproducible_gpus's output (bench/bench_on_gpus.cu), and gpu_x2.txt
"""
import glob
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_table  # noqa: E402
import results  # noqa: E402
from results import differs, median_over_machines as median, power_label as power, reps_of  # noqa: E402

SEVENTEEN, NINE, CUB, FLOOR = "17_reproducible", "09_single_pass", "cub_gpu_to_gpu", "read-only floor"
RUN_FILE = "reproducible.jsonl"  # bench_reproducible's output in a run folder (docs/data/reproducible/runK)
GPUS_FILE = "reproducible_gpus.jsonl"  # bench_reproducible_gpus's, beside gpu_x2.txt (docs/data/reproducible_gpus/runK)


def run_file(path):
    """A run's bench_reproducible output: path itself, or a run folder's reproducible.jsonl."""
    return os.path.join(path, RUN_FILE) if os.path.isdir(path) else path


def split_head(path):
    """A bench's JSON lines: (its run head, the records after it); DataError without a head first."""
    head, *lines = results.read_jsonl(path) or [{}]
    if head.get("head") is not True:
        raise results.DataError(f"{path}: its first line is not a run head (common/run_head.h)")
    return head, lines


def is_run(path):
    """Whether path is bench_reproducible's output: a run head, then records of a job timed at a launch shape."""
    try:
        _, lines = split_head(path)
    except results.DataError:
        return False
    return any("job" in r and "grid" in r and "median_ms" in r for r in lines)


def fmt_us(us):
    return f"{us:.1f}" if us < 1000 else f"{us:.0f}"


def load(paths):
    """Per machine: its head, its timed rows by (data, n, job), its block sweep by (n, block), its fixed-cost rows
    by (shape_of_n, job), its bit counts by (data, n, job)."""
    machines = []
    for path in paths:
        head, lines = split_head(run_file(path))
        lines = [dict(r, us=results.ms_to_us(r["median_ms"])) if "median_ms" in r else r for r in lines]  # times in µs
        timed = {(r["data"], r["n"], r["job"]): r for r in lines
                 if "us" in r and not r.get("block_sweep") and not r.get("fixed_cost")}
        sweep = {(r["n"], r["block"]): r for r in lines if r.get("block_sweep")}
        fixed = {(r["shape_of_n"], r["job"]): r for r in lines if r.get("fixed_cost")}
        bits = {(r["data"], r["n"], r["job"]): r for r in lines if "distinct_results" in r}
        machines.append({"head": head, "timed": timed, "sweep": sweep, "fixed": fixed, "bits": bits})
    return machines


def facts_of(machines):
    return [{"gpu": m["head"]["device"], "date": m["head"]["date"], "cuda": m["head"]["cuda"]} for m in machines]


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
                return [m["timed"][(data, n, job)]["us"] for m in machines]
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
        nine = [m["timed"][(data, n, NINE)]["us"] for m in machines]
        cells = [power(n), fmt_us(median(nine))]
        for b in blocks:
            t = [s[(n, b)]["us"] for s in sweeps]
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
            return [m[table][key]["us"] for m in machines]
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


def on_gpus_block(paths, root):
    """17's README: bench_reproducible_gpus's runs (reproducible_gpus.jsonl and gpu_x2.txt, a folder per machine):
    11 and 17 on 1 and 2 GPUs, the medians of the machines' medians, 17's speed-up and 17 / 11 on 2 GPUs
    (their ranges), and whether 17's bits were those of one GPU on every GPU of every machine."""
    page = os.path.join(root, "17_reproducible", "README.md")
    runs, heads, facts = [], [], []  # per machine: {(job, data, n, gpus): record}
    for folder in paths:
        head, lines = split_head(os.path.join(folder, GPUS_FILE))
        lines = [r for r in lines if "job" in r]  # not the line {"gpus_visible": N}
        heads.append(head)
        runs.append({(r["job"], r["data"], r["n"], r["gpus"]): r for r in lines})
        with open(os.path.join(folder, "gpu_x2.txt"), encoding="utf-8", errors="replace") as f:
            found = results.parse_gpu_txt(f.read())
        found["gpu"] = f"{max(r['gpus'] for r in lines)} × {found.get('gpu') or head['device']}"
        facts.append(found)
    rows = []
    for data, n in dict.fromkeys((d, n) for t in runs for (_, d, n, _) in t):
        def ms(job, gpus):
            return [t[(job, data, n, gpus)]["median_ms"] for t in runs if (job, data, n, gpus) in t]
        if not ms(SEVENTEEN, 2):
            continue
        same = all(t[k].get("same_as_one_gpu") and t[k].get("same_on_every_gpu") for t in runs for k in t
                   if k[0] == SEVENTEEN and k[1:3] == (data, n))
        speeds = [a / b for a, b in zip(ms(SEVENTEEN, 1), ms(SEVENTEEN, 2))]
        ratio = [a / b for a, b in zip(ms(SEVENTEEN, 2), ms("11_multi_gpu", 2))]
        rows.append([data, power(n), f"{median(ms('11_multi_gpu', 1)):.3f}", f"{median(ms('11_multi_gpu', 2)):.3f}",
                     f"{median(ms(SEVENTEEN, 1)):.3f}", f"{median(ms(SEVENTEEN, 2)):.3f}",
                     results.value_range(speeds, "{:.2f}") + "×", results.value_range(ratio, "{:.2f}") + "×",
                     "yes" if same else "**no**"])
    what = ("`bench_reproducible_gpus` ([bench/bench_on_gpus.cu](bench/bench_on_gpus.cu)), float sums, the slowest "
            "GPU's time" + differs(reps_of(heads), one_run=len(runs) < 2))
    out = [results.caption(facts, what, page, root),
           results.table(["data", "n", "11, 1 GPU ms", "11, 2 GPUs ms", "17, 1 GPU ms", "17, 2 GPUs ms",
                          "17 speed-up", "17 / 11 on 2 GPUs", "17's bits as on 1 GPU"], "compact", rows)]
    if len(runs) > 1:
        out.append("ms: the median of the machines' medians; speed-up and 17 / 11: the range of the machines' own.")
    return page, "\n\n".join(out)


# The Nsight Compute sections tools/gpu_suite.sh's `reproducible` step collects (`python3 fill_reproducible.py`
# prints them), and the profile's columns: their raw metric names and labels.
PROFILE_SECTIONS = ["SpeedOfLight", "Occupancy", "LaunchStats", "SchedulerStats", "InstructionStats", "WarpStateStats"]
PROFILE_COLUMNS = [
    ("gpu__time_duration.sum", "time µs", lambda v: f"{v / 1000:.1f}"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy %", lambda v: f"{v:.0f}"),
    ("smsp__inst_executed.sum", "warp instructions", lambda v: f"{v:,.0f}"),
    ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue slots busy %", lambda v: f"{v:.1f}"),
]
# Where the warps wait: the stall reasons of the WarpStateStats section, cycles per issued instruction ("selected"
# is the issue itself, not a wait).
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(?!selected_)(\w+)_per_issue_active\.ratio$")


def profile_block(paths, root):
    """docs/tuning.md: Nsight Compute on 09 and 17 where most of 17's time is paid per call (per_call_*.csv of
    the first run folder that has them, one run): each kernel's time, occupancy, instructions and issue, and
    the stall reasons that make up most of the cycles between its instructions."""
    page = os.path.join(root, "docs", "tuning.md")
    folder = next((p for p in paths if os.path.isdir(p) and glob.glob(os.path.join(p, "per_call_*.csv"))), None)
    if folder is None:
        return page, None
    profiles = []  # (log2 n, chapter, the first launch of its kernel)
    for path in glob.glob(os.path.join(folder, "per_call_*.csv")):
        chapter, log2 = re.match(r"per_call_(\w+?)_(\d+)\.csv$", os.path.basename(path)).groups()
        launches = ncu_table.read_launches(path)
        if launches:
            profiles.append((int(log2), chapter, launches[0]))
    if not profiles:
        return page, None
    profiles.sort()
    stalls = {}  # reason: the largest share of any kernel's cycles between instructions
    for _, _, rec in profiles:
        values = {m.group(1): ncu_table.number(v) or 0 for k, v in rec.items() for m in [STALL.match(k)] if m}
        total = sum(values.values())
        for reason, v in values.items():
            stalls[reason] = max(stalls.get(reason, 0), v / total if total else 0)
    shown = sorted((r for r, share in stalls.items() if share >= 0.1), key=lambda r: -stalls[r])
    rows = []
    for log2, chapter, rec in profiles:
        grid, block = (rec.get(k, "").strip("()").split(",")[0].strip() for k in ("Grid Size", "Block Size"))
        cells = [power(1 << log2), chapter, f"{block} × {grid}"]
        stall = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
        for key, fmt in [(key, fmt) for key, _, fmt in PROFILE_COLUMNS] + [(stall.format(r), "{:.1f}".format)
                                                                           for r in shown]:
            value = ncu_table.number(rec.get(key, ""))
            cells.append("—" if value is None else fmt(value))  # not measured
        rows.append(cells)
    facts = facts_of(load([folder]))[0]  # the machine, as the bench's head says (17's other captions too)
    what = (f"`ncu {' '.join('--section ' + s for s in PROFILE_SECTIONS)}` on `09_single_pass --type float` and "
            "`17_reproducible` at `--n N --reps 1 --no-flush` (the first launch), one run")
    header = ["n", "chapter", "block × grid"] + [label for _, label, _ in PROFILE_COLUMNS] + \
        [f"stall: {r.replace('_', ' ')}" for r in shown]
    out = [results.caption([facts], what, page, root), results.table(header, "compact", rows),
           "Stall columns: the cycles a warp waited per instruction it issued, for each reason that made up a "
           "tenth or more of any kernel's wait (Nsight Compute's WarpStateStats section)."]
    return page, "\n\n".join(out)


def publish(paths, root):
    """17's README tables and docs/tuning.md's block sizes, fixed cost and profile from bench_reproducible's files
    (is_run) or run folders (run_file), one per machine. Returns what it wrote."""
    machines = load(paths)
    readme, text = readme_block(machines, root)
    tuning, sizes = tuning_block(machines, root)
    _, fixed = fixed_block(machines, root)
    _, profile = profile_block(paths, root)
    return results.write_blocks([(readme, "results:17_reproducible", text), (tuning, "results:17_blocks", sizes),
                                 (tuning, "results:17_fixed", fixed), (tuning, "results:17_profile", profile)],
                                root, "fill_reproducible")


def publish_on_gpus(paths, root):
    """17's README table on several GPUs from reproducible_gpus run folders, one per machine. Returns what it
    wrote."""
    page, text = on_gpus_block(paths, root)
    return results.write_blocks([(page, "results:17_on_gpus", text)], root, "fill_reproducible")


if __name__ == "__main__":  # the sections to collect (tools/gpu_suite.sh reproducible)
    print(" ".join("--section " + section for section in PROFILE_SECTIONS))
