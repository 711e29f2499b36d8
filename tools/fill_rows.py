#!/usr/bin/env python3
"""fill_rows.py: the rows chapters' blocks and plots from tools/rows_bench.sh's runs, for tools/publish.py.

Each run (one per separately started machine) holds rows/NN_name/rows_sweep.json (each chapter's --sweep),
rows/18_split_rows/argmax_copy.jsonl and rows/example.txt. A point's time is the median over the machines
of each machine's median. Plots: docs/images/rows_crossover_{type}.svg (16) and rows_split_{type}.svg (18).
"""

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import DataError, cuda_with_driver, fill_file, how_link, read_jsonl, table  # noqa: E402
import plots  # noqa: E402

CHAPTERS = ("13_rows", "14_row_stats", "15_lane_groups", "16_short_rows", "18_split_rows")
SPLIT = "18_split_rows"  # few long rows: M from 1 to 4096 at M x K = 2^26
WHOLE = "16_short_rows"  # the chapter whose sweep has every method, and the targets
OURS = ("thread", "group", "warp", "block")
CUB = ("cub_segmented", "cub_block")
METHODS = {  # method: (its label in the crossover plot, its colour), in drawing order
    "floor": ("read-only floor", "#555555"), "thread": ("thread per row (16)", "#d62728"),
    "group": ("group of lanes (15)", "#ff7f0e"), "warp": ("warp per row (15)", "#2ca02c"),
    "block": ("block per row (14)", "#1f77b4"), "cub_segmented": ("cub::DeviceSegmentedReduce", "#111111"),
    "cub_block": ("cub Warp/BlockReduce", "#8c8c8c"), "auto": ("auto (the whole rule)", "#6a3d9a")}
TYPE_BYTES = {"float": 4, "half": 2, "bf16": 2}
RESULT_BYTES = {"sum": 4, "max": 4, "argmax": 8, "meanvar": 8}  # rows::ValueIndex: a float and an int32
# 16's targets: the chosen method's share of the read-only floor by K, and its speed-up over CUB (cub_target).
FLOOR_TARGET = {1: 80, 3: 80, 33: 80, 1000: 80, 8: 90, 32: 90, 128: 90, 1024: 90, 8192: 90, 65536: 90}
OPS_TARGET = {"argmax": 1.2, "meanvar": 1.1}
# 18's targets: each operator's share of the floor at every M, and its sum at M = 1 against 09.
SPLIT_FLOOR_TARGET = {"sum": 90, "max": 90, "argmax": 85, "meanvar": 85}
SPLIT_SINGLE_PASS_TARGET = 1.05
WRONG_NOTE = "⚠: a WRONG result; its time is shown but does not count."


def cub_target(k):
    """The speed-up over cub::DeviceSegmentedReduce that 16 aims for at K, or None."""
    return 4.0 if k <= 128 else 1.3 if k == 1024 else 1.0 if k >= 8192 else None


def load_sweep(run_dir, chapter):
    path = os.path.join(run_dir, "rows", chapter, "rows_sweep.json")
    try:
        with open(path, encoding="utf-8") as f:
            sweep = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise DataError(f"cannot read {path}: {e}")
    for key in ("device", "cuda", "date", "peak_gbps", "rows"):
        if key not in sweep:
            raise DataError(f"{path}: no '{key}' (is this a rows chapter's --sweep file?)")
    for row in sweep["rows"]:
        for key in ("type", "k", "m", "op", "method", "ms", "gbps", "ok"):
            if key not in row:
                raise DataError(f"{path}: a row without '{key}'")
    sweep["cuda"] = cuda_with_driver(sweep["cuda"], os.path.join(run_dir, "rows"))  # rows_bench.sh's gpu.txt
    sweep["types"] = [t for t in ("float", "half", "bf16") if any(r["type"] == t for r in sweep["rows"])]
    sweep["ks"] = sorted({r["k"] for r in sweep["rows"]})
    return sweep


def combine(sweeps):
    """One sweep from the machines' sweeps: each point's ms and GB/s the median over the machines (each
    machine's kept in run_ms and run_gbps, the plots' bands), "ok" only if every machine's was, "spread"
    the largest relative range of a point's times, "table" the rows by (type, K) and (method, op)."""
    points = {}
    for sweep in sweeps:
        for row in sweep["rows"]:
            points.setdefault((row["type"], row["k"], row["op"], row["method"]), []).append(row)
    combined = dict(sweeps[0], rows=[], table={}, machines=len(sweeps), dates=sorted({s["date"] for s in sweeps}))
    spread = 0.0
    for same in points.values():
        if len(same) != len(sweeps):
            continue  # a point some machine did not measure
        times = [r["ms"] for r in same]
        row = dict(same[0], ms=statistics.median(times), gbps=statistics.median(r["gbps"] for r in same),
                   ok=all(r["ok"] for r in same), run_ms=times, run_gbps=[r["gbps"] for r in same])
        spread = max(spread, (max(times) - min(times)) / row["ms"])
        combined["rows"].append(row)
        combined["table"].setdefault((row["type"], row["k"]), {})[(row["method"], row["op"])] = row
    combined["spread"] = spread
    return combined


def us(row):
    return "—" if row is None else f"{row['ms'] * 1000:.1f}"


def ratio_text(r):
    return "—" if r is None else f"{r:.2f}×"


def verdict(ok):
    return "met" if ok else "not met"


def wrong_mark(row):
    return " ⚠" if row is not None and not row["ok"] else ""


def of_floor(row, floor):
    if row is None or floor is None or row["ms"] <= 0:
        return None
    return 100.0 * floor["ms"] / row["ms"]


def cell(row, floor=None, mark=wrong_mark):
    """A time in µs with its mark and, given the floor, its share of it: "92.4 ⚠ (98%)"."""
    share = of_floor(row, floor)
    return "—" if row is None else us(row) + mark(row) + ("" if share is None else f" ({share:.0f}%)")


def get(sweep, dtype, k, method, op="sum"):
    return sweep["table"].get((dtype, k), {}).get((method, "-" if method == "floor" else op))


def measured_on(sweep, readme, root):
    how = f"([how these are measured]({how_link(readme, root)}))"
    flush = "L2 flushed" if sweep.get("flush", True) else "L2 not flushed"
    start = f"`{sweep.get('chapter', '?')} --sweep` on "
    reps = f"the methods interleaved in each of {sweep.get('reps', '?')} repetitions"
    if sweep["machines"] > 1:
        return (f"{start}{sweep['machines']} separately started machines, **{sweep['device']}**, CUDA {sweep['cuda']}, "
                f"{', '.join(sweep['dates'])}: M × K = 2^26 elements, {reps}, {flush}; the median over the machines "
                f"of each machine's median, which differ by at most {100 * sweep['spread']:.1f}% {how}")
    return (f"{start}**{sweep['device']}**, CUDA {sweep['cuda']}, {sweep['date']}: M × K = 2^26 elements, {reps}, "
            f"median, {flush} {how}")


def image_link(root, readme, name):
    return os.path.relpath(os.path.join(root, "docs", "images", name), os.path.dirname(readme)).replace(os.sep, "/")


def per_type(types, ks, intro, header, aligns, row_of, head=None):
    """intro, then a table per type: a row for each K for which row_of(dtype, K) gives cells."""
    out = intro
    for dtype in types:
        rows = [cells for cells in (row_of(dtype, k) for k in ks) if cells]
        out += (head(dtype) if head else [f"**{dtype}**", ""]) + [table(header, aligns, rows), ""]
    return "\n".join(out).rstrip()


def crossover_block(sweep, root, readme, methods, names=None, plots=False):
    """Every K of the sweep: the methods' times (the fastest of `methods` in bold), auto's
    choice and its share of the floor, CUB and the floor."""
    names = names or {}
    intro = [measured_on(sweep, readme, root) + ". Times in µs; the fastest of " +
             ", ".join(names.get(m, m) for m in methods) + " in bold; \"auto\" is what the chapter's rule picks, "
             "with its share of the read-only floor's bandwidth.", ""]
    if any(not r["ok"] for r in sweep["rows"]):
        intro += [WRONG_NOTE, ""]

    def row_of(dtype, k):
        ours = [get(sweep, dtype, k, m) for m in methods]
        present = [r for r in ours if r is not None]
        if not present:
            return None
        best = min(r["ms"] for r in present)
        auto, floor = get(sweep, dtype, k, "auto"), get(sweep, dtype, k, "floor")
        return ([str(k), str(present[0]["m"])]
                + [f"**{cell(r)}**" if r is not None and r["ms"] == best else cell(r) for r in ours]
                + [auto["plan"].replace("chooses ", "") if auto else "—", cell(auto, floor)]
                + [cell(get(sweep, dtype, k, m)) for m in CUB] + [us(floor)])

    def head(dtype):
        image = f"![GB/s against K at M × K = 2^26, {dtype}]({image_link(root, readme, f'rows_crossover_{dtype}.svg')})"
        return ([image, ""] if plots else []) + [f"**{dtype}**", ""]

    return per_type(sweep["types"], sweep["ks"], intro,
                    ["K", "M"] + [names.get(m, m) for m in methods] +
                    ["auto picks", "auto (% of floor)", "cub_segmented", "cub_block", "floor"],
                    ["---:", "---:"] + ["---:"] * len(methods) + ["---", "---:", "---:", "---:", "---:"], row_of, head)


def targets_block(sweep, readme, root):
    intro = [measured_on(sweep, readme, root) + ". The targets of the rows chapters (16's whole rule): the chosen "
             "method within 90% of the read-only floor at K = 8, 32, 128, 1024, 8192, 65536 and within 80% at K = 1, "
             "3, 33, 1000; at least 4× cub::DeviceSegmentedReduce at K ≤ 128, 1.3× at K = 1024, 1× from 8192 up. "
             "\"write bound\": the most of the floor any kernel can reach if writing a result byte costs as much as "
             "reading an input byte (the floor only reads; at K = 1 a float sum writes as many bytes as it reads, a "
             "bf16 sum twice as many). On the H100 a written byte costs a little less than a read one, so a kernel "
             "can pass it slightly.", ""]

    def row_of(dtype, k):
        auto, floor, cub = (get(sweep, dtype, k, m) for m in ("auto", "floor", "cub_segmented"))
        if auto is None:
            return None
        share, target, needed = of_floor(auto, floor), FLOOR_TARGET.get(k), cub_target(k)
        speedup = cub["ms"] / auto["ms"] if cub and auto["ms"] > 0 else None
        size = k * TYPE_BYTES[dtype]  # the write bound: input bytes / (input + output bytes)
        return [str(k), auto["plan"].replace("chooses ", ""),
                "—" if share is None else f"{share:.1f}%" + wrong_mark(auto),
                f"{100.0 * size / (size + RESULT_BYTES['sum']):.0f}%",
                "—" if target is None or share is None else f"≥ {target}%: {verdict(share >= target)}",
                ratio_text(speedup),
                "—" if needed is None or speedup is None else f"≥ {needed:g}×: {verdict(speedup >= needed)}"]

    return per_type(sweep["types"], sweep["ks"], intro,
                    ["K", "auto picks", "% of floor", "write bound", "target", "vs cub_segmented", "target"],
                    ["---:", "---", "---:", "---:", "---", "---:", "---"], row_of)


def ops_block(sweep, readme, root, previous=None, targets=True):
    text = (". Each operator with the method auto picks, interleaved with the sum on the same input; \"× sum\" is "
            "its time over the sum's.")
    if targets:
        text += (" Targets: argmax within 1.2×, mean and variance within 1.1× of the sum. \"bound\": the \"× sum\" "
                 "that the bytes moved alone give, if writing a result byte costs as much as reading an input byte "
                 "(argmax writes 8 bytes per row, mean and variance 8, the sum 4: for mean and variance at K = 8 that "
                 "is above the target). On the H100 a written byte costs a little less than a read one, so a kernel "
                 "can come in slightly under it.")
    if previous:
        text += " \"13's sum\": 13_rows's kernel on the same input (float only)."

    def row_of(dtype, k):
        total = get(sweep, dtype, k, "auto", "sum")
        others = {op: get(sweep, dtype, k, "auto", op) for op in ("max", "argmax", "meanvar")}
        if total is None or all(r is None for r in others.values()):
            return None
        cells = [str(k)] + ([us(get(sweep, dtype, k, previous, "sum"))] if previous else []) + [cell(total)]
        for op, r in others.items():
            factor = r["ms"] / total["ms"] if r is not None and total["ms"] > 0 else None
            checked = op in OPS_TARGET and targets
            size = k * TYPE_BYTES[dtype]
            bound = f"; bound {(size + RESULT_BYTES[op]) / (size + RESULT_BYTES['sum']):.2f}×" if checked else ""
            text = "—" if r is None else f"{us(r)} ({ratio_text(factor)}{bound})" + wrong_mark(r)
            if checked and factor is not None:
                text += f": {verdict(factor <= OPS_TARGET[op])}"
            cells.append(text)
        return cells

    return per_type(sweep["types"], sweep["ks"], [measured_on(sweep, readme, root) + text, ""],
                    ["K"] + (["13's sum µs"] if previous else []) +
                    ["sum µs", "max µs (× sum)", "argmax µs (× sum)", "meanvar µs (× sum)"],
                    ["---:"] * (6 if previous else 5), row_of)


def plot(sweep, dtype, path):
    """GB/s against K (log scale), one line per method, auto thickest; with several machines,
    the machines' range as a light band."""
    ks, peak = sweep["ks"], sweep["peak_gbps"]
    top = max([peak] + [r["gbps"] for r in sweep["rows"] if r["type"] == dtype])
    title = (f"{dtype} row sums, GB/s against K at M × K = 2^26: {sweep['device']}, CUDA {sweep['cuda']}, "
             f"{sweep['date']}")
    subtitle = (f"median of {sweep.get('reps', '?')} runs, every method interleaved; GB/s = input bytes / time "
                "(the results written are not counted)" + band_note(sweep))
    series = []
    for method, (label, color) in METHODS.items():  # auto drawn last, on top
        points = [(k, get(sweep, dtype, k, method)) for k in ks]
        points = [(k, r) for k, r in points if r is not None]
        if not points:
            continue
        ranges = [plots.band(r["run_gbps"]) for _, r in points]
        series.append({"x": [k for k, _ in points], "y": [r["gbps"] for _, r in points], "color": color,
                       "label": label, "bold": method == "auto", "width": 3.2 if method == "auto" else 1.6,
                       "style": ":" if method == "floor" else "--" if method.startswith("cub") else "-",
                       "lo": [lo for lo, _ in ranges], "hi": [hi for _, hi in ranges],
                       "wrong": [not r["ok"] for _, r in points]})
    order = [METHODS[m][0] for m in ("auto",) + OURS + CUB + ("floor",)]
    plots.line_plot(path, title, [subtitle], series, "K, elements per row (log scale)",
                    "GB/s (input bytes / median time)", ks, plots.spaced_labels(ks), (0, top * 1.05), peak=peak,
                    legend_title="method", legend_order=order)


def band_note(sweep):
    return f"; band: the {sweep['machines']} machines' range" if sweep["machines"] > 1 else ""


def unchecked_mark(row):
    """† for CUB's segmented sum of a row of 2^24 or more floats, which the harness cannot verify
    (explained under the table); else wrong_mark."""
    if row is not None and not row["ok"] and row["method"] == "cub_segmented" and row["k"] >= 1 << 24:
        return " †"
    return wrong_mark(row)


def split_block(sweep, readme, root):
    intro = [measured_on(sweep, readme, root) + ". Times in µs, with the share of the read-only floor's bandwidth; "
             "\"16's rule\": 16_short_rows's auto (a block per row here); \"18\": this chapter's auto; \"cluster\": "
             "18's pieces combined in a thread-block cluster instead of by the ticket (`--method cluster`); \"09\": "
             "09_single_pass summing the one row as an array (M = 1, float).", ""]
    marks = {unchecked_mark(r) for r in sweep["rows"]}
    if " ⚠" in marks:
        intro += [WRONG_NOTE, ""]
    if " †" in marks:
        intro += ["†: CUB's order is its own, so the only error bound that holds for it is that of a chain of K "
                  "additions, which bounds nothing from K = 2^24 on: the harness cannot verify these sums and counts "
                  "them as wrong.", ""]

    def row_of(dtype, k):
        floor, ours, before = (get(sweep, dtype, k, m) for m in ("floor", "auto", "previous"))
        if ours is None or floor is None:
            return None
        speedup = before["ms"] / ours["ms"] if before is not None and ours["ms"] > 0 else None
        return [str(ours["m"]), str(k), cell(before, floor), cell(ours, floor), ratio_text(speedup),
                cell(get(sweep, dtype, k, "cluster"), floor),
                cell(get(sweep, dtype, k, "cub_segmented"), floor, unchecked_mark),
                cell(get(sweep, dtype, k, "single_pass"), floor), us(floor)]

    def head(dtype):
        image = image_link(root, readme, f"rows_split_{dtype}.svg")
        return [f"**{dtype}**", "", f"![% of the read-only floor against M at M × K = 2^26, {dtype}]({image})", ""]

    return per_type(sweep["types"], sorted(sweep["ks"], reverse=True), intro,
                    ["M", "K", "16's rule", "18", "18 × faster", "cluster", "cub_segmented", "09", "floor"],
                    ["---:"] * 9, row_of, head)


def split_targets_block(sweep, readme, root):
    intro = [measured_on(sweep, readme, root) + ". 18's targets: at every M, each operator's share of the read-only "
             "floor at least " + ", ".join(f"{v}% ({op})" for op, v in SPLIT_FLOOR_TARGET.items())
             + f"; at M = 1 the float sum within {SPLIT_SINGLE_PASS_TARGET:.2f}× of 09's time.", ""]

    def row_of(dtype, k):
        floor, single = get(sweep, dtype, k, "floor"), get(sweep, dtype, k, "single_pass")
        found = {op: get(sweep, dtype, k, "auto", op) for op in SPLIT_FLOOR_TARGET}
        if floor is None or found["sum"] is None:
            return None
        cells = [str(found["sum"]["m"])]
        for op, target in SPLIT_FLOOR_TARGET.items():
            share = of_floor(found[op], floor)
            cells.append("—" if share is None else
                         f"{share:.0f}%{wrong_mark(found[op])}: {verdict(share >= target and found[op]['ok'])}")
        factor = found["sum"]["ms"] / single["ms"] if single is not None and single["ms"] > 0 else None
        ok = factor is not None and factor <= SPLIT_SINGLE_PASS_TARGET
        return cells + ["—" if factor is None else f"{ratio_text(factor)}: {verdict(ok)}"]

    return per_type(sweep["types"], sorted(sweep["ks"], reverse=True), intro,
                    ["M", "sum", "max", "argmax", "meanvar", "sum / 09"], ["---:"] * 6, row_of)


def argmax_copy_block(dirs, split, readme, root):
    """18's ArgMax copying each thread's winning vector to shared memory against reading it again
    (commit ae396f5's copy unit, built beside it by tools/rows_bench.sh), from each run's
    argmax_copy.jsonl; the dates are those of 18's sweeps (`split`), made on the same machines."""
    points, first = {}, None  # (type, M, variant) -> [row of each machine]
    for d in dirs:
        path = os.path.join(d, "rows", SPLIT, "argmax_copy.jsonl")
        if not os.path.exists(path):
            raise DataError(f"no {SPLIT}/argmax_copy.jsonl in {d}/rows")
        for row in read_jsonl(path):
            if not row["ok"]:
                raise DataError(f"argmax_copy.jsonl: a WRONG result ({row['type']}, M = {row['rows']}, "
                                f"{row['variant']})")
            first = first or row
            points.setdefault((row["type"], row["rows"], row["variant"]), []).append(row)
    times = {key: [r["ms"] for r in same] for key, same in points.items()}
    median = {key: statistics.median(ms) for key, ms in times.items()}
    spread = max((max(ms) - min(ms)) / median[key] for key, ms in times.items())
    intro = [f"`18_split_rows --op argmax --method split --json` on {len(dirs)} separately started machines, "
             f"**{first['device']}**, CUDA {split['cuda']}, {', '.join(split['dates'])}: M × K = 2^26, "
             f"{first['reps']} repetitions with the read-only floor interleaved, L2 flushed; the median over the "
             f"machines, which differ by at most {100 * spread:.1f}% ([how these are measured]"
             f"({how_link(readme, root)})). Times in µs with the share of the floor.", ""]

    def row_of(dtype, m):
        if (dtype, m, "reread") not in points:
            return None
        cells = [str(m)]
        for variant in ("reread", "copy"):
            share = statistics.median(r["percent_of_floor"] for r in points[(dtype, m, variant)])
            cells.append(f"{median[(dtype, m, variant)] * 1000:.1f} ({share:.0f}%)")
        return cells + [ratio_text(median[(dtype, m, "reread")] / median[(dtype, m, "copy")])]

    return per_type(("float", "bf16"), sorted({key[1] for key in points}), intro,
                    ["M", "read again", "copy in shared memory", "× faster"], ["---:"] * 4, row_of)


def plot_split(sweep, dtype, path):
    """Each operator's share of the read-only floor against M (log scale), with 16's rule and CUB;
    with several machines, the machines' range of each share as a light band."""
    ks = sorted(sweep["ks"], reverse=True)
    ms = sorted(sweep["table"][(dtype, k)][("floor", "-")]["m"] for k in ks if (dtype, k) in sweep["table"])
    title = (f"{dtype}: M rows of K at M × K = 2^26, % of the read-only floor: {sweep['device']}, CUDA "
             f"{sweep['cuda']}, {', '.join(sweep['dates'])}")
    subtitle = "floor time / method time; 100% is the speed of a kernel that only reads the input" + band_note(sweep)
    lines = [("auto", "sum", "#6a3d9a", "18: sum", 3.2, "-"), ("auto", "max", "#1f77b4", "18: max", 1.6, "-"),
             ("auto", "argmax", "#d62728", "18: argmax", 1.6, "-"),
             ("auto", "meanvar", "#2ca02c", "18: mean, variance", 1.6, "-"),
             ("previous", "sum", "#ff7f0e", "16's rule: sum", 1.6, "--"),
             ("cluster", "sum", "#8c564b", "18 in a cluster: sum", 1.6, ":"),
             ("cub_segmented", "sum", "#111111", "cub::DeviceSegmentedReduce", 1.6, "--")]
    series = []
    for method, op, color, label, thick, style in reversed(lines):  # 18's sum drawn last, on top
        line = {"x": [], "y": [], "color": color, "label": label, "width": thick, "style": style, "lo": [], "hi": []}
        for k in ks:
            row, floor = get(sweep, dtype, k, method, op), get(sweep, dtype, k, "floor")
            share = of_floor(row, floor)
            if share is None:
                continue
            lo, hi = plots.band([100.0 * f / t for f, t in zip(floor["run_ms"], row["run_ms"]) if t > 0])
            for key, value in (("x", row["m"]), ("y", min(share, 110.0)), ("lo", lo), ("hi", hi)):
                line[key].append(value)
        if line["x"]:
            series.append(line)
    plots.line_plot(path, title, [subtitle], series, "M, rows (log scale); K = 2^26 / M", "% of the read-only floor",
                    ms, [str(m) for m in ms], (0, 110), y_ticks=[0, 20, 40, 60, 80, 100],
                    legend_title="method", legend_order=[spec[3] for spec in lines], size=(11.0, 5.6))


def fill(dirs, root):
    """Draws the plots and fills the rows chapters' blocks from the runs (folders with rows/);
    returns what it wrote."""
    sweeps = {c: combine([load_sweep(d, c) for d in dirs]) for c in CHAPTERS}
    whole, split = sweeps[WHOLE], sweeps[SPLIT]
    readme = {c: os.path.join(root, c, "README.md") for c in CHAPTERS}
    tuning, images = os.path.join(root, "docs", "tuning.md"), os.path.join(root, "docs", "images")
    os.makedirs(images, exist_ok=True)
    jobs = []
    for name, draw, sweep in (("rows_crossover", plot, whole), ("rows_split", plot_split, split)):
        for dtype in sweep["types"]:
            path = os.path.join(images, f"{name}_{dtype}.svg")
            jobs.append((path, draw, (sweep, dtype, path)))
    written = plots.draw(jobs, "fill_rows.py")
    blocks = [
        (readme["13_rows"], "results:13_rows",
         crossover_block(sweeps["13_rows"], root, readme["13_rows"], ("warp", "block"))),
        (readme["14_row_stats"], "results:14_row_stats",
         ops_block(sweeps["14_row_stats"], readme["14_row_stats"], root, previous="previous", targets=False)),
        (readme["15_lane_groups"], "results:15_lane_groups",
         crossover_block(sweeps["15_lane_groups"], root, readme["15_lane_groups"], ("previous", "group"),
                         {"previous": "14's warp or block"})),
        (readme[WHOLE], "results:16_short_rows", crossover_block(whole, root, readme[WHOLE], OURS, plots=True)),
        (readme[SPLIT], "results:18_split_rows", split_block(split, readme[SPLIT], root)),
        (tuning, "results:rows_split_targets", split_targets_block(split, tuning, root)),
        (tuning, "results:rows_argmax_copy", argmax_copy_block(dirs, split, tuning, root)),
        (tuning, "results:rows_targets", targets_block(whole, tuning, root)),
        (tuning, "results:rows_ops", ops_block(whole, tuning, root))]
    example = os.path.join(dirs[0], "rows", "example.txt")
    if os.path.exists(example):
        with open(example, encoding="utf-8") as f:
            blocks.append((readme[WHOLE], "results:16_short_rows_example", "```text\n" + f.read().rstrip() + "\n```"))
    for path, marker, text in blocks:
        if fill_file(path, marker, text.rstrip() + "\n"):
            written.append(f"{path} ({marker})")
        else:
            print(f"fill_rows: no block {marker} in {os.path.relpath(path, root)}", file=sys.stderr)
    return written
