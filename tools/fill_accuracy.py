#!/usr/bin/env python3
"""fill_accuracy.py: chapter 12's error study into its README, docs/tuning.md and plots, for tools/publish.py.

Reads the accuracy/ folder that tools/accuracy_study.sh writes (errors.jsonl, times.jsonl, reproducibility.jsonl,
device.json, optional ncu_{09_single_pass,12_accuracy}_float.csv) and, for 12 against 09, the tour's sweep
runs; draws docs/images/accuracy_error_{positive,cancel,wide}.svg (relative error against N, with bounds).
"""

import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import DataError, cuda_with_driver, fill_file, power_label, read_jsonl, table  # noqa: E402
import plots  # noqa: E402

KINDS = {
    "positive": "all positive: uniform in [0, 1)",
    "cancel": "mixed signs, cancelling: uniform in (−1, 1) plus 2⁻¹⁰",
    "wide": "a wide dynamic range: magnitudes 10⁻⁸ to 10⁸, one in four negative",
}
METHODS = {  # name in the study's files: (label, colour)
    "loop": ("loop (00, CPU)", "#d62728"), "pairwise": ("pairwise (NumPy's, CPU)", "#ff7f0e"),
    "09": ("09 (float tree)", "#1f77b4"), "12": ("12 (compensated)", "#2ca02c"),
    "double": ("double accumulators", "#9467bd"), "cub": ("CUB", "#8c564b"),
    "atomic": ("atomicAdd of partials", "#e377c2")}
GPU_METHODS = ("09", "12", "double", "cub", "atomic")
TIME_TARGET = 1.01  # the issue's target: 12 within 1.01x of 09's time at N >= 2^24
COLUMNS = {"errors.jsonl": ("kind", "n", "method", "rel_error", "ulps", "bound"),
           "times.jsonl": ("n", "method", "median_ms"),
           "reproducibility.jsonl": ("case", "method", "n", "distinct", "bits")}


def read_study(folder, name):
    rows = read_jsonl(os.path.join(folder, name))
    if any(k not in row for row in rows for k in COLUMNS[name]):
        raise DataError(f"{name}: expected the keys {', '.join(COLUMNS[name])} on every line")
    return rows


def read_device(path):
    """device.json: the GPU and the study's settings."""
    try:
        with open(path, encoding="utf-8") as f:
            device = json.load(f)
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror}")
    except ValueError as e:
        raise DataError(f"{path}: not JSON ({e})")
    for key in ("device", "cuda", "date", "reps"):
        if key not in device:
            raise DataError(f"{path}: no '{key}'")
    return device


def g9(x):
    """A float result as the study printed it (9 significant digits)."""
    return x if isinstance(x, str) else f"{x:.9g}"


def num(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def power(n):
    return power_label(int(n))


def fmt_error(x):
    """A relative error: 0 when exact, else two significant digits."""
    if math.isnan(x):
        return "—"
    if math.isinf(x) or x == 0:
        return "∞" if x else "0"
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{x:.1e}").replace("e+", "e")


def fmt_us(ms):
    us = ms * 1000
    return f"{us:.0f}" if us >= 100 else f"{us:.1f}"


def measured_on(device):
    return (f"Measured on **{device['device']}** (compute capability {device.get('compute_capability', '?')}, "
            f"{device.get('sms', '?')} SMs), CUDA {device['cuda']}, {device['date']}")


def label(method):
    return METHODS[method][0] if method in METHODS else method


def errors_by(errors):
    """{kind: {n: {method: row}}}"""
    out = {}
    for row in errors:
        out.setdefault(row["kind"], {}).setdefault(int(row["n"]), {})[row["method"]] = row
    return out


def errors_block(errors, device, readme_dir, root):
    data = errors_by(errors)
    out = [f"{measured_on(device)}: 12_accuracy/bench/error_study.cu, one run of each method on the same floats. "
           "Relative error |result − S| / |S| against the exact sum S (common/exact_sum.h); \"0\" is the exact sum, "
           "correctly rounded. Dashed in the plots: the bound that each method's chain length gives "
           "(common/reference.h; CUB's rests on 10's assumption about its order).", ""]
    for kind in (k for k in KINDS if k in data):
        methods = [m for m in METHODS if any(m in by_method for by_method in data[kind].values())]
        rows = [[power(n)] + [fmt_error(num(data[kind][n][m]["rel_error"])) if m in data[kind][n] else "—"
                              for m in methods] for n in sorted(data[kind])]
        image = os.path.relpath(os.path.join(root, "docs", "images", f"accuracy_error_{kind}.svg"), readme_dir)
        out += [f"**{kind}** ({KINDS[kind]})", "", table(["N"] + [label(m) for m in methods], None, rows), "",
                f"![relative error against N, {kind} data]({image})", ""]
    twelve = [r for r in errors if r["method"] == "12"]
    if twelve:
        worst = max(twelve, key=lambda r: num(r["ulps"]))
        out.append(f"12's result was at most {num(worst['ulps']):.3g} ulps from the correctly rounded sum over all "
                   f"{len(twelve)} inputs (the largest: {worst['kind']} data, N = {power(worst['n'])}); target "
                   f"2 ulps: {'met' if num(worst['ulps']) <= 2 else 'not met'}.")
    return "\n".join(out).rstrip()


def time_block(times, errors, device):
    by_n = {}
    for row in times:
        by_n.setdefault(int(row["n"]), {})[row["method"]] = row
    methods = [m for m in GPU_METHODS if any(m in r for r in by_n.values())]
    rows = []
    for n, r in sorted(by_n.items()):
        ratio = num(r["12"]["median_ms"]) / num(r["09"]["median_ms"]) if "12" in r and "09" in r else math.nan
        rows.append([power(n)] + [fmt_us(num(r[m]["median_ms"])) if m in r else "—" for m in methods]
                    + ["—" if math.isnan(ratio) else f"{ratio:.3f}×"])
    out = [f"{measured_on(device)}: the GPU methods on the positive data, interleaved within each repetition, "
           f"median of {device['reps']}, L2 flushed before each (µs; the atomicAdd variant's time includes "
           "zeroing its result).", "", table(["N"] + [label(m) for m in methods] + ["12 / 09"], None, rows), ""]
    if by_n:  # time against error at the largest size
        data, n = errors_by(errors), max(by_n)
        rows = [[label(m), fmt_us(num(by_n[n][m]["median_ms"])) if m in by_n[n] else "CPU, not timed"]
                + [fmt_error(num(data[k][n][m]["rel_error"])) if m in data.get(k, {}).get(n, {}) else "—"
                   for k in KINDS] for m in METHODS]
        out += [f"Time and error at N = {power(n)}:", "",
                table(["method", "µs"] + [f"error, {k}" for k in KINDS], None, rows)]
    return "\n".join(out)


def repro_block(repro, device):
    runs = [r for r in repro if r["case"] == "runs"]
    grids = [r for r in repro if r["case"] == "grid"]
    out = [f"{measured_on(device)}: positive data."]
    if runs:
        rows = [[label(r["method"]), "CUB's choice" if r["method"] == "cub" else f"{r['block']} × {r['grid']}",
                 r["runs"], r["distinct"], ", ".join(map(g9, r["values"]))] for r in runs]
        out += ["", f"The same input, N = {power(runs[0]['n'])}, run again and again:", "",
                table(["method", "block × grid", "runs", "distinct results (bit patterns)", "results"],
                      ["---", "---:", "---:", "---:", "---"], rows)]
    if grids:
        rows = [[label(r["method"]), f"{r['block']} × {r['grid']}", g9(r["value"]), f"`{r['bits']}`",
                 fmt_error(num(r["rel_error"]))] for r in grids]
        bits = {m: {r["bits"] for r in grids if r["method"] == m} for m in dict.fromkeys(r["method"] for r in grids)}
        verdicts = [f"{m}: {'the same bits' if len(b) == 1 else 'different bits'}" for m, b in bits.items()]
        out += ["", f"The same input, N = {power(grids[0]['n'])}, with the default grid and half of it:", "",
                table(["method", "block × grid", "result", "bits", "relative error"],
                      ["---", "---:", "---:", "---", "---:"], rows), "", "Two grids: " + "; ".join(verdicts) + "."]
    return "\n".join(out)


def vs09_block(runs):
    """12 against 09 in the tour's sweep of the runs (one per machine): the times the median over
    the machines, the ratio and the verdict the worst machine's; None without such sizes."""
    per_run = [{dtype: sweep["table"] for dtype, sweep in run["sweeps"].items()} for run in runs]
    sweeps = [s for run in runs for s in run["sweeps"].values()]
    rows = []
    for dtype in ("int", "float"):
        sizes = set.intersection(*[set(run.get(dtype, {}).get("12_accuracy", {})) for run in per_run]) if runs else ()
        for n in sorted(sizes):
            if n < 1 << 24 or any(n not in run[dtype].get("09_single_pass", {}) for run in per_run):
                continue
            nine = [run[dtype]["09_single_pass"][n]["ms"] for run in per_run]
            twelve = [run[dtype]["12_accuracy"][n]["ms"] for run in per_run]
            worst = max(b / a for a, b in zip(nine, twelve))
            rows.append([dtype, power(n), fmt_us(statistics.median(nine)), fmt_us(statistics.median(twelve)),
                         f"{worst:.3f}×", "met" if worst <= TIME_TARGET else "not met"])
    if not rows:
        return None
    devices = ", ".join(sorted({f"{s['device']}, CUDA {s['cuda']}" for s in sweeps}))
    dates = ", ".join(sorted({s["date"] for s in sweeps}))
    reps = "/".join(sorted({str(s.get("reps", "?")) for s in sweeps}))
    return (f"From the tour's sweep on {len(runs)} separately started machine{'s' if len(runs) != 1 else ''} "
            f"({devices}; {dates}; each size one `tour` run per machine, median of {reps}, L2 flushed): 12 against "
            f"09 at N = 2^24 and up, where 12 aims to stay within {TIME_TARGET:.2f}× of 09's time. Times: the median "
            "over the machines; the ratio: the worst machine.\n\n"
            + table(["type", "N", "09 µs", "12 µs", "12 / 09, worst machine", "target"],
                    ["---", "---:", "---:", "---:", "---:", "---"], rows))


def ncu_block(folder, device):
    import ncu_table  # tools/ncu_table.py

    launches = []
    for chapter in ("09_single_pass", "12_accuracy"):
        path = os.path.join(folder, f"ncu_{chapter}_float.csv")
        for rec in ncu_table.read_launches(path) if os.path.exists(path) else []:
            name = rec.get("Kernel Name", "")
            if "busy" not in name and "spin" not in name:
                launches.append(dict(rec, **{"Kernel Name": f"{chapter}: " + ncu_table.short_kernel(name)}))
    if not launches:
        return None
    columns = ncu_table.columns_for("12_accuracy", launches)
    text = ncu_table.table(launches, columns).replace("`", "")
    cmd = ncu_table.command_for("12_accuracy", columns).replace("--n 2^24", "--n 2^24 --type float")
    return (f"Nsight Compute on the {device['device']}, CUDA {device['cuda']}, {device['date']}, "
            f"`--clock-control none`; 2^24 floats, one run's launches.\n\n{text}\n\nCommand (and the same for "
            f"09_single_pass): `{cmd}`.")


def plot(kind, rows, path, device):
    """Relative error against N, log-log: a solid line per method, its bound dashed; exact
    results (error 0) on a row of their own under the decades."""
    by_method = {}
    for row in sorted(rows, key=lambda r: (int(r["n"]), num(r["rel_error"]), num(r["bound"]))):
        by_method.setdefault(row["method"], []).append((int(row["n"]), num(row["rel_error"]), num(row["bound"])))
    values = [v for pts in by_method.values() for _, e, b in pts for v in (e, b) if v > 0 and math.isfinite(v)]
    lo = math.floor(math.log10(min(values + [1e-8])))
    hi = min(math.ceil(math.log10(max(values + [1e-6]))), 0)
    ns = sorted({int(r["n"]) for r in rows})
    k_lo, k_hi = ns[0].bit_length() - 1, ns[-1].bit_length() - 1
    exact = 10.0 ** (lo - 1)  # where an error of 0 is drawn, under a gap
    series = []
    for method, (name, colour) in METHODS.items():
        points = [(n, e, b) for n, e, b in by_method.get(method, []) if math.isfinite(e)]
        if not points:
            continue
        # Consecutive nonzero errors are joined; exact results are hollow dots on their own row.
        series.append({"x": [n for n, _, _ in points], "color": colour, "label": name, "width": 1.8,
                       "y": [min(e, 10.0 ** hi) if e > 0 else None for _, e, _ in points]})
        zeros = [n for n, e, _ in points if e == 0]
        if zeros:
            series.append({"x": zeros, "y": [exact] * len(zeros), "color": colour, "label": name + " (exact)",
                           "width": 0, "marker_size": 5.5, "hollow": True, "in_legend": False})
        bound = [(n, b) for n, _, b in points if math.isfinite(b) and 0 < b <= 10.0 ** hi]
        if len(bound) > 1:
            series.append({"x": [n for n, _ in bound], "y": [b for _, b in bound], "color": colour, "width": 1.2,
                           "label": name + " (bound)", "style": "--", "marker_size": 0, "alpha": 0.7,
                           "in_legend": False})
    decades = list(range(lo, hi + 1))
    y_labels = [text if len(decades) <= 10 or (d - lo) % 2 == 0 else ""
                for d, text in zip(decades, plots.power_labels(10, decades))]
    plots.line_plot(path, f"Relative error against N: {kind} data",
                    [KINDS[kind], f"{device['device']}, CUDA {device['cuda']}, {device['date']}; dashed: the bound "
                     "from each method's chain length"], series, "N (elements)", "relative error",
                    [1 << k for k in range(k_lo, k_hi + 1, 2)], plots.power_labels(2, range(k_lo, k_hi + 1, 2)),
                    (10.0 ** (lo - 1.5), 10.0 ** (hi + 0.2)), y_log=True, y_gap=10.0 ** (lo - 0.5), size=(10.0, 5.6),
                    y_ticks=[exact] + [10.0 ** d for d in decades], y_labels=["0 (exact)"] + y_labels)


def fill(dirs, root, runs=()):
    """Draws the plots and fills the blocks from the first run that holds the study (accuracy/),
    and 12 against 09 from the tour's sweep runs. Returns the paths written."""
    folder = next(os.path.join(d, "accuracy") for d in dirs if os.path.isdir(os.path.join(d, "accuracy")))
    device = read_device(os.path.join(folder, "device.json"))
    device["cuda"] = cuda_with_driver(device["cuda"], os.path.dirname(folder))  # gpu_suite.sh's gpu.txt
    errors, times, repro = (read_study(folder, name) for name in COLUMNS)
    tuning, images = os.path.join(root, "docs", "tuning.md"), os.path.join(root, "docs", "images")
    os.makedirs(images, exist_ok=True)
    jobs = []
    for kind in (k for k in KINDS if any(r["kind"] == k for r in errors)):
        path = os.path.join(images, f"accuracy_error_{kind}.svg")
        jobs.append((path, plot, (kind, [r for r in errors if r["kind"] == kind], path, device)))
    written = plots.draw(jobs, "fill_accuracy.py")
    blocks = {  # marker: (the page it is in, its text)
        "accuracy:errors": (tuning, errors_block(errors, device, os.path.dirname(tuning), root)),
        "accuracy:time": (tuning, time_block(times, errors, device) if times else None),
        "accuracy:repro": (tuning, repro_block(repro, device) if repro else None),
        "accuracy:vs09": (tuning, vs09_block(runs)),
        "accuracy:ncu": (os.path.join(root, "12_accuracy", "README.md"), ncu_block(folder, device)),
    }
    for marker, (page, text) in blocks.items():
        if text is None:
            print(f"fill_accuracy: no data for {marker}; block left as it was", file=sys.stderr)
        elif fill_file(page, marker, text.rstrip() + "\n"):
            written.append(f"{page} ({marker})")
        else:
            print(f"fill_accuracy: no block {marker} in {os.path.relpath(page, root)}", file=sys.stderr)
    return written
