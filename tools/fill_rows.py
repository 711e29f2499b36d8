#!/usr/bin/env python3
"""fill_rows.py: the rows chapters' blocks and plots from tools/rows_bench.sh's runs, for tools/publish.py.

Two kinds of run, each a folder holding rows/gpu.txt and rows/NN_name/rows_sweep.json (a chapter's --sweep):
"rows", the sweeps of 13-16 and rows/example.txt (fill), and "split_rows", 18's sweep, the longest (fill_split).
A point's time is the median over the machines of each machine's median. Plots:
docs/images/rows_crossover_{type}.svg (16), rows_split_{type}.svg (18).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import (DataError, caption, describe_runs, differs, machine, median_over_machines,  # noqa: E402
                     joined_head, power_label, read_jsonl, rel_link, table, write_blocks)
import chapters  # noqa: E402
import plots  # noqa: E402

CHAPTERS = tuple(chapters.folders("rows"))  # chapters.txt
SPLIT = "18_split_rows"  # few long rows: M from 1 to 4096; its sweep (the longest) is a kind of run of its own
WHOLE = "16_short_rows"  # the chapter whose sweep has every method
ROW_CHAPTERS = tuple(c for c in CHAPTERS if c != SPLIT)  # the kind "rows"; SPLIT's is "split_rows"
OURS = ("thread", "group", "warp", "block")
OPS = ("sum", "max", "argmax", "meanvar")
# The plots' lines: (method, op, colour, label, width, style), in the legend's order; drawn from the last up.
CROSSOVER_LINES = [("auto", "sum", "#6a3d9a", "auto (the whole rule)", 3.2, "-"),
                   ("thread", "sum", "#d62728", "thread per row (16)", 1.6, "-"),
                   ("group", "sum", "#ff7f0e", "group of lanes (15)", 1.6, "-"),
                   ("warp", "sum", "#2ca02c", "warp per row (15)", 1.6, "-"),
                   ("block", "sum", "#1f77b4", "block per row (14)", 1.6, "-"),
                   ("cub_segmented", "sum", "#111111", "cub::DeviceSegmentedReduce", 1.6, "--"),
                   ("cub_block", "sum", "#8c8c8c", "cub Warp/BlockReduce", 1.6, "--"),
                   ("floor", "-", "#555555", "read-only floor", 1.6, ":")]
SPLIT_LINES = [("auto", "sum", "#6a3d9a", "18: sum", 3.2, "-"), ("auto", "max", "#1f77b4", "18: max", 1.6, "-"),
               ("auto", "argmax", "#d62728", "18: argmax", 1.6, "-"),
               ("auto", "meanvar", "#2ca02c", "18: mean, variance", 1.6, "-"),
               ("previous", "sum", "#ff7f0e", "16's rule: sum", 1.6, "--"),
               ("cluster", "sum", "#8c564b", "18 in a cluster: sum", 1.6, ":"),
               ("cub_segmented", "sum", "#111111", "cub::DeviceSegmentedReduce", 1.6, "--")]
WRONG_NOTE = "⚠: a WRONG result; its time is shown but does not count."


def load_sweep(run_dir, chapter):
    """A chapter's rows_sweep.json of one run, checked, with the machine's facts (rows/gpu.txt)."""
    path = os.path.join(run_dir, "rows", chapter, "rows_sweep.json")
    try:
        with open(path, encoding="utf-8") as f:
            sweep = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise DataError(f"cannot read {path}: {e}")
    sweep = joined_head(sweep)
    missing = {k for k in ("chapter", "device", "cuda", "date", "elements", "reps", "flush", "rows") if k not in sweep}
    missing |= {k for row in sweep.get("rows", [])
                for k in ("type", "k", "m", "op", "method", "median_ms", "gbps", "ok")
                if k not in row}
    if missing:
        raise DataError(f"{path}: no {', '.join(sorted(missing))} (is this a rows chapter's --sweep file?)")
    sweep["facts"] = machine(os.path.join(run_dir, "rows"), sweep)
    return sweep


def combine(sweeps):
    """One sweep from the machines' sweeps: each point's ms, GB/s and share of the floor the median over the
    machines (each machine's in run_ms and run_gbps, the plots' bands), "ok" only if every machine's was;
    "table" holds the rows by (type, K) and (method, op), "facts" each machine's facts."""
    points = {}
    for sweep in sweeps:
        for row in sweep["rows"]:
            points.setdefault((row["type"], row["k"], row["op"], row["method"]), []).append(row)
    combined = dict(sweeps[0], rows=[], table={}, facts=[s["facts"] for s in sweeps])
    for same in points.values():
        if len(same) == len(sweeps):  # not a point that some machine did not measure
            row = dict(same[0], ok=all(r["ok"] for r in same), run_ms=[r["median_ms"] for r in same],
                       run_gbps=[r["gbps"] for r in same])
            row.update({key: median_over_machines(r[key] for r in same)
                        for key in ("median_ms", "gbps", "percent_of_floor") if key in row})
            combined["rows"].append(row)
            combined["table"].setdefault((row["type"], row["k"]), {})[(row["method"], row["op"])] = row
    combined["types"] = [t for t in ("float", "half", "bf16") if any(r["type"] == t for r in combined["rows"])]
    combined["ks"] = sorted({r["k"] for r in combined["rows"]})
    return combined


def get(sweep, dtype, k, method, op="sum"):
    return sweep["table"].get((dtype, k), {}).get((method, "-" if method == "floor" else op))


def us(row):
    return "—" if row is None else f"{row['median_ms'] * 1000:.1f}"


def ratio(a, b):
    """a's time over b's: "1.09×"; "—" where either is missing."""
    return "—" if a is None or b is None or b["median_ms"] <= 0 else f"{a['median_ms'] / b['median_ms']:.2f}×"


def mark(row):
    """" ⚠" after a WRONG result; " †" instead for CUB's segmented sum of a row of 2^24 or more elements,
    which the harness cannot verify (said under 18's table)."""
    if row is None or row["ok"]:
        return ""
    return " †" if row["method"] == "cub_segmented" and row["k"] >= 1 << 24 else " ⚠"


def of_floor(row, floor):
    """A time's share of the read-only floor's bandwidth: "97%"; None where either is missing."""
    if row is None or floor is None or row["median_ms"] <= 0:
        return None
    return f"{100.0 * floor['median_ms'] / row['median_ms']:.0f}%"


def cell(row, floor=None):
    """A time in µs with its mark and, given the floor, its share of it: "92.4 ⚠ (98%)"."""
    share = of_floor(row, floor)
    return "—" if row is None else us(row) + mark(row) + ("" if share is None else f" ({share})")


def intro(sweep, page, root, legend):
    """A block's first line (results.caption: the machines, the chapter's sweep, the link to how it is measured)
    and the legend of its columns; the WRONG note where a time is wrong."""
    what = f"`{sweep['chapter']} --sweep`, M × K = {power_label(sweep['elements'])} elements"
    what += differs(sweep["reps"], sweep["flush"], len(sweep["facts"]) < 2)
    wrong = [WRONG_NOTE, ""] if any(mark(r) == " ⚠" for r in sweep["rows"]) else []
    return [caption(sweep["facts"], what, page, root) + " " + legend, ""] + wrong


def per_type(sweep, ks, lines, header, aligns, row_of, head=None):
    """lines, then a table per type of the sweep: a row for each K for which row_of(dtype, K) gives cells."""
    for dtype in sweep["types"]:
        rows = [cells for cells in (row_of(dtype, k) for k in ks) if cells]
        lines += (head(dtype) if head else [f"**{dtype}**", ""]) + [table(header, aligns, rows), ""]
    return "\n".join(lines).rstrip()


def image(sweep, page, root, name, dtype):
    """The Markdown of a plot: ![what it shows](docs/images/NAME_TYPE.svg, relative to the page)."""
    alt = {"rows_crossover": "GB/s against K", "rows_split": "% of the read-only floor against M"}[name]
    path = rel_link(page, os.path.join(root, "docs", "images", f"{name}_{dtype}.svg"))
    return f"![{alt} at M × K = {power_label(sweep['elements'])}, {dtype}]({path})"


def crossover_block(sweep, readme, root, methods, with_plots=False):
    """Every K of the sweep: the methods' times (the fastest of `methods` in bold), auto's
    choice and its share of the floor, CUB and the floor."""
    names = {"previous": "14's warp or block"}  # 15's sweep: 14's auto on the same input
    legend = ("Times in µs; the fastest of " + ", ".join(names.get(m, m) for m in methods) + " in bold; \"auto\" is "
              "what the chapter's rule picks, with its share of the read-only floor's bandwidth.")

    def row_of(dtype, k):
        ours = [get(sweep, dtype, k, m) for m in methods]
        best = min((r["median_ms"] for r in ours if r is not None), default=None)
        if best is None:
            return None
        auto, floor = get(sweep, dtype, k, "auto"), get(sweep, dtype, k, "floor")
        return ([str(k), str(next(r for r in ours if r is not None)["m"])]
                + [f"**{cell(r)}**" if r is not None and r["median_ms"] == best else cell(r) for r in ours]
                + [auto["plan"].replace("chooses ", "") if auto else "—", cell(auto, floor)]
                + [cell(get(sweep, dtype, k, m)) for m in ("cub_segmented", "cub_block")] + [us(floor)])

    def head(dtype):
        return ([image(sweep, readme, root, "rows_crossover", dtype), ""] if with_plots else []) + [f"**{dtype}**", ""]

    return per_type(sweep, sweep["ks"], intro(sweep, readme, root, legend),
                    ["K", "M"] + [names.get(m, m) for m in methods] +
                    ["auto picks", "auto (% of floor)", "cub_segmented", "cub_block", "floor"],
                    ["---:", "---:"] + ["---:"] * len(methods) + ["---", "---:", "---:", "---:", "---:"], row_of, head)


def ops_block(sweep, readme, root, previous=None):
    """Each operator with the method auto picks, its time beside the sum's on the same input; with
    `previous`, that method's sum first (14: 13's kernel)."""
    legend = ("Each operator with the method auto picks, interleaved with the sum on the same input; \"× sum\" is "
              "its time over the sum's." + (" \"13's sum\": 13_rows's kernel on the same input (float only)."
                                            if previous else ""))

    def row_of(dtype, k):
        total = get(sweep, dtype, k, "auto")
        others = [get(sweep, dtype, k, "auto", op) for op in OPS[1:]]
        if total is None or not any(others):
            return None
        return ([str(k)] + ([us(get(sweep, dtype, k, previous))] if previous else []) + [cell(total)]
                + ["—" if r is None else f"{us(r)} ({ratio(r, total)})" + mark(r) for r in others])

    return per_type(sweep, sweep["ks"], intro(sweep, readme, root, legend),
                    ["K"] + (["13's sum µs"] if previous else []) +
                    ["sum µs", "max µs (× sum)", "argmax µs (× sum)", "meanvar µs (× sum)"],
                    ["---:"] * (6 if previous else 5), row_of)


def split_block(sweep, readme, root):
    """18's table: at every M, 16's rule, 18, the cluster, CUB and 09 with their shares of the floor."""
    lines = intro(sweep, readme, root, "Times in µs, with the share of the read-only floor's bandwidth; \"16's "
                  "rule\": 16_short_rows's auto (a block per row here); \"18\": this chapter's auto; \"cluster\": "
                  "18's pieces combined in a thread-block cluster instead of by the ticket (`--method cluster`); "
                  "\"09\": 09_single_pass summing the one row as an array (M = 1, float).")
    if any(mark(r) == " †" for r in sweep["rows"]):
        lines += ["†: CUB's order is its own, so the only error bound that holds for it is that of a chain of K "
                  "additions, which bounds nothing from K = 2^24 on: the harness cannot verify these sums and counts "
                  "them as wrong.", ""]

    def row_of(dtype, k):
        floor, ours, before = (get(sweep, dtype, k, m) for m in ("floor", "auto", "previous"))
        if ours is None or floor is None:
            return None
        return ([str(ours["m"]), str(k), cell(before, floor), cell(ours, floor), ratio(before, ours)]
                + [cell(get(sweep, dtype, k, m), floor) for m in ("cluster", "cub_segmented", "single_pass")]
                + [us(floor)])

    def head(dtype):
        return [f"**{dtype}**", "", image(sweep, readme, root, "rows_split", dtype), ""]

    return per_type(sweep, sorted(sweep["ks"], reverse=True), lines,
                    ["M", "K", "16's rule", "18", "18 × faster", "cluster", "cub_segmented", "09", "floor"],
                    ["---:"] * 9, row_of, head)


def split_ops_block(sweep, readme, root):
    """18's every operator at every M as its share of the read-only floor; at M = 1 the float sum against 09."""
    lines = intro(sweep, readme, root, "Each operator with 18's auto, as its share of the read-only floor's "
                  "bandwidth; \"sum / 09\": the sum's time over 09_single_pass's on the same row (M = 1, float).")

    def row_of(dtype, k):
        floor, found = get(sweep, dtype, k, "floor"), [get(sweep, dtype, k, "auto", op) for op in OPS]
        if floor is None or found[0] is None:
            return None
        return ([str(found[0]["m"])] + [(of_floor(r, floor) or "—") + mark(r) for r in found]
                + [ratio(found[0], get(sweep, dtype, k, "single_pass"))])

    return per_type(sweep, sorted(sweep["ks"], reverse=True), lines,
                    ["M", "sum", "max", "argmax", "meanvar", "sum / 09"], ["---:"] * 6, row_of)


def plot(sweep, dtype, path, split=False):
    """16's plot, GB/s against K, or with `split` 18's, each operator's share of the read-only floor against M
    (log scale): a line per method, the machines' range as a light band, a red cross on a WRONG point."""
    size, specs = power_label(sweep["elements"]), SPLIT_LINES if split else CROSSOVER_LINES
    series = []
    for method, op, color, label, width, style in reversed(specs):  # the first drawn last, on top
        line = {"x": [], "y": [], "lo": [], "hi": [], "wrong": [], "color": color, "label": label, "width": width,
                "style": style, "bold": width > 2}
        for k in sweep["ks"]:
            row, floor = get(sweep, dtype, k, method, op), get(sweep, dtype, k, "floor")
            if row is None or split and (floor is None or row["median_ms"] <= 0):
                continue
            runs = row["run_gbps"] if not split else [100.0 * f / t for f, t in zip(floor["run_ms"], row["run_ms"])
                                                      if t > 0]
            lo, hi = plots.band(runs)
            y = min(100.0 * floor["median_ms"] / row["median_ms"], 110.0) if split else row["gbps"]
            for key, value in (("x", row["m"] if split else k), ("y", y), ("lo", lo), ("hi", hi),
                               ("wrong", mark(row) == " ⚠")):
                line[key].append(value)
        if line["x"]:
            series.append(line)
    xs = sorted({x for line in series for x in line["x"]})
    band = "; band: the machines' range" if len(sweep["facts"]) > 1 else ""
    legend = {"legend_title": "method", "legend_order": [spec[3] for spec in specs]}
    if split:
        plots.line_plot(path, f"{dtype} rows, % of the read-only floor at M × K = {size}: "
                        f"{describe_runs(sweep['facts'])}", ["floor time / method time; 100% is the speed of a kernel "
                                                             "that only reads the input" + band],
                        series, f"M, rows (log scale); K = {size} / M", "% of the read-only floor", xs,
                        [str(m) for m in xs], (0, 110), y_ticks=[0, 20, 40, 60, 80, 100], size=(11.0, 5.6), **legend)
        return
    top = max([sweep["peak_gbps"]] + [r["gbps"] for r in sweep["rows"] if r["type"] == dtype])
    plots.line_plot(path, f"{dtype} row sums, GB/s against K at M × K = {size}: {describe_runs(sweep['facts'])}",
                    ["every method interleaved; GB/s = input bytes / time (the results written are not counted)"
                     + band], series, "K, elements per row (log scale)", "GB/s (input bytes / median time)", xs,
                    plots.spaced_labels(xs), (0, top * 1.05), peak=sweep["peak_gbps"], **legend)


def fill(dirs, root):
    """Draws 16's plots and fills the blocks of 13-16 from the runs (folders with rows/NN_name/ of every
    chapter of ROW_CHAPTERS); returns what it wrote."""
    sweeps = {c: combine([load_sweep(d, c) for d in dirs]) for c in ROW_CHAPTERS}
    whole = sweeps[WHOLE]
    readme = {c: os.path.join(root, c, "README.md") for c in ROW_CHAPTERS}
    tuning = os.path.join(root, "docs", "tuning.md")
    written = draw(whole, "rows_crossover", root, False)
    blocks = [
        (readme["13_rows"], "results:13_rows",
         crossover_block(sweeps["13_rows"], readme["13_rows"], root, ("warp", "block"))),
        (readme["14_row_stats"], "results:14_row_stats",
         ops_block(sweeps["14_row_stats"], readme["14_row_stats"], root, previous="previous")),
        (readme["15_lane_groups"], "results:15_lane_groups",
         crossover_block(sweeps["15_lane_groups"], readme["15_lane_groups"], root, ("previous", "group"))),
        (readme[WHOLE], "results:16_short_rows", crossover_block(whole, readme[WHOLE], root, OURS, True)),
        (tuning, "results:rows_ops", ops_block(whole, tuning, root))]
    example = os.path.join(dirs[0], "rows", "example.txt")
    if os.path.exists(example):
        with open(example, encoding="utf-8") as f:
            blocks.append((readme[WHOLE], "results:16_short_rows_example", "```text\n" + f.read().rstrip() + "\n```"))
    return written + write_blocks(blocks, root, "fill_rows")


def fill_split(dirs, root):
    """Draws 18's plots and fills its blocks from the runs (folders with rows/18_split_rows/); returns what it
    wrote."""
    split = combine([load_sweep(d, SPLIT) for d in dirs])
    readme, tuning = os.path.join(root, SPLIT, "README.md"), os.path.join(root, "docs", "tuning.md")
    return draw(split, "rows_split", root, True) + write_blocks(
        [(readme, "results:18_split_rows", split_block(split, readme, root)),
         (tuning, "results:rows_split_ops", split_ops_block(split, tuning, root))], root, "fill_rows")


def draw(sweep, name, root, split):
    """docs/images/NAME_{type}.svg for each type of the sweep (plot); returns the paths drawn."""
    images = os.path.join(root, "docs", "images")
    os.makedirs(images, exist_ok=True)
    return plots.draw([(path, plot, (sweep, dtype, path, split)) for dtype in sweep["types"]
                       for path in [os.path.join(images, f"{name}_{dtype}.svg")]], "fill_rows.py")
