#!/usr/bin/env python3
"""The tour's sweeps of one or more runs -> docs/results.md, the plots results_{int,float}.svg
and the README blocks results:main and results:NN_name; and what every page writer shares
(fill_file, table). tools/publish.py is the command (and its check, remeasure and noise).

A run folder holds sweep_int.json and sweep_float.json (`tour --sweep --type int --out DIR`),
directly or in its data/ folder (tools/gpu_suite.sh's layout), and the run's facts: gpu.txt
(gpu_suite.sh) or run.json (docs/data/runK). Each run is one separately started machine; a
point's published time is the median over the runs of each run's median, its spread beside it.
check() finds the suspect points (the noise model below); remeasure() puts the tour's --json
rows in place of a sweep's rows at that type and N ("remeasured": K, "sweep_ms": the sweep's).

Python 3 standard library; the plots need matplotlib (tools/plots.py).
"""

import datetime
import hashlib
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

TYPES = ("int", "float")
TYPE_BYTES = {"int": 4, "float": 4, "double": 8}
TABLE_POWERS = (16, 20, 24, 28, 30)
MAIN_POWERS = (24, 28)
CPU = "00_cpu_baseline"
FIRST_GPU = "01_global_naive"
CUB = "10_cub"
FLOOR = "read-only floor"  # the tour's kernel that only reads the input: a yardstick, not a chapter
REPRODUCE = "build/release/bin/tour --sweep --type int --out docs/data/run1"
SUSPECT_MARK = " †"
WITHIN_MARK = "≈"


class DataError(Exception):
    """A sweep file that is missing, unreadable or not in the tour's format."""


# ----------------------------------------------------------------------------- reading

def index_rows(sweep):
    """Adds table (chapter -> n -> row), floor (n -> row), chapters and sizes to a sweep."""
    table = {}
    for row in sweep["rows"]:
        table.setdefault(row["chapter"], {})[row["n"]] = row
    sweep["floor"] = table.pop(FLOOR, {})  # older sweeps have none
    sweep["table"] = table
    sweep["chapters"] = sorted(table)
    sweep["sizes"] = sorted({row["n"] for row in sweep["rows"]})
    return sweep


def load_sweep(path):
    try:
        with open(path, encoding="utf-8") as f:
            sweep = json.load(f)
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise DataError(f"{path} is not valid JSON: {e}")
    if not isinstance(sweep, dict):
        raise DataError(f"{path}: not a JSON object (is this a tour --sweep file?)")
    needed = {"device": str, "cuda": str, "date": str, "peak_gbps": (int, float), "type": str, "rows": list}
    for key, kind in needed.items():
        if not isinstance(sweep.get(key), kind):
            raise DataError(f"{path}: missing or mistyped key '{key}' (is this a tour --sweep file?)")
    for k, row in enumerate(sweep["rows"]):
        for key, kind in {"n": int, "chapter": str, "ms": (int, float), "gbps": (int, float), "ok": bool}.items():
            if not isinstance(row.get(key), kind):
                raise DataError(f"{path}: row {k} has no valid '{key}'")
    if not sweep["rows"]:
        raise DataError(f"{path}: no rows")
    sweep["path"] = path
    return index_rows(sweep)


def sweep_dir(run_dir):
    """Where a run's sweep files lie: RUN_DIR/data (tools/gpu_suite.sh's layout) or RUN_DIR."""
    data = os.path.join(run_dir, "data")
    if any(os.path.exists(os.path.join(data, f"sweep_{t}.json")) for t in TYPES):
        return data
    return run_dir


def load_all(data_dir):
    """The sweeps of one run: {type: sweep}."""
    folder = sweep_dir(data_dir)
    sweeps = {}
    for dtype in TYPES:
        path = os.path.join(folder, f"sweep_{dtype}.json")
        if os.path.exists(path):
            sweep = load_sweep(path)
            if sweep["type"] != dtype:
                raise DataError(f"{path} holds type '{sweep['type']}', expected '{dtype}'")
            sweeps[dtype] = sweep
    if not sweeps:
        raise DataError(f"no sweep_int.json or sweep_float.json in '{data_dir}' (nor in its data/); "
                        f"make them with: {REPRODUCE}")
    return sweeps


def parse_gpu_txt(text):
    """tools/gpu_suite.sh's gpu.txt: nvidia-smi's CSV (a header line naming the columns, then
    one line per GPU), `nvcc --version` and a line "date: YYYY-MM-DD". Returns a dict with
    what it finds: gpu, driver, memory, cuda, date, gpu_ids (one per GPU, hashed), gpus."""
    facts, lines = {}, text.splitlines()
    for i, line in enumerate(lines):
        columns = [c.strip().split(" ")[0] for c in line.split(",")]
        if columns and columns[0] == "name" and "driver_version" in columns:
            gpus = []
            for data in lines[i + 1:]:
                cells = [c.strip() for c in data.split(",")]
                if len(cells) < len(columns) or not cells[0] or cells[0].startswith(("Cuda", "nvcc", "Built", "date")):
                    break
                gpus.append(dict(zip(columns, cells)))
            if gpus:
                facts["gpu"] = gpus[0].get("name")
                facts["driver"] = gpus[0].get("driver_version")
                facts["memory"] = gpus[0].get("memory.total")
                facts["gpus"] = len(gpus)
                ids = [g["uuid"] for g in gpus if g.get("uuid")]
                if ids:
                    facts["gpu_ids"] = [hashlib.sha256(u.encode()).hexdigest()[:12] for u in ids]
            break
    m = re.search(r"release (\d+\.\d+)", text)
    if m:
        facts["cuda"] = m.group(1)
    m = re.search(r"^date: (\d{4}-\d\d-\d\d)", text, re.M)
    if m:
        facts["date"] = m.group(1)
    return facts


def file_date(path):
    """The UTC date a file was last written (tar keeps it): the fallback for a run's date."""
    return datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc).strftime("%Y-%m-%d")


def run_facts(run_dir, sweeps=None):
    """What a run was measured on, read from its files (nothing typed): gpu, driver, cuda,
    date, gpu_ids. Sources, first found wins per key: run.json (docs/data/runK), gpu.txt,
    the sweep files (device, cuda). The date is the sweep's (the day the tour ran) where
    there is a sweep, else gpu.txt's, else the day gpu.txt was written."""
    facts, folder = {}, sweep_dir(run_dir)
    for place in (run_dir, folder):
        path = os.path.join(place, "run.json")
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    facts.update({k: v for k, v in json.load(f).items() if v is not None})
            except (OSError, json.JSONDecodeError) as e:
                raise DataError(f"{path}: {e}")
            break
    for place in (run_dir, os.path.dirname(os.path.abspath(folder))):
        path = os.path.join(place, "gpu.txt")
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                for key, value in parse_gpu_txt(f.read()).items():
                    facts.setdefault(key, value)
            facts.setdefault("date_file", path)
            break
    if sweeps:
        first = sweeps.get("int") or next(iter(sweeps.values()))
        facts["date"] = first["date"]  # the day the sweep ran (the tour writes it), before gpu.txt's
        facts.setdefault("gpu", first["device"])
        facts.setdefault("cuda", first["cuda"])
        facts["device"] = first["device"]
    if "date" not in facts and facts.get("date_file"):
        facts["date"] = file_date(facts["date_file"])
    facts.pop("date_file", None)
    facts["dir"] = run_dir
    return facts


def load_runs(run_dirs):
    """Every run: [{"dir", "sweeps": {type: sweep}, "facts": {...}}], in the order given."""
    runs = []
    for run_dir in run_dirs:
        sweeps = load_all(run_dir)
        runs.append({"dir": run_dir, "sweeps": sweeps, "facts": run_facts(run_dir, sweeps)})
    return runs


# ----------------------------------------------------------------------------- combining runs

def combine(runs):
    """One sweep per type from several runs, in the format of one sweep. Each row's ms is the
    median over the runs of the run's median; gbps and percent_of_peak follow from it. Added
    to each row: run_ms (each run's median, None where a run lacks the point), lo and hi
    (the smallest and largest of them), n_runs, iqr_ms (the median of the runs' IQRs),
    min_ms (the fastest repetition of any run), remeasured (the runs, 1-based, that
    measured the point again). The sweep gets runs (each run's facts) and reps."""
    devices = sorted({s["device"] for run in runs for s in run["sweeps"].values()})
    if len(devices) > 1:
        raise DataError("the runs were measured on different GPUs (" + ", ".join(devices) + "): "
                        "combine runs of one GPU model only")
    combined = {}
    for dtype in TYPES:
        present = [(k, run) for k, run in enumerate(runs) if dtype in run["sweeps"]]
        if not present:
            continue
        sweeps = [run["sweeps"][dtype] for _, run in present]
        peak = statistics.median(s["peak_gbps"] for s in sweeps)
        keys, points = [], {}
        for slot, sweep in enumerate(sweeps):
            for row in sweep["rows"]:
                key = (row["n"], row["chapter"])
                if key not in points:
                    keys.append(key)
                    points[key] = [None] * len(sweeps)
                points[key][slot] = row
        rows = []
        for n, chapter in sorted(keys, key=lambda key: key[0]):
            per_run = points[(n, chapter)]
            found = [r for r in per_run if r is not None]
            times = [r["ms"] for r in found]
            ms = statistics.median(times)
            if len(found) == 1:
                gbps = found[0]["gbps"]
            else:
                gbps = n * TYPE_BYTES.get(dtype, 4) / (ms * 1e6) if ms > 0 else 0.0
            iqrs = [r["iqr_ms"] for r in found if isinstance(r.get("iqr_ms"), (int, float))]
            mins = [r["min_ms"] for r in found if isinstance(r.get("min_ms"), (int, float))]
            rows.append({
                "n": n, "chapter": chapter, "ms": ms, "gbps": gbps,
                "percent_of_peak": 0.0 if chapter == CPU or peak <= 0 else 100 * gbps / peak,
                "ok": all(r["ok"] for r in found),
                "iqr_ms": statistics.median(iqrs) if iqrs else None,
                "min_ms": min(mins) if mins else None,
                "run_ms": [None if r is None else r["ms"] for r in per_run],
                "lo": min(times), "hi": max(times), "n_runs": len(found),
                "remeasured": [present[slot][0] + 1 for slot, r in enumerate(per_run) if r and r.get("remeasured")],
            })
        reps = sorted({s.get("reps") for s in sweeps if isinstance(s.get("reps"), int)})
        flush = {s.get("flush", True) for s in sweeps}
        facts = [dict(run["facts"], number=k + 1, reps=s.get("reps")) for (k, run), s in zip(present, sweeps)]
        sweep = {"device": devices[0], "peak_gbps": peak, "type": dtype, "rows": rows,
                 "reps": reps[0] if len(reps) == 1 else None, "reps_all": reps,
                 "flush": flush == {True}, "runs": facts, "paths": [s["path"] for s in sweeps],
                 "path": sweeps[0]["path"], "cuda": facts[0].get("cuda", sweeps[0]["cuda"]),
                 "date": facts[0].get("date", sweeps[0]["date"])}
        combined[dtype] = index_rows(sweep)
    return combined


def describe_runs(facts):
    """The machines behind a set of runs, from their files: "NVIDIA H100 80GB HBM3, CUDA 13.0,
    driver 580.159.04, 2026-11-22" for one run; for several, the values that differ joined by
    " / ", then how many runs on how many different GPUs and their dates."""
    def field(key, prefix=""):
        values = []
        for f in facts:
            value = f.get(key)
            if value and value not in values:
                values.append(value)
        return prefix + " / ".join(values) if values else None

    gpu = field("gpu") or "the GPU"
    parts = [gpu, field("cuda", "CUDA "), field("driver", "driver ")]
    dates = sorted({f["date"] for f in facts if f.get("date")})
    if len(facts) > 1:
        ids = [(f.get("gpu_ids") or [None])[0] for f in facts]
        machines = f"{len(facts)} runs"
        if all(ids):
            distinct = len(set(ids))
            machines += f" on {distinct} different GPU{'s' if distinct != 1 else ''}"
        when = ", ".join(dates[:-1]) + " and " + dates[-1] if len(dates) > 1 else "".join(dates)
        parts.append(machines + (", " + when if when else ""))
        return ", ".join(p for p in parts[:3] if p) + "; " + parts[3]
    parts.append(dates[0] if dates else None)
    return ", ".join(p for p in parts if p)


# ----------------------------------------------------------------------------- noise and suspect points
#
# What counts as noise is derived from the reference run behind the docs until now
# (docs/data as of 2026-11-22: tour --sweep on an H100, 30 repetitions per point, int and
# float, N = 2^10 .. 2^30, 252 rows per type; `publish.py noise DIR` prints these figures
# for any run):
# - GPU rows (chapters 01-10 and the floor). Where the median is under 20 µs (143 rows
#   per type) the interquartile range (IQR) of the repetitions is at most 1.12 µs (int) and
#   1.15 µs (float): launch and event jitter, 8-16 % of those medians. Above 20 µs the IQR
#   exceeds that jitter by at most 0.75 % of the median (08 at 2^25 float: 1.53 µs of
#   50.3 µs). So a GPU median carries noise(ms) = 1.2 µs + 0.75 % of ms.
# - The CPU row (00: host threads on a shared machine): IQR up to 41 % of the median
#   (float at 2^16), with no constant part to separate: noise(ms) = 41 % of ms.
# - Between runs a GPU point also moves with the machine: 09 at 2^30 ints took
#   1371-1395 µs (1.7 %) on four H100 instances, CUB within 0.1 % (the instance table of
#   09_single_pass/README.md, "Where the targets are met", as of commit e7e2f3b). Between
#   runs the relative part of the GPU noise is therefore 1.7 % instead of 0.75 %.
# A point is suspect where a difference exceeds SUSPECT_FACTOR = 2 times the noise (for two
# medians, the larger one's noise). On the reference run the largest ratio of each checked
# difference to its noise is: IQR 0.97 (GPU, 08 at 2^25 float) and 0.99 (CPU), both near 1
# by the model's construction; |int - float| 0.74 (10_cub at 2^25); a time that falls when
# N doubles 0.89 (10_cub, 2^11 -> 2^12), CPU 0.42; time beyond twice when N doubles 0.14
# (09, 2^29 -> 2^30), CPU 0.62. The factor 2 keeps that run clean with a
# margin and flags what is twice as far off as anything on it. The CPU row is left out of
# int vs float: its wide accumulator (int64 vs double adds on the host) makes float up to
# 2.4 times slower in that run, a property of the CPU sum, not noise.

NOISE_MODEL = {"gpu": (0.0012, 0.0075), "cpu": (0.0, 0.41)}  # (constant part in ms, share of the median)
BETWEEN_RUNS_SHARE = 0.017
SUSPECT_FACTOR = 2.0
SMALL_MS = 0.02  # the noise model's split between jitter-bound and bandwidth-bound medians


def noise_ms(chapter, ms, between_runs=False):
    """How much a median of this chapter at this time moves by noise alone (see above)."""
    constant, share = NOISE_MODEL["cpu" if chapter == CPU else "gpu"]
    if between_runs and chapter != CPU:
        share = max(share, BETWEEN_RUNS_SHARE)
    return constant + share * ms


def fmt_us(ms):
    return fmt_time(ms) if ms and ms > 0 else "0"


def check(runs, combined=None):
    """The suspect points of a set of runs. Returns a list of dicts: kind, type, chapter, n,
    n2 (the other size of a pair), run (1-based, for a within-run spread), why (a sentence),
    marks ((type, chapter, n) points to mark) and sizes ((type, n) to measure again)."""
    combined = combine(runs) if combined is None else combined
    suspects = []

    def add(kind, dtype, chapter, n, why, run=None, n2=None, marks=None, sizes=None):
        suspects.append({"kind": kind, "type": dtype, "chapter": chapter, "n": n, "n2": n2, "run": run, "why": why,
                         "marks": marks or [(dtype, chapter, n)], "sizes": sizes or [(dtype, n)]})

    # 1. Within a run: the repetitions of one point spread too far.
    for k, run in enumerate(runs):
        for dtype, sweep in run["sweeps"].items():
            for row in sweep["rows"]:
                iqr = row.get("iqr_ms")
                if not isinstance(iqr, (int, float)) or row["ms"] <= 0:
                    continue
                limit = SUSPECT_FACTOR * noise_ms(row["chapter"], row["ms"])
                if iqr > limit:
                    add("spread within the run", dtype, row["chapter"], row["n"],
                        f"IQR {fmt_us(iqr)} = {100 * iqr / row['ms']:.1f}% of the median {fmt_us(row['ms'])} "
                        f"(limit {fmt_us(limit)})", run=k + 1)
    # 2. Between runs: the runs' medians of one point spread too far.
    for dtype, sweep in combined.items():
        for row in sweep["rows"]:
            if row.get("n_runs", 1) < 2 or row["ms"] <= 0:
                continue
            limit = SUSPECT_FACTOR * noise_ms(row["chapter"], row["ms"], between_runs=True)
            if row["hi"] - row["lo"] > limit:
                medians = ", ".join("—" if t is None else fmt_time(t) for t in row["run_ms"])
                add("spread between runs", dtype, row["chapter"], row["n"],
                    f"the runs' medians {medians} differ by {fmt_us(row['hi'] - row['lo'])} (limit {fmt_us(limit)})")
    # 3. int against float at the same N: the same bytes, so a memory-bound kernel takes the same time.
    if "int" in combined and "float" in combined:
        ints, floats = combined["int"], combined["float"]
        for chapter, points in list(ints["table"].items()) + [(FLOOR, ints["floor"])]:
            if chapter == CPU:
                continue
            other = floats["floor"] if chapter == FLOOR else floats["table"].get(chapter, {})
            for n, a in sorted(points.items()):
                b = other.get(n)
                if b is None or a["ms"] <= 0 or b["ms"] <= 0:
                    continue
                limit = SUSPECT_FACTOR * max(noise_ms(chapter, a["ms"]), noise_ms(chapter, b["ms"]))
                if abs(a["ms"] - b["ms"]) > limit:
                    add("int and float disagree", "int", chapter, n,
                        f"int {fmt_time(a['ms'])}, float {fmt_time(b['ms'])}: {a['ms'] / b['ms']:.2f}× for the same "
                        f"bytes (limit: a difference of {fmt_us(limit)})",
                        marks=[("int", chapter, n), ("float", chapter, n)], sizes=[("int", n), ("float", n)])
    # 4. N against 2N: the time must not fall, and GB/s must not drop (time more than doubling).
    for dtype, sweep in combined.items():
        for chapter, points in list(sweep["table"].items()) + [(FLOOR, sweep["floor"])]:
            for n, a in sorted(points.items()):
                b = points.get(2 * n)
                if b is None or a["ms"] <= 0 or b["ms"] <= 0:
                    continue
                pair = dict(n2=2 * n, marks=[(dtype, chapter, n), (dtype, chapter, 2 * n)],
                            sizes=[(dtype, n), (dtype, 2 * n)])
                limit = SUSPECT_FACTOR * max(noise_ms(chapter, a["ms"]), noise_ms(chapter, b["ms"]))
                if a["ms"] - b["ms"] > limit:
                    add("time falls when N doubles", dtype, chapter, n,
                        f"{fmt_time(a['ms'])} at {power_label(n)}, {fmt_time(b['ms'])} at {power_label(2 * n)} "
                        f"(limit: a fall of {fmt_us(limit)})", **pair)
                limit = SUSPECT_FACTOR * max(noise_ms(chapter, b["ms"]), 2 * noise_ms(chapter, a["ms"]))
                if b["ms"] - 2 * a["ms"] > limit:
                    add("GB/s drops when N doubles", dtype, chapter, n,
                        f"{fmt_gbps(a['gbps'])} GB/s at {power_label(n)}, {fmt_gbps(b['gbps'])} GB/s at "
                        f"{power_label(2 * n)}: the time grows {b['ms'] / a['ms']:.2f}× "
                        f"(limit: twice plus {fmt_us(limit)})", **pair)
    return suspects


def describe_suspect(s):
    where = power_label(s["n"]) + (f" and {power_label(s['n2'])}" if s.get("n2") else "")
    run = f" (run {s['run']})" if s.get("run") else ""
    return f"{s['type']} {s['chapter']} at N = {where}: {s['kind']}{run}: {s['why']}"


def suspect_marks(suspects):
    return {mark for s in suspects for mark in s["marks"]}


def noise_report(runs):
    """What the noise model is derived from, measured on these runs (the `noise` command)."""
    out = []
    for k, run in enumerate(runs):
        for dtype, sweep in run["sweeps"].items():
            gpu = [r for r in sweep["rows"] if r["chapter"] != CPU and isinstance(r.get("iqr_ms"), (int, float))]
            cpu = [r for r in sweep["rows"] if r["chapter"] == CPU and isinstance(r.get("iqr_ms"), (int, float))]
            small = [r for r in gpu if 0 < r["ms"] < SMALL_MS]
            jitter = max((r["iqr_ms"] for r in small), default=0.0)
            large = [r for r in gpu if r["ms"] >= SMALL_MS]
            share = max(((r["iqr_ms"] - jitter) / r["ms"] for r in large), default=0.0)
            cpu_share = max((r["iqr_ms"] / r["ms"] for r in cpu if r["ms"] > 0), default=0.0)
            out.append(f"run {k + 1} {dtype}: GPU rows under {SMALL_MS * 1000:.0f} µs: largest IQR "
                       f"{jitter * 1000:.3f} µs ({len(small)} rows); above: largest IQR beyond that, as a share of "
                       f"the median, {100 * share:.2f}% ({len(large)} rows); CPU row: largest IQR/median "
                       f"{100 * cpu_share:.1f}%")
    combined = combine(runs)
    worst = {}
    for s in check(runs, combined):
        worst.setdefault(s["kind"], []).append(s)
    out.append(f"model: GPU {NOISE_MODEL['gpu'][0] * 1000:.2f} µs + {100 * NOISE_MODEL['gpu'][1]:.2f}% "
               f"(between runs {100 * BETWEEN_RUNS_SHARE:.1f}%), CPU {100 * NOISE_MODEL['cpu'][1]:.0f}%; "
               f"suspect beyond {SUSPECT_FACTOR:g}× the noise")
    out.append(f"suspect points under this model: {sum(len(v) for v in worst.values())}"
               + "".join(f"; {kind}: {len(v)}" for kind, v in worst.items()))
    return "\n".join(out)


# ----------------------------------------------------------------------------- formatting

def sig3(x):
    """Three significant digits, no exponent."""
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def fmt_time(ms):
    if ms is None or ms <= 0:
        return "—"
    if ms < 1:
        return f"{sig3(ms * 1000)} µs"
    if ms < 1000:
        return f"{sig3(ms)} ms"
    return f"{sig3(ms / 1000)} s"


def fmt_gbps(gbps):
    if gbps is None:
        return "—"
    return f"{gbps:.0f}" if gbps >= 100 else f"{gbps:.1f}" if gbps >= 1 else f"{gbps:.2f}"


def percent_of_peak(row, sweep):
    if row is None or row["chapter"] == CPU or sweep["peak_gbps"] <= 0:
        return None
    return row["percent_of_peak"]


def percent_of_floor(row, sweep):
    floor = sweep["floor"].get(row["n"]) if row else None
    if floor is None or row["chapter"] == CPU or floor["gbps"] <= 0:
        return None
    return 100 * row["gbps"] / floor["gbps"]


def fmt_percent(p):
    return "—" if p is None else f"{p:.1f}%" if p >= 1 else f"{p:.2f}%"


def fmt_ratio(r):
    return "—" if r is None else f"{r:.2f}×"


def power_label(n):
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def size_label(n, dtype):
    size = n * TYPE_BYTES.get(dtype, 4)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} B"


def wrong(row):
    return " ⚠" if row is not None and not row["ok"] else ""


def ratio(a_row, b_row):
    """How many times faster b is than a (a's time / b's time)."""
    if a_row is None or b_row is None or b_row["ms"] <= 0:
        return None
    return a_row["ms"] / b_row["ms"]


def spread_percent(row):
    """The spread of a published time, as a share of it: across runs, the run median farthest
    from the published one; with one run, half the interquartile range of its repetitions."""
    if row is None or row["ms"] <= 0:
        return None
    if row.get("n_runs", 1) >= 2:
        return 100 * max(row["hi"] - row["ms"], row["ms"] - row["lo"]) / row["ms"]
    iqr = row.get("iqr_ms")
    return None if not isinstance(iqr, (int, float)) else 100 * iqr / 2 / row["ms"]


def fmt_spread(p):
    if p is None:
        return "—"
    return f"±{p:.2f}%" if p < 0.095 else f"±{p:.1f}%" if p < 9.95 else f"±{p:.0f}%"


def band(row):
    """The interval a published time stands for: the runs' medians (several runs) or the
    middle half of the repetitions (one run)."""
    if row.get("n_runs", 1) >= 2:
        return row["lo"], row["hi"]
    half = row.get("iqr_ms") / 2 if isinstance(row.get("iqr_ms"), (int, float)) else 0.0
    return row["ms"] - half, row["ms"] + half


def within_spread(a_row, b_row):
    """True when two published times cannot be told apart: their bands overlap."""
    if a_row is None or b_row is None:
        return False
    a_lo, a_hi = band(a_row)
    b_lo, b_hi = band(b_row)
    return a_lo <= b_hi and b_lo <= a_hi


def spread_note(sweep):
    runs = len(sweep["runs"])
    if runs >= 2:
        return (f"± is the spread between the {runs} runs: how far the run median farthest from the published one "
                "lies from it, as a share of it.")
    return ("± is half the interquartile range of the run's repetitions, as a share of the median "
            "(one run: the spread between machines is not measured).")


WITHIN_NOTE = (f"{WITHIN_MARK} before a ratio or a percentage: the two times' spreads overlap, so the difference is "
               "within the spread.")


def timed(row, marks, dtype, with_spread=True):
    """A time cell: the time, its spread, the WRONG and suspect marks."""
    if row is None:
        return "—"
    text = fmt_time(row["ms"])
    p = spread_percent(row) if with_spread else None
    if p is not None:
        text += f" {fmt_spread(p)}"
    return text + wrong(row) + suspect(row, marks, dtype)


def suspect(row, marks, dtype):
    return SUSPECT_MARK if row is not None and (dtype, row["chapter"], row["n"]) in marks else ""


def rel_link(from_file, target):
    return os.path.relpath(target, os.path.dirname(os.path.abspath(from_file))).replace(os.sep, "/")


def chapter_link(chapter, root, from_file):
    readme = os.path.join(root, chapter, "README.md")
    if os.path.exists(readme):
        return f"[{chapter}]({rel_link(from_file, readme)})"
    return chapter


def chapter_note(chapter):
    return " (CPU)" if chapter == CPU else " (yardstick)" if chapter == CUB else ""


def reps_text(sweep):
    reps = sweep.get("reps")
    if isinstance(reps, int):
        return f"median of {reps} runs" if len(sweep["runs"]) < 2 else f"median of {reps} repetitions"
    if sweep.get("reps_all"):
        return "median of " + " / ".join(map(str, sweep["reps_all"])) + " repetitions"
    return "median of the timed runs"


def gpu_and_rest(sweep):
    """describe_runs of a combined sweep's runs, split after the GPU: ("NVIDIA H100 ...", ", CUDA ...")."""
    facts = describe_runs(sweep["runs"])
    gpu = facts.split(",")[0]
    return gpu, facts[len(gpu):]


def measured_on(sweep, dtype):
    """One sentence: on what, how many runs, how each point was taken (from the files)."""
    flush = "L2 flushed before each" if sweep["flush"] else "L2 not flushed (--no-flush)"
    what = f"`{dtype}` sums, "
    runs = sweep["runs"]
    gpu, rest = gpu_and_rest(sweep)
    facts = f"**{gpu}** (peak {sweep['peak_gbps']:.0f} GB/s)" + rest
    if len(runs) >= 2:
        return (f"Measured on {facts}: {what}each run's {reps_text(sweep)}, {flush}; published: the median of the "
                f"{len(runs)} runs' medians")
    return f"Measured on {facts}: {what}{reps_text(sweep)}, {flush}"


def table(header, aligns, rows):
    """A Markdown table, the one every page writer uses. aligns: one rule cell per column
    ("---", "---:"); None: the first column left, the others right; "compact": the rule
    |---|---| of the tables that never set an alignment."""
    if aligns == "compact":
        rule = "|" + "---|" * len(header)
    else:
        rule = "| " + " | ".join(aligns or ["---"] + ["---:"] * (len(header) - 1)) + " |"
    lines = ["| " + " | ".join(header) + " |", rule]
    lines += ["| " + " | ".join(str(c) for c in cells) + " |" for cells in rows]
    return "\n".join(lines)


def any_wrong(sweeps):
    return any(not row["ok"] for sweep in sweeps.values() for row in sweep["rows"])


WRONG_NOTE = "⚠: the chapter's result was WRONG at that size; the time is shown but does not count."
SUSPECT_NOTE = (f"{SUSPECT_MARK.strip()}: a suspect point (`tools/publish.py check`: spread or neighbours out of "
                "line), published only because --allow-suspect was given; docs/results.md lists the reasons.")


# ----------------------------------------------------------------------------- results.md

def results_page(sweeps, root, page, suspects=()):
    marks = suspect_marks(suspects)
    out = ["# Results", "",
           "<!-- Generated by tools/results.py from docs/data/run*/sweep_*.json: do not edit by hand. -->", ""]
    first = next(iter(sweeps.values()))
    runs = first.get("runs") or []
    count = len(runs) or 1
    out += ["Every number on this page comes from the tour's sweep (`tour --sweep`), one file per element type "
            + (f"and run; {count} runs, each on a separately started machine:" if count > 1 else "(one run):"), ""]
    for k, facts in enumerate(runs or [None]):
        files = []
        for dtype, sweep in sweeps.items():
            path = sweep["paths"][k] if "paths" in sweep and k < len(sweep["paths"]) else sweep["path"]
            name = os.path.basename(path)
            inside = not os.path.relpath(os.path.abspath(path), root).startswith("..")
            files.append(f"[{name}]({rel_link(page, path)})" if inside else f"`{name}`")
        reps = facts.get("reps") if facts else first.get("reps")
        how = f", the median of {reps} timed runs per point" if isinstance(reps, int) else ""
        label = f"run {k + 1}: " if len(runs) > 1 else ""
        out.append(f"- {label}{', '.join(files)}: {describe_runs([facts]) if facts else first['device']}{how}")
    peaks = {f"{s['peak_gbps']:.0f}" for s in sweeps.values()}
    flush = ("the L2 cache flushed before each repetition" if all(s.get("flush", True) for s in sweeps.values())
             else "the L2 cache not flushed")
    out += ["",
            "Each GPU chapter runs at its own default launch shape on the same input and is checked against the "
            "CPU reference, " + flush + ". The time covers every launch that turns the input into the final value; "
            "GB/s is the input's bytes divided by that time, and % of peak compares it with the GPU's peak bandwidth "
            f"({' / '.join(sorted(peaks))} GB/s, 2 × memory clock × bus width). Chapter 00 is the multi-threaded "
            "CPU sum: the GPU's peak does not apply to it. CUB (10_cub) is the yardstick.", ""]
    if len(runs) >= 2:
        out += [f"Each point is the median of the {len(runs)} runs' medians. " + spread_note(first), ""]
    else:
        out += [spread_note(first), ""]
    if any_wrong(sweeps):
        out += [WRONG_NOTE, ""]
    if marks:
        out += [SUSPECT_NOTE, ""]
    for dtype, sweep in sweeps.items():
        out += section(dtype, sweep, root, page, marks)
    if suspects:
        out += ["## Suspect points", "",
                "Published with --allow-suspect; `python3 tools/publish.py check` on the runs lists them:", ""]
        out += [f"- {describe_suspect(s)}" for s in suspects] + [""]
    allow = " --allow-suspect" if suspects else ""  # as this page was made
    out += ["## How to reproduce", "",
            "On each of several separately started machines with a CUDA GPU, from the repository root "
            "(tools/gpu_suite.sh's sweep step measures suspect points again, see tools/results.py):", "", "```sh",
            "bash tools/gpu_suite.sh build sweep      # writes build/gpu-results/ (data/sweep_*.json, gpu.txt)",
            "```", "",
            "then, with the runs' folders side by side on one machine:", "", "```sh",
            f"python3 tools/publish.py RESULTS_1 RESULTS_2 RESULTS_3{allow}   # docs/data/runK, this page, the "
            "plots, the READMEs",
            "python3 tools/publish.py docs/data".ljust(len(f"python3 tools/publish.py RESULTS_1 RESULTS_2 RESULTS_3{allow}"))
            + "   # again from docs/data", "```", "",
            "The first refuses (exit 1, listing them) while any point is suspect; `--allow-suspect` publishes such "
            "points marked †" + (", as this page does for those listed above." if suspects else "."), "",
            "One sweep by hand (`--out` creates the folder):", "", "```sh",
            "cmake --preset release && cmake --build --preset release"]
    out += [REPRODUCE.replace("--type int", f"--type {t}") for t in TYPES]
    out += ["python3 tools/publish.py docs/data/run1", "```", "",
            "A sweep runs every chapter at N = 2^10 .. 2^30 (stopping early if the GPU's memory runs out) and takes "
            "a while. Keep the machine otherwise idle while it runs.", ""]
    return "\n".join(out)


def section(dtype, sweep, root, page, marks=frozenset()):
    sizes = [1 << k for k in TABLE_POWERS]
    several = len(sweep["runs"]) >= 2
    plot = os.path.join(root, "docs", "images", f"results_{dtype}.svg")
    out = [f"## {dtype}", "", f"![GB/s against N for every chapter, {dtype}]({rel_link(page, plot)})", "",
           f"### Time (median{' of the runs' if several else ''}, ± spread), {dtype}", ""]
    rows = []
    for chapter in sweep["chapters"]:
        cells = [chapter_link(chapter, root, page) + chapter_note(chapter)]
        for n in sizes:
            cells.append(timed(sweep["table"][chapter].get(n), marks, dtype))
        rows.append(cells)
    header = ["chapter"] + [f"N = {power_label(n)}" for n in sizes]
    out += [table(header, ["---"] + ["---:"] * len(sizes), rows), ""]
    out += [f"### Bandwidth, {dtype}: GB/s (% of peak)", ""]
    rows = []
    for chapter in sweep["chapters"]:
        cells = [chapter_link(chapter, root, page) + chapter_note(chapter)]
        for n in sizes:
            row = sweep["table"][chapter].get(n)
            if row is None:
                cells.append("—")
                continue
            p = percent_of_peak(row, sweep)
            cells.append(fmt_gbps(row["gbps"]) + ("" if p is None else f" ({fmt_percent(p)})") + wrong(row)
                         + suspect(row, marks, dtype))
        rows.append(cells)
    out += [table(header, ["---"] + ["---:"] * len(sizes), rows), ""]
    out += ["<details>", f"<summary>Every size, {dtype} (N = {power_label(sweep['sizes'][0])} .. "
            f"{power_label(sweep['sizes'][-1])})</summary>", ""]
    rows = []
    for n in sweep["sizes"]:
        for chapter in sweep["chapters"] + ([FLOOR] if n in sweep["floor"] else []):
            row = sweep["floor"].get(n) if chapter == FLOOR else sweep["table"][chapter].get(n)
            if row is None:
                continue
            notes = ["ok" if row["ok"] else "**WRONG**"]
            if row.get("remeasured"):
                notes.append("re-measured" + (f" (run {', '.join(map(str, row['remeasured']))})" if several else ""))
            if suspect(row, marks, dtype):
                notes.append("suspect" + SUSPECT_MARK)
            rows.append([power_label(n), chapter, fmt_time(row["ms"]), fmt_spread(spread_percent(row)),
                         fmt_gbps(row["gbps"]), fmt_percent(percent_of_peak(row, sweep)), ", ".join(notes)])
    out += [table(["N", "chapter", "time", "spread", "GB/s", "% of peak", "check"],
                  ["---:", "---", "---:", "---:", "---:", "---:", "---"], rows), "", "</details>", ""]
    return out


# ----------------------------------------------------------------------------- README blocks

# A ratio against a time whose spread is larger than this (percent) is printed as the range
# the runs allow: "6.97×" alone would claim a precision the CPU's time (±61 % on the H100)
# does not have.
LARGE_SPREAD = 10.0
LARGE_SPREAD_NOTE = (f"A ratio involving a time whose spread is over {LARGE_SPREAD:.0f}% is given as the range its "
                     "runs allow (from the farthest run medians of the two times), not as one number.")


def ratio_range(a_row, b_row):
    """The lowest and highest value of a's time over b's that the two bands allow."""
    a_lo, a_hi = band(a_row)
    b_lo, b_hi = band(b_row)
    if b_lo <= 0 or b_hi <= 0:
        return None
    return a_lo / b_hi, a_hi / b_lo


def large_spread(a_row, b_row):
    """True when a ratio of the two times is shown as a range (LARGE_SPREAD)."""
    if a_row is None or b_row is None or a_row is b_row:
        return False
    return any((spread_percent(row) or 0) > LARGE_SPREAD for row in (a_row, b_row))


def fmt_ratio_range(lo, hi):
    def one(r):
        return f"{r:.2f}" if r < 10 else f"{r:.1f}" if r < 100 else f"{r:.0f}"
    return f"{one(lo)}–{one(hi)}×"


def marked_ratio(a_row, b_row):
    """a's time over b's, with ≈ when the two are within the spread; as a range when either
    time's spread is over LARGE_SPREAD."""
    r = ratio(a_row, b_row)
    if r is None:
        return "—"
    if large_spread(a_row, b_row):
        bounds = ratio_range(a_row, b_row)
        if bounds:
            return fmt_ratio_range(*bounds)
    return (WITHIN_MARK if a_row is not b_row and within_spread(a_row, b_row) else "") + fmt_ratio(r)


def main_block(sweeps, root, readme, suspects=()):
    marks = suspect_marks(suspects)
    dtype = "int" if "int" in sweeps else next(iter(sweeps))
    sweep = sweeps[dtype]
    results = os.path.join(root, "docs", "results.md")
    out = [f"{measured_on(sweep, dtype)}. \"vs previous\" is the speed-up over the row above, \"vs 01\" over "
           f"chapter 01. {spread_note(sweep)} {WITHIN_NOTE} {LARGE_SPREAD_NOTE} Every size and `float`: "
           f"[docs/results.md]({rel_link(readme, results)}).", ""]
    if any_wrong({dtype: sweep}):
        out += [WRONG_NOTE, ""]
    if marks:
        out += [SUSPECT_NOTE, ""]
    for k in MAIN_POWERS:
        n = 1 << k
        present = [c for c in sweep["chapters"] if n in sweep["table"][c]]
        if not present:
            out += [f"N = 2^{k}: not measured (the sweep stopped before this size).", ""]
            continue
        first = sweep["table"].get(FIRST_GPU, {}).get(n)
        floor = sweep["floor"].get(n)
        rows, previous = [], None
        for chapter in present:
            row = sweep["table"][chapter][n]
            of_floor = percent_of_floor(row, sweep)
            rows.append([chapter_link(chapter, root, readme) + chapter_note(chapter),
                         fmt_time(row["ms"]) + wrong(row) + suspect(row, marks, dtype),
                         fmt_spread(spread_percent(row)), fmt_gbps(row["gbps"]),
                         fmt_percent(percent_of_peak(row, sweep)),
                         ("" if of_floor is None or not within_spread(row, floor) else WITHIN_MARK)
                         + fmt_percent(of_floor),
                         marked_ratio(previous, row), marked_ratio(first, row)])
            previous = row
        out += [f"**N = 2^{k} {dtype}s ({size_label(n, dtype)})**", ""]
        out += [table(["chapter", "time", "spread", "GB/s", "% of peak", "% of floor", "vs previous", "vs 01"],
                      ["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"], rows), ""]
        if floor:
            out += [f"The read-only floor (a kernel that only reads the input, with 16-byte loads): "
                    f"{fmt_time(floor['ms'])} {fmt_spread(spread_percent(floor))}, {fmt_gbps(floor['gbps'])} GB/s, "
                    f"{fmt_percent(100 * floor['gbps'] / sweep['peak_gbps'])} of peak. \"% of floor\" is a chapter's "
                    f"share of that bandwidth: what this GPU can actually read, where \"% of peak\" is the datasheet's.",
                    ""]
    plot = os.path.join(root, "docs", "images", f"results_{dtype}.svg")
    out += [f"![GB/s against N for every chapter ({dtype})]({rel_link(readme, plot)})"]
    return "\n".join(out)


HOW_MEASURED = "docs/README.md#how-the-numbers-are-measured"


def previous_chapter(chapter, chapters):
    """The chapter a lesson compares itself with: the one before it in reading order, leaving
    out the yardstick (CUB) and, for the GPU chapters, the CPU baseline, except for the first."""
    index = chapters.index(chapter)
    for other in reversed(chapters[:index]):
        if other == CUB or (other == CPU and chapter != FIRST_GPU):
            continue
        return other
    return None


def how_link(page, root):
    """HOW_MEASURED, relative to the page that links to it."""
    target, anchor = HOW_MEASURED.split("#")
    return rel_link(page, os.path.join(root, target)) + "#" + anchor


def caption(sweep, dtype, readme, root):
    """One sentence: on what and how, linking the page that says once what the rest means."""
    gpu, rest = gpu_and_rest(sweep)
    how = how_link(readme, root)
    results = rel_link(readme, os.path.join(root, "docs", "results.md"))
    spread = ("the median of the runs' medians, ± the spread between them" if len(sweep["runs"]) >= 2
              else "± half the interquartile range")
    return (f"`{dtype}` sums on **{gpu}**{rest}: each run's {reps_text(sweep)}, {spread} "
            f"([how these are measured]({how})). `float` and every size: [docs/results.md]({results}).")


def chapter_block(chapter, sweeps, root, readme, suspects=()):
    """A chapter's results table: its time beside the previous chapter's and CUB's, at N = 2^16 ..
    2^30 of the first type (int), with its bandwidth and the two speed-ups."""
    marks = suspect_marks(suspects)
    present = {t: s for t, s in sweeps.items() if chapter in s["table"]}
    if not present:
        return None
    dtype, sweep = next(iter(present.items()))
    out = [caption(sweep, dtype, readme, root), ""]
    if any(not r["ok"] for r in sweep["table"][chapter].values()):
        out += [WRONG_NOTE, ""]
    if any((dtype, chapter, n) in marks for n in sweep["table"][chapter]):
        out += [SUSPECT_NOTE, ""]
    previous = previous_chapter(chapter, sweep["chapters"])
    cub = CUB if chapter not in (CUB, CPU) and CUB in sweep["table"] else None
    columns = [c for c in (previous, chapter, cub) if c]
    header = [f"N ({dtype}s)"] + [f"**{c}**" if c == chapter else c for c in columns] + ["GB/s"]
    header += [] if chapter == CPU else ["% of peak"]
    header += [f"vs {previous[:2]}" for _ in [previous] if previous] + ["vs CUB" for _ in [cub] if cub]
    rows, wide = [], False
    for k in TABLE_POWERS:
        n = 1 << k
        row = sweep["table"][chapter].get(n)
        cells = [f"2^{k}"] + [timed(sweep["table"][c].get(n), marks, dtype) for c in columns]
        cells.append(fmt_gbps(row["gbps"] if row else None))
        if chapter != CPU:
            cells.append(fmt_percent(percent_of_peak(row, sweep)))
        for other in (previous, cub):
            if other:
                cells.append(marked_ratio(sweep["table"][other].get(n), row))
                wide = wide or (row is not None and large_spread(sweep["table"][other].get(n), row))
        rows.append(cells)
    out.append(table(header, ["---:"] * len(header), rows))
    out += ["", f"\"vs\" is how many times faster this chapter is; {WITHIN_NOTE}"
            + (f" {LARGE_SPREAD_NOTE}" if wide else "")]
    return "\n".join(out)


# ----------------------------------------------------------------------------- marker blocks

def marker_patterns(marker):
    kind = marker.split(":", 1)[0]
    start = re.compile(r"^\s*<!--\s*" + re.escape(marker) + r"\s*-->\s*$")
    end = re.compile(r"^\s*<!--\s*/" + re.escape(kind) + r"\s*-->\s*$")
    return start, end


def fill_text(text, marker, content):
    """Replaces the inside of every `<!-- MARKER -->` ... `<!-- /KIND -->` block of text.

    Returns (new text, number of blocks). Raises ValueError for a block that is not closed.
    The content is put between blank lines (so Markdown tables and images render);
    empty content leaves the two markers on adjacent lines.
    """
    start, end = marker_patterns(marker)
    lines = text.split("\n")
    inner = [] if not content.strip() else [""] + content.strip("\n").split("\n") + [""]
    out, count, i = [], 0, 0
    while i < len(lines):
        out.append(lines[i])
        if start.match(lines[i]):
            j = i + 1
            while j < len(lines) and not end.match(lines[j]) and not start.match(lines[j]):
                j += 1
            if j >= len(lines) or not end.match(lines[j]):
                raise ValueError(f"the block '<!-- {marker} -->' (line {i + 1}) has no "
                                 f"'<!-- /{marker.split(':', 1)[0]} -->' after it")
            out.extend(inner)
            count += 1
            i = j
            continue
        i += 1
    return "\n".join(out), count


DECLARED = None  # publish.py: the (page, marker) pairs of BLOCKS the running job may fill


def fill_file(path, marker, content):
    """Fills every block MARKER of a file. Returns the number of blocks; writes only on change."""
    if DECLARED is not None and (os.path.abspath(path), marker) not in DECLARED:
        raise ValueError(f"{path}: block {marker} is not in tools/publish.py's BLOCKS for this kind of run")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new_text, count = fill_text(text, marker, content)
    if new_text != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new_text)
    return count


# ----------------------------------------------------------------------------- the plot

PALETTE = ["#d62728", "#ff7f0e", "#bcbd22", "#2ca02c", "#17becf", "#1f77b4", "#9467bd", "#8c564b", "#e377c2",
           "#393b79"]


def plot(dtype, sweep, path):
    """GB/s against N (log scale), one line per chapter, CUB thickest; with several runs, the
    median line and the runs' range as a light band around it (tools/plots.py)."""
    import plots
    k_min, k_max = 10, 30
    peak = sweep["peak_gbps"]
    top_value = max([peak] + [r["gbps"] for r in sweep["rows"]])
    runs = len(sweep["runs"])
    gpu, rest = gpu_and_rest(sweep)
    title = f"{dtype} sum, GB/s against N: {gpu}"
    machine = rest.lstrip(", ")
    each = f"each a median of {sweep['reps']} repetitions" if isinstance(sweep.get("reps"), int) else ""
    if runs >= 2:
        how = f"median of {runs} runs ({each}{'; ' if each else ''}band: the runs' range)"
    else:
        how = f"median of {sweep['reps']} runs" if isinstance(sweep.get("reps"), int) else "median of the timed runs"
    method = (f"every chapter at its default launch shape; {how}; "
              f"{'L2 flushed before each' if sweep['flush'] else 'L2 not flushed'}")
    colors, k = {}, 0
    for chapter in sweep["chapters"]:
        if chapter == CUB:
            colors[chapter] = "#111111"
        elif chapter == CPU:
            colors[chapter] = "#8a8a8a"
        else:
            colors[chapter] = PALETTE[k % len(PALETTE)]
            k += 1
    series = []
    for chapter in sweep["chapters"]:
        points = [p for p in sorted(sweep["table"][chapter].items()) if p[0] >= 1 << k_min]
        nbytes = [n * TYPE_BYTES.get(dtype, 4) for n, _ in points]
        ranges = [(b / (r["hi"] * 1e6), b / (r["lo"] * 1e6)) if r.get("n_runs", 1) >= 2 and r["lo"] > 0
                  else (float("nan"), float("nan")) for b, (_, r) in zip(nbytes, points)]
        series.append({
            "x": [n for n, _ in points], "y": [r["gbps"] for _, r in points], "color": colors[chapter],
            "label": chapter + (" (CPU)" if chapter == CPU else " (CUB)" if chapter == CUB else ""),
            "width": 3.2 if chapter == CUB else 1.6, "style": ":" if chapter == CPU else "-",
            "marker_size": 4.5 if chapter == CUB else 3.2, "bold": chapter == CUB,
            "lo": [lo for lo, _ in ranges] if runs >= 2 else None, "hi": [hi for _, hi in ranges],
            "wrong": [not r["ok"] for _, r in points]})
    order = [s["label"] for s in series]  # the legend's order
    series.sort(key=lambda s: s["bold"])  # CUB drawn last, on top
    extra = [("peak bandwidth", {"color": "#555555", "linewidth": 1.2, "linestyle": (0, (6, 4))})]
    if any(not r["ok"] for r in sweep["rows"]):
        extra.append(("WRONG result", {"color": plots.WRONG_COLOR, "marker": "x", "markersize": 9,
                                       "markeredgewidth": 2.2, "linestyle": "none"}))
    plots.line_plot(path, title, [machine, method], series, "N (elements, log scale)",
                    "GB/s (input bytes / median time)", [1 << k for k in range(k_min, k_max + 1, 2)],
                    plots.power_labels(2, range(k_min, k_max + 1, 2)), (0, top_value * 1.08), peak=peak,
                    legend_title="chapter", extra_legend=extra, legend_order=order)


# ----------------------------------------------------------------------------- commands

def update(data_dirs, root, blocks):
    """Writes results.md, the plots and the blocks [(page, marker)] (pages under root, or
    absolute) from one or more runs, the suspect points marked (publish.py has refused them
    unless --allow-suspect). Returns the suspect points."""
    runs = load_runs(data_dirs)
    sweeps = combine(runs)
    suspects = check(runs, sweeps)
    images = os.path.join(root, "docs", "images")
    os.makedirs(images, exist_ok=True)
    import plots
    written = plots.draw([(path, plot, (dtype, sweep, path)) for dtype, sweep in sweeps.items()
                          for path in [os.path.join(images, f"results_{dtype}.svg")]], "results.py")
    page = os.path.join(root, "docs", "results.md")
    with open(page, "w", encoding="utf-8") as f:
        f.write(results_page(sweeps, root, page, suspects))
    written.append(page)
    warnings = []
    for path, marker in blocks:
        path = os.path.join(root, path)
        if not os.path.exists(path):
            continue
        key = marker.split(":", 1)[1]
        if key == "main":
            content = main_block(sweeps, root, path, suspects)
        else:
            content = chapter_block(key, sweeps, root, path, suspects)
        if content is None:
            print(f"note: {os.path.relpath(path, root)}: no sweep data for '{key}'; block left as it was")
            continue
        try:
            if not fill_file(path, marker, content):
                warnings.append(f"{os.path.relpath(path, root)}: no block {marker}")
                continue
        except ValueError as e:
            warnings.append(f"{os.path.relpath(path, root)}: {e}")
            continue
        written.append(f"{path} ({marker})")
    for w in written:
        print("wrote", os.path.relpath(w, root))
    for w in warnings:
        print("warning:", w, file=sys.stderr)
    bad = [f"{t} {r['chapter']} at N = {r['n']}" for t, s in sweeps.items() for r in s["rows"] if not r["ok"]]
    if bad:
        print("warning: WRONG results in the sweep (marked ⚠): " + "; ".join(bad), file=sys.stderr)
    if suspects:
        print(f"warning: {len(suspects)} suspect point(s) published with the mark †:", file=sys.stderr)
        for s in suspects:
            print("  " + describe_suspect(s), file=sys.stderr)
    return suspects


def remeasure(run_dir, tour_files, attempt=1):
    """Puts the rows of `tour --json` outputs in place of the sweep's rows at their type and N.
    Returns (replaced points, warnings)."""
    folder = sweep_dir(run_dir)
    replaced, warnings = [], []
    by_type = {}
    for path in tour_files:
        try:
            with open(path, encoding="utf-8") as f:
                tour = json.load(f)
            dtype, n, rows = tour["type"], int(tour["n"]), tour["rows"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            warnings.append(f"{path}: not a tour --json output ({e.__class__.__name__}); skipped")
            continue
        by_type.setdefault(dtype, []).append((path, tour, n, rows))
    for dtype, found in by_type.items():
        path = os.path.join(folder, f"sweep_{dtype}.json")
        try:
            with open(path, encoding="utf-8") as f:
                sweep = json.load(f)
        except (OSError, ValueError) as e:
            warnings.append(f"{path}: cannot read ({e}); {len(found)} re-measurement(s) of {dtype} not used")
            continue
        peak = sweep.get("peak_gbps") or 0
        for source, tour, n, rows in found:
            if tour.get("device") != sweep.get("device"):
                warnings.append(f"{source}: measured on '{tour.get('device')}', the sweep on "
                                f"'{sweep.get('device')}'; skipped")
                continue
            if tour.get("reps") != sweep.get("reps"):
                warnings.append(f"{source}: {tour.get('reps')} repetitions where the sweep has {sweep.get('reps')}")
            index = {(r["n"], r["chapter"]): r for r in sweep["rows"]}
            for new in rows:
                old = index.get((n, new.get("chapter")))
                if old is None:
                    warnings.append(f"{source}: {new.get('chapter')} at n = {n} is not in the sweep; not added")
                    continue
                old.setdefault("sweep_ms", old["ms"])
                if "iqr_ms" in old:
                    old.setdefault("sweep_iqr_ms", old["iqr_ms"])
                for key in ("ms", "min_ms", "iqr_ms", "gbps", "ok"):
                    if key in new and new[key] is not None:
                        old[key] = new[key]
                old["percent_of_peak"] = 0 if old["chapter"] == CPU or peak <= 0 else 100 * old["gbps"] / peak
                old["remeasured"] = attempt
                replaced.append((dtype, new["chapter"], n))
            missing = [r["chapter"] for r in sweep["rows"] if r["n"] == n
                       and r["chapter"] not in {x.get("chapter") for x in rows}]
            if missing:
                warnings.append(f"{source}: no new row for {', '.join(missing)} at n = {n}; kept the sweep's")
        write_sweep(path, sweep)
    return replaced, warnings


def write_sweep(path, sweep):
    """A sweep file in the tour's layout (one row per line), and its CSV beside it when there is one."""
    head = {k: v for k, v in sweep.items() if k != "rows"}
    text = json.dumps(head)[:-1] + ", \"rows\": ["
    text += ",".join("\n  " + json.dumps(row) for row in sweep["rows"]) + "\n]}\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    csv = path[:-len(".json")] + ".csv"
    if os.path.exists(csv):
        with open(csv, "w", encoding="utf-8") as f:
            f.write("type,n,chapter,ms,min_ms,iqr_ms,gbps,percent_of_peak,ok\n")
            for r in sweep["rows"]:
                f.write(f"{sweep['type']},{r['n']},{r['chapter']},{r['ms']},{r.get('min_ms', '')},"
                        f"{r.get('iqr_ms', '')},{r['gbps']},{r.get('percent_of_peak', '')},"
                        f"{'ok' if r['ok'] else 'WRONG'}\n")
