#!/usr/bin/env python3
"""fill_accuracy.py: chapter 12's error study into its README, docs/tuning.md and plots, for tools/publish.py.

Reads the accuracy/ folder that tools/accuracy_study.sh writes (errors.jsonl, times.jsonl, reproducibility.jsonl,
device.json, optional ncu_{09_single_pass,12_accuracy}_float.csv) and the run's gpu.txt beside it; draws
docs/images/accuracy_error_{positive,cancel,wide}.svg (relative error against N, with bounds).
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import (DataError, caption, describe_runs, differs, machine, power_label,  # noqa: E402
                     joined_head, read_jsonl, rel_link, table, write_blocks)
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
COLUMNS = {"device.json": ("device", "cuda", "date", "reps"),
           "errors.jsonl": ("kind", "n", "method", "rel_error", "ulps", "bound"),
           "times.jsonl": ("n", "method", "median_ms"),
           "reproducibility.jsonl": ("case", "method", "n", "distinct", "bits")}
STUDY = "12_accuracy/bench/error_study.cu"


def read_study(folder, name):
    """One of the study's files (device.json is one JSON line too), every line checked for its keys."""
    rows = read_jsonl(os.path.join(folder, name))
    if name == "device.json":  # the run head is its member "head" (common/run_head.h)
        rows = [joined_head(row) for row in rows]
    if any(k not in row for row in rows for k in COLUMNS[name]) or (name == "device.json" and not rows):
        raise DataError(f"{name}: expected the keys {', '.join(COLUMNS[name])} on every line")
    return rows


def g9(x):
    """A float result as the study printed it (9 significant digits)."""
    return x if isinstance(x, str) else f"{x:.9g}"


def num(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def fmt_error(value):
    """A relative error with two significant digits: "3.4e-7"; "0" when exact, "—" when unknown."""
    x = num(value)
    if math.isnan(x) or math.isinf(x) or x == 0:
        return "—" if math.isnan(x) else "∞" if x else "0"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def fmt_us(ms):
    us = num(ms) * 1000
    return f"{us:.0f}" if us >= 100 else f"{us:.1f}"


def label(method):
    return METHODS[method][0] if method in METHODS else method


def by_n(rows, kind=None):
    """{n: {method: row}} of the rows (of one kind of data)."""
    out = {}
    for row in rows:
        if kind is None or row["kind"] == kind:
            out.setdefault(row["n"], {})[row["method"]] = row
    return out


def errors_block(errors, facts, page, root):
    """Every kind and size: each method's relative error, with the plot of each kind."""
    out = [caption([facts], f"{STUDY}, one run of each method on the same floats", page, root)
           + " Relative error |result − S| / |S| against the exact sum S (common/exact_sum.h); \"0\" is the exact "
           "sum, correctly rounded. Dashed in the plots: the bound that each method's chain length gives "
           "(common/reference.h; CUB's rests on 10's assumption about its order).", ""]
    for kind in (k for k in KINDS if any(r["kind"] == k for r in errors)):
        data = by_n(errors, kind)
        methods = [m for m in METHODS if any(m in by_method for by_method in data.values())]
        rows = [[power_label(n)] + [fmt_error(data[n][m]["rel_error"]) if m in data[n] else "—" for m in methods]
                for n in sorted(data)]
        image = rel_link(page, os.path.join(root, "docs", "images", f"accuracy_error_{kind}.svg"))
        out += [f"**{kind}** ({KINDS[kind]})", "", table(["N"] + [label(m) for m in methods], None, rows), "",
                f"![relative error against N, {kind} data]({image})", ""]
    twelve = [r for r in errors if r["method"] == "12"]
    if twelve:
        worst = max(twelve, key=lambda r: num(r["ulps"]))
        out.append(f"12's result was at most {num(worst['ulps']):.3g} ulps from the correctly rounded sum over all "
                   f"{len(twelve)} inputs (the largest: {worst['kind']} data, N = {power_label(worst['n'])}).")
    return "\n".join(out).rstrip()


def time_block(times, errors, facts, reps, page, root):
    """The GPU methods' times at every size, then time and error of every method at the largest size."""
    times = by_n(times)
    methods = [m for m in GPU_METHODS if any(m in r for r in times.values())]
    rows = []
    for n, r in sorted(times.items()):
        ratio = num(r["12"]["median_ms"]) / num(r["09"]["median_ms"]) if "12" in r and "09" in r else math.nan
        rows.append([power_label(n)] + [fmt_us(r[m]["median_ms"]) if m in r else "—" for m in methods]
                    + ["—" if math.isnan(ratio) else f"{ratio:.3f}×"])
    out = [caption([facts], f"{STUDY}'s GPU methods on the positive data" + differs(reps), page, root)
           + " Times in µs; the atomicAdd variant's includes zeroing its result.", "",
           table(["N"] + [label(m) for m in methods] + ["12 / 09"], None, rows), ""]
    if times:  # time against error at the largest size
        n = max(times)
        data = {k: by_n(errors, k).get(n, {}) for k in KINDS}
        rows = [[label(m), fmt_us(times[n][m]["median_ms"]) if m in times[n] else "CPU, not timed"]
                + [fmt_error(data[k][m]["rel_error"]) if m in data[k] else "—" for k in KINDS] for m in METHODS]
        out += [f"Time and error at N = {power_label(n)}:", "",
                table(["method", "µs"] + [f"error, {k}" for k in KINDS], None, rows)]
    return "\n".join(out)


def repro_block(repro, facts, page, root):
    """The same input run again and again, and with the default grid and half of it: the bits each gave."""
    runs = [r for r in repro if r["case"] == "runs"]
    grids = [r for r in repro if r["case"] == "grid"]
    out = [caption([facts], f"{STUDY} on the positive data", page, root)]
    if runs:
        rows = [[label(r["method"]), "CUB's choice" if r["method"] == "cub" else f"{r['block']} × {r['grid']}",
                 r["runs"], r["distinct"], ", ".join(map(g9, r["values"]))] for r in runs]
        out += ["", f"The same input, N = {power_label(runs[0]['n'])}, run again and again:", "",
                table(["method", "block × grid", "runs", "distinct results (bit patterns)", "results"],
                      ["---", "---:", "---:", "---:", "---"], rows)]
    if grids:
        rows = [[label(r["method"]), f"{r['block']} × {r['grid']}", g9(r["value"]), f"`{r['bits']}`",
                 fmt_error(r["rel_error"])] for r in grids]
        bits = {m: {r["bits"] for r in grids if r["method"] == m} for m in dict.fromkeys(r["method"] for r in grids)}
        verdicts = [f"{m}: {'the same bits' if len(b) == 1 else 'different bits'}" for m, b in bits.items()]
        out += ["", f"The same input, N = {power_label(grids[0]['n'])}, with the default grid and half of it:", "",
                table(["method", "block × grid", "result", "bits", "relative error"],
                      ["---", "---:", "---:", "---", "---:"], rows), "", "Two grids: " + "; ".join(verdicts) + "."]
    return "\n".join(out)


def ncu_block(folder, facts, page, root):
    """Nsight Compute on 09 and 12 at 2^24 floats (the study's ncu_*_float.csv); None without them."""
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
    return (caption([facts], "Nsight Compute, 2^24 floats", page, root)
            + f"\n\n{text}\n\nCommand (and the same for 09_single_pass): `{cmd}`.")


def plot(kind, rows, path, facts):
    """Relative error against N, log-log: a solid line per method, its bound dashed; exact
    results (error 0) on a row of their own under the decades."""
    by_method = {}
    for row in sorted(rows, key=lambda r: (r["n"], num(r["rel_error"]), num(r["bound"]))):
        by_method.setdefault(row["method"], []).append((row["n"], num(row["rel_error"]), num(row["bound"])))
    values = [v for pts in by_method.values() for _, e, b in pts for v in (e, b) if v > 0 and math.isfinite(v)]
    lo = math.floor(math.log10(min(values + [1e-8])))
    hi = min(math.ceil(math.log10(max(values + [1e-6]))), 0)
    ns = sorted({r["n"] for r in rows})
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
                    [KINDS[kind], f"{describe_runs([facts])}; dashed: the bound from each method's chain length"],
                    series, "N (elements)", "relative error",
                    [1 << k for k in range(k_lo, k_hi + 1, 2)], plots.power_labels(2, range(k_lo, k_hi + 1, 2)),
                    (10.0 ** (lo - 1.5), 10.0 ** (hi + 0.2)), y_log=True, y_gap=10.0 ** (lo - 0.5), size=(10.0, 5.6),
                    y_ticks=[exact] + [10.0 ** d for d in decades], y_labels=["0 (exact)"] + y_labels)


def fill(dirs, root):
    """Draws the plots and fills the blocks from the first run that holds the study (accuracy/), on the
    machine that its gpu.txt, else device.json, describes. Returns the paths written."""
    folder = next(os.path.join(d, "accuracy") for d in dirs if os.path.isdir(os.path.join(d, "accuracy")))
    device, errors, times, repro = (read_study(folder, name) for name in COLUMNS)
    device = device[0]
    facts = machine(os.path.dirname(folder), device)
    tuning, readme = os.path.join(root, "docs", "tuning.md"), os.path.join(root, "12_accuracy", "README.md")
    os.makedirs(os.path.join(root, "docs", "images"), exist_ok=True)
    written = plots.draw([(path, plot, (kind, [r for r in errors if r["kind"] == kind], path, facts))
                          for kind in KINDS if any(r["kind"] == kind for r in errors)
                          for path in [os.path.join(root, "docs", "images", f"accuracy_error_{kind}.svg")]],
                         "fill_accuracy.py")
    return written + write_blocks([
        (tuning, "accuracy:errors", errors_block(errors, facts, tuning, root)),
        (tuning, "accuracy:time", time_block(times, errors, facts, device["reps"], tuning, root) if times else None),
        (tuning, "accuracy:repro", repro_block(repro, facts, tuning, root) if repro else None),
        (readme, "accuracy:ncu", ncu_block(folder, facts, readme, root))], root, "fill_accuracy")
