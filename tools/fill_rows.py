#!/usr/bin/env python3
"""fill_rows.py: the rows chapters' blocks and plots from tools/rows_bench.sh's runs, for tools/publish.py.

fill(dirs, root) reads each run's rows/NN_name/rows_sweep.json (each chapter's --sweep; one
run per separately started machine, combined: a point's time is the median over the machines
of each machine's median), rows/18_split_rows/argmax_copy.jsonl and the first run's
rows/example.txt, and writes the blocks publish.py's BLOCKS gives fill_rows and the plots
docs/images/rows_crossover_{float,bf16}.svg (16) and rows_split_{float,bf16}.svg (18).
Python 3 standard library; the plots need matplotlib (tools/plots.py).
"""

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import DataError, fill_file, how_link, table  # noqa: E402
import plots  # noqa: E402

CHAPTERS = ("13_rows", "14_row_stats", "15_lane_groups", "16_short_rows", "18_split_rows")
SPLIT = "18_split_rows"  # few long rows: M from 1 to 4096 at M x K = 2^26
WHOLE = "16_short_rows"  # the chapter whose sweep has every method, and the targets
OURS = ("thread", "group", "warp", "block")
CUB = ("cub_segmented", "cub_block")
METHOD_COLORS = {"thread": "#d62728", "group": "#ff7f0e", "warp": "#2ca02c", "block": "#1f77b4",
                 "auto": "#6a3d9a", "cub_segmented": "#111111", "cub_block": "#8c8c8c", "floor": "#555555"}
TYPE_BYTES = {"float": 4, "half": 2, "bf16": 2}
RESULT_BYTES = {"sum": 4, "max": 4, "argmax": 8, "meanvar": 8}  # rows::ValueIndex: a float and an int32
# The chapter's targets: the chosen method's share of the read-only floor, and its speed-up
# over cub::DeviceSegmentedReduce, by K.
FLOOR_TARGET = {1: 80, 3: 80, 33: 80, 1000: 80, 8: 90, 32: 90, 128: 90, 1024: 90, 8192: 90, 65536: 90}
OPS_TARGET = {"argmax": 1.2, "meanvar": 1.1}
# 18's targets: each operator's share of the floor at every M, and its sum at M = 1 against 09.
SPLIT_FLOOR_TARGET = {"sum": 90, "max": 90, "argmax": 85, "meanvar": 85}
SPLIT_SINGLE_PASS_TARGET = 1.05


def cub_target(k):
    if k <= 128:
        return 4.0
    if k == 1024:
        return 1.3
    if k >= 8192:
        return 1.0
    return None


# ----------------------------------------------------------------------------- reading

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
    table = {}  # (type, k) -> {(method, op): row}
    for row in sweep["rows"]:
        for key in ("type", "k", "m", "op", "method", "ms", "gbps", "ok"):
            if key not in row:
                raise DataError(f"{path}: a row without '{key}'")
        table.setdefault((row["type"], row["k"]), {})[(row["method"], row["op"])] = row
    sweep["table"] = table
    sweep["types"] = [t for t in ("float", "half", "bf16") if any(key[0] == t for key in table)]
    sweep["ks"] = sorted({key[1] for key in table})
    return sweep


# ----------------------------------------------------------------------------- formatting

def us(row):
    return "—" if row is None else f"{row['ms'] * 1000:.1f}"


def ratio_text(r):
    return "—" if r is None else f"{r:.2f}×"


def verdict(ok):
    return "met" if ok else "not met"


def combine(sweeps):
    """One sweep from the sweeps of several separately started machines: each point's time
    (and GB/s) is the median over the machines of each machine's median; "ok" only if every
    machine's run was. The largest relative spread of a point's times goes in "spread"; each
    row keeps every machine's ms and GB/s in run_ms and run_gbps (the plots' bands)."""
    if len(sweeps) == 1:
        return sweeps[0]
    combined = dict(sweeps[0])
    points = {}
    for sweep in sweeps:
        for row in sweep["rows"]:
            points.setdefault((row["type"], row["k"], row["op"], row["method"]), []).append(row)
    rows, spread = [], 0.0
    for same in points.values():
        if len(same) != len(sweeps):
            continue  # a point some machine did not measure
        row = dict(same[0])
        times = [r["ms"] for r in same]
        row["ms"] = statistics.median(times)
        row["gbps"] = statistics.median(r["gbps"] for r in same)
        row["ok"] = all(r["ok"] for r in same)
        row["run_ms"], row["run_gbps"] = times, [r["gbps"] for r in same]
        spread = max(spread, (max(times) - min(times)) / row["ms"])
        rows.append(row)
    combined["rows"] = rows
    combined["machines"] = len(sweeps)
    combined["dates"] = sorted({sw["date"] for sw in sweeps})
    combined["spread"] = spread
    table = {}
    for row in rows:
        table.setdefault((row["type"], row["k"]), {})[(row["method"], row["op"])] = row
    combined["table"] = table
    return combined


def measured_on(sweep, readme, root):
    how = how_link(readme, root)
    flush = "L2 flushed" if sweep.get("flush", True) else "L2 not flushed"
    program = f"`{sweep.get('chapter', '?')} --sweep`"
    if sweep.get("machines", 1) > 1:
        return (f"{program} on {sweep['machines']} separately started machines, **{sweep['device']}**, CUDA "
                f"{sweep['cuda']}, {', '.join(sweep['dates'])}: M × K = 2^26 elements, the methods interleaved in each "
                f"of {sweep.get('reps', '?')} repetitions, {flush}; the median over the machines of each machine's "
                f"median, which differ by at most {100 * sweep['spread']:.1f}% ([how these are measured]({how}))")
    return (f"{program} on **{sweep['device']}**, CUDA {sweep['cuda']}, {sweep['date']}: M × K = 2^26 elements, the "
            f"methods interleaved in each of {sweep.get('reps', '?')} repetitions, median, {flush} "
            f"([how these are measured]({how}))")


def get(sweep, dtype, k, method, op="sum"):
    return sweep["table"].get((dtype, k), {}).get((method, "-" if method == "floor" else op))


def of_floor(row, floor):
    if row is None or floor is None or row["ms"] <= 0:
        return None
    return 100.0 * floor["ms"] / row["ms"]


def write_bound(dtype, op):
    """The most of the read-only floor a kernel can reach when writing its results costs as
    much per byte as reading: input bytes / (input + output bytes), per element of the row."""
    return lambda k: 100.0 * k * TYPE_BYTES[dtype] / (k * TYPE_BYTES[dtype] + RESULT_BYTES[op])


def plan_text(row):
    """The method the program reported for a row ("chooses one thread per row, ..."), for a table cell."""
    return row["plan"].replace("chooses ", "")


def wrong_mark(row):
    return " ⚠" if row is not None and not row["ok"] else ""


# ----------------------------------------------------------------------------- the blocks

def crossover_block(sweep, root, readme, methods, names=None, plots=False):
    """Every K of the sweep: the methods' times (the fastest of `methods` in bold), auto's
    choice and its share of the floor, CUB and the floor."""
    names = names or {}
    out = [measured_on(sweep, readme, root) + ". Times in µs; the fastest of " +
           ", ".join(names.get(m, m) for m in methods) + " in bold; \"auto\" is what the chapter's rule picks, "
           "with its share of the read-only floor's bandwidth.", ""]
    if any(not r["ok"] for r in sweep["rows"]):
        out += ["⚠: a WRONG result; its time is shown but does not count.", ""]
    for dtype in sweep["types"]:
        if plots:
            image = os.path.relpath(os.path.join(root, "docs", "images", f"rows_crossover_{dtype}.svg"),
                                    os.path.dirname(readme)).replace(os.sep, "/")
            out += [f"![GB/s against K at M × K = 2^26, {dtype}]({image})", ""]
        rows = []
        for k in sweep["ks"]:
            floor = get(sweep, dtype, k, "floor")
            ours = {m: get(sweep, dtype, k, m) for m in methods}
            present = [r for r in ours.values() if r is not None]
            if not present:
                continue
            best = min(r["ms"] for r in present)
            cells = [str(k), str(present[0]["m"])]
            for m in methods:
                text = us(ours[m]) + wrong_mark(ours[m])
                cells.append(f"**{text}**" if ours[m] is not None and ours[m]["ms"] == best else text)
            auto = get(sweep, dtype, k, "auto")
            share = of_floor(auto, floor)
            cells += [plan_text(auto) if auto else "—",
                      us(auto) + wrong_mark(auto) + ("" if share is None else f" ({share:.0f}%)")]
            cells += [us(get(sweep, dtype, k, m)) + wrong_mark(get(sweep, dtype, k, m)) for m in CUB]
            cells.append(us(floor))
            rows.append(cells)
        out += [f"**{dtype}**", "",
                table(["K", "M"] + [names.get(m, m) for m in methods] +
                      ["auto picks", "auto (% of floor)", "cub_segmented", "cub_block", "floor"],
                      ["---:", "---:"] + ["---:"] * len(methods) + ["---", "---:", "---:", "---:", "---:"], rows), ""]
    return "\n".join(out).rstrip()


def targets_block(sweep, readme, root):
    out = [measured_on(sweep, readme, root) + ". The targets of the rows chapters (16's whole rule): the chosen method within 90% of the read-only floor "
           "at K = 8, 32, 128, 1024, 8192, 65536 and within 80% at K = 1, 3, 33, 1000; at least 4× "
           "cub::DeviceSegmentedReduce at K ≤ 128, 1.3× at K = 1024, 1× from 8192 up. \"write bound\": the most "
           "of the floor any kernel can reach if writing a result byte costs as much as reading an input byte "
           "(the floor only reads; at K = 1 a float sum writes as many bytes as it reads, a bf16 sum twice as "
           "many). On the H100 a written byte costs a little less than a read one, so a kernel can pass it "
           "slightly.", ""]
    for dtype in sweep["types"]:
        rows = []
        bound = write_bound(dtype, "sum")
        for k in sweep["ks"]:
            auto, floor, cub = (get(sweep, dtype, k, m) for m in ("auto", "floor", "cub_segmented"))
            if auto is None:
                continue
            share = of_floor(auto, floor)
            target = FLOOR_TARGET.get(k)
            speedup = cub["ms"] / auto["ms"] if cub and auto["ms"] > 0 else None
            needed = cub_target(k)
            rows.append([str(k), plan_text(auto),
                         "—" if share is None else f"{share:.1f}%" + wrong_mark(auto),
                         f"{bound(k):.0f}%",
                         "—" if target is None or share is None else f"≥ {target}%: {verdict(share >= target)}",
                         ratio_text(speedup),
                         "—" if needed is None or speedup is None else f"≥ {needed:g}×: {verdict(speedup >= needed)}"])
        out += [f"**{dtype}**", "",
                table(["K", "auto picks", "% of floor", "write bound", "target", "vs cub_segmented", "target"],
                      ["---:", "---", "---:", "---:", "---", "---:", "---"], rows), ""]
    return "\n".join(out).rstrip()


def ops_block(sweep, readme, root, previous=None, targets=True):
    text = (". Each operator with the method auto picks, interleaved with the sum on the same input; \"× sum\" is "
            "its time over the sum's.")
    if targets:
        text += (" Targets: argmax within 1.2×, mean and variance within 1.1× of the sum. \"bound\": the \"× sum\" that "
                 "the bytes moved alone give, if writing a result byte costs as much as reading an input byte (argmax "
                 "writes 8 bytes per row, mean and variance 8, the sum 4: for mean and variance at K = 8 that is above "
                 "the target). On the H100 a written byte costs a little less than a read one, so a kernel can come in "
                 "slightly under it.")
    if previous:
        text += " \"13's sum\": 13_rows's kernel on the same input (float only)."
    out = [measured_on(sweep, readme, root) + text, ""]
    for dtype in sweep["types"]:
        rows = []
        for k in sweep["ks"]:
            total = get(sweep, dtype, k, "auto", "sum")
            others = {op: get(sweep, dtype, k, "auto", op) for op in ("max", "argmax", "meanvar")}
            if total is None or all(r is None for r in others.values()):
                continue
            cells = [str(k)]
            if previous:
                cells.append(us(get(sweep, dtype, k, previous, "sum")))
            cells.append(us(total) + wrong_mark(total))
            for op in ("max", "argmax", "meanvar"):
                r = others[op]
                factor = r["ms"] / total["ms"] if r is not None and total["ms"] > 0 else None
                least = (k * TYPE_BYTES[dtype] + RESULT_BYTES[op]) / (k * TYPE_BYTES[dtype] + RESULT_BYTES["sum"])
                bound = f"; bound {least:.2f}×" if op in OPS_TARGET and targets else ""
                text = "—" if r is None else f"{us(r)} ({ratio_text(factor)}{bound})" + wrong_mark(r)
                if op in OPS_TARGET and factor is not None and targets:
                    text += f": {verdict(factor <= OPS_TARGET[op])}"
                cells.append(text)
            rows.append(cells)
        out += [f"**{dtype}**", "",
                table(["K"] + (["13's sum µs"] if previous else []) +
                      ["sum µs", "max µs (× sum)", "argmax µs (× sum)", "meanvar µs (× sum)"],
                      ["---:"] * (6 if previous else 5), rows), ""]
    return "\n".join(out).rstrip()


# ----------------------------------------------------------------------------- the plot

def plot(sweep, dtype, path):
    """GB/s against K (log scale), one line per method, auto thickest; with several machines,
    the median line and the machines' range as a light band (tools/plots.py)."""
    ks = sweep["ks"]
    peak = sweep["peak_gbps"]
    rows = [r for (t, _), group in sweep["table"].items() if t == dtype for r in group.values()]
    top = max([peak] + [r["gbps"] for r in rows])
    title = f"{dtype} row sums, GB/s against K at M × K = 2^26: {sweep['device']}, CUDA {sweep['cuda']}, {sweep['date']}"
    subtitle = (f"median of {sweep.get('reps', '?')} runs, every method interleaved; GB/s = input bytes / time "
                "(the results written are not counted)" +
                (f"; band: the {sweep['machines']} machines' range" if sweep.get("machines", 1) > 1 else ""))
    labels = {"floor": "read-only floor", "thread": "thread per row (16)", "group": "group of lanes (15)",
              "warp": "warp per row (15)", "block": "block per row (14)", "cub_segmented": "cub::DeviceSegmentedReduce",
              "cub_block": "cub Warp/BlockReduce", "auto": "auto (the whole rule)"}
    series = []
    for method in ["floor"] + list(OURS) + list(CUB) + ["auto"]:  # auto drawn last, on top
        points = [(k, get(sweep, dtype, k, method)) for k in ks]
        points = [(k, r) for k, r in points if r is not None]
        if not points:
            continue
        ranges = [plots.band(r.get("run_gbps", [])) for _, r in points]
        series.append({"x": [k for k, _ in points], "y": [r["gbps"] for _, r in points],
                       "color": METHOD_COLORS[method], "label": labels[method], "bold": method == "auto",
                       "width": 3.2 if method == "auto" else 1.6,
                       "style": ":" if method == "floor" else "--" if method.startswith("cub") else "-",
                       "lo": [lo for lo, _ in ranges], "hi": [hi for _, hi in ranges],
                       "wrong": [not r["ok"] for _, r in points]})
    order = [labels[m] for m in ["auto"] + list(OURS) + list(CUB) + ["floor"]]
    plots.line_plot(path, title, [subtitle], series, "K, elements per row (log scale)",
                    "GB/s (input bytes / median time)", ks, plots.spaced_labels(ks), (0, top * 1.05), peak=peak,
                    legend_title="method", legend_order=order)


# ----------------------------------------------------------------------------- 18: few long rows

def unchecked_mark(row):
    """CUB's segmented sum of a row of 2^24 or more floats: its order is its own, so the only
    bound the harness can use is a chain of K additions, which bounds nothing there; the
    harness cannot verify the result and counts it as wrong (†, explained under the table)."""
    if row is not None and not row["ok"] and row["method"] == "cub_segmented" and row["k"] >= 1 << 24:
        return " †"
    return wrong_mark(row)


def with_share(row, floor, mark=wrong_mark):
    """A time in µs with its mark and its share of the floor: "92.4 (98%)"."""
    share = of_floor(row, floor)
    return "—" if row is None else us(row) + mark(row) + ("" if share is None else f" ({share:.0f}%)")


def split_block(sweep, readme, root):
    out = [measured_on(sweep, readme, root) + ". Times in µs, with the share of the read-only floor's bandwidth; "
           "\"16's rule\": 16_short_rows's auto (a block per row here); \"18\": this chapter's auto; \"cluster\": "
           "18's pieces combined in a thread-block cluster instead of by the ticket (`--method cluster`); \"09\": "
           "09_single_pass summing the one row as an array (M = 1, float).", ""]
    if any(not r["ok"] and unchecked_mark(r) != " †" for r in sweep["rows"]):
        out += ["⚠: a WRONG result; its time is shown but does not count.", ""]
    if any(unchecked_mark(r) == " †" for r in sweep["rows"]):
        out += ["†: CUB's order is its own, so the only error bound that holds for it is that of a chain of K "
                "additions, which bounds nothing from K = 2^24 on: the harness cannot verify these sums and counts "
                "them as wrong.", ""]
    for dtype in sweep["types"]:
        image = os.path.relpath(os.path.join(root, "docs", "images", f"rows_split_{dtype}.svg"),
                                os.path.dirname(readme)).replace(os.sep, "/")
        rows = []
        for k in sorted(sweep["ks"], reverse=True):
            floor = get(sweep, dtype, k, "floor")
            ours, before = get(sweep, dtype, k, "auto"), get(sweep, dtype, k, "previous")
            if ours is None or floor is None:
                continue
            cub, single = get(sweep, dtype, k, "cub_segmented"), get(sweep, dtype, k, "single_pass")
            speedup = before["ms"] / ours["ms"] if before is not None and ours["ms"] > 0 else None
            cells = [str(ours["m"]), str(k), with_share(before, floor), with_share(ours, floor), ratio_text(speedup),
                     with_share(get(sweep, dtype, k, "cluster"), floor), with_share(cub, floor, unchecked_mark),
                     with_share(single, floor), us(floor)]
            rows.append(cells)
        out += [f"**{dtype}**", "", f"![% of the read-only floor against M at M × K = 2^26, {dtype}]({image})", "",
                table(["M", "K", "16's rule", "18", "18 × faster", "cluster", "cub_segmented", "09", "floor"],
                      ["---:"] * 9, rows), ""]
    return "\n".join(out).rstrip()


def split_targets_block(sweep, readme, root):
    out = [measured_on(sweep, readme, root) + ". 18's targets: at every M, each operator's share of the read-only "
           "floor at least " + ", ".join(f"{v}% ({op})" for op, v in SPLIT_FLOOR_TARGET.items())
           + f"; at M = 1 the float sum within {SPLIT_SINGLE_PASS_TARGET:.2f}× of 09's time.", ""]
    for dtype in sweep["types"]:
        rows = []
        for k in sorted(sweep["ks"], reverse=True):
            floor = get(sweep, dtype, k, "floor")
            found = {op: get(sweep, dtype, k, "auto", op) for op in SPLIT_FLOOR_TARGET}
            if floor is None or found["sum"] is None:
                continue
            cells = [str(found["sum"]["m"])]
            for op, target in SPLIT_FLOOR_TARGET.items():
                share = of_floor(found[op], floor)
                cells.append("—" if share is None else
                             f"{share:.0f}%{wrong_mark(found[op])}: {verdict(share >= target and found[op]['ok'])}")
            single = get(sweep, dtype, k, "single_pass")
            factor = found["sum"]["ms"] / single["ms"] if single is not None and single["ms"] > 0 else None
            cells.append("—" if factor is None else
                         f"{ratio_text(factor)}: {verdict(factor <= SPLIT_SINGLE_PASS_TARGET)}")
            rows.append(cells)
        out += [f"**{dtype}**", "",
                table(["M", "sum", "max", "argmax", "meanvar", "sum / 09"], ["---:"] * 6, rows), ""]
    return "\n".join(out).rstrip()


def argmax_copy_block(dirs, split, readme, root):
    """18's ArgMax with a copy of each thread's winning vector in shared memory against the same
    kernel reading the winning vector again from memory (the copy unit of commit ae396f5, which
    tools/rows_bench.sh builds beside it): each run's argmax_copy.jsonl, the median over the
    machines (the dates: those of 18's sweeps, `split`, made on the same machines)."""
    runs = []
    for d in dirs:
        path = os.path.join(d, "rows", SPLIT, "argmax_copy.jsonl")
        if not os.path.exists(path):
            raise DataError(f"no {SPLIT}/argmax_copy.jsonl in {d}/rows")
        with open(path, encoding="utf-8") as f:
            runs.append([json.loads(line) for line in f if line.strip()])
    points = {}  # (type, M, variant) -> [row of each machine]
    for run in runs:
        for row in run:
            if not row["ok"]:
                raise DataError(f"argmax_copy.jsonl: a WRONG result ({row['type']}, M = {row['rows']}, {row['variant']})")
            points.setdefault((row["type"], row["rows"], row["variant"]), []).append(row)
    median = {key: statistics.median(r["ms"] for r in same) for key, same in points.items()}
    spread = max((max(r["ms"] for r in same) - min(r["ms"] for r in same)) / median[key] for key, same in points.items())
    first = runs[0][0]
    out = [f"`18_split_rows --op argmax --method split --json` on {len(runs)} separately started machines, "
           f"**{first['device']}**, CUDA {first['cuda']}, {', '.join(split.get('dates', [split['date']]))}: "
           f"M × K = 2^26, {first['reps']} repetitions with the read-only floor interleaved, L2 flushed; the median "
           f"over the machines, which differ by at most {100 * spread:.1f}% ([how these are measured]"
           f"({how_link(readme, root)})). Times in µs with the share of the floor.", ""]
    for dtype in ("float", "bf16"):
        rows = []
        for m in sorted({key[1] for key in points if key[0] == dtype}):
            cells = [str(m)]
            for variant in ("reread", "copy"):
                share = statistics.median(r["percent_of_floor"] for r in points[(dtype, m, variant)])
                cells.append(f"{median[(dtype, m, variant)] * 1000:.1f} ({share:.0f}%)")
            cells.append(ratio_text(median[(dtype, m, "reread")] / median[(dtype, m, "copy")]))
            rows.append(cells)
        out += [f"**{dtype}**", "", table(["M", "read again", "copy in shared memory", "× faster"], ["---:"] * 4, rows),
                ""]
    return "\n".join(out).rstrip()


def plot_split(sweep, dtype, path):
    """Each operator's share of the read-only floor against M (log scale), with 16's rule and CUB;
    with several machines, the machines' range of each share as a light band."""
    ks = sorted(sweep["ks"], reverse=True)
    ms = [sweep["table"][(dtype, k)][("floor", "-")]["m"] for k in ks if (dtype, k) in sweep["table"]]
    title = (f"{dtype}: M rows of K at M × K = 2^26, % of the read-only floor: {sweep['device']}, CUDA "
             f"{sweep['cuda']}, {', '.join(sweep.get('dates', [sweep['date']]))}")
    subtitle = ("floor time / method time; 100% is the speed of a kernel that only reads the input" +
                (f"; band: the {sweep['machines']} machines' range" if sweep.get("machines", 1) > 1 else ""))
    lines = [("auto", "sum", "#6a3d9a", "18: sum", 3.2, "-"), ("auto", "max", "#1f77b4", "18: max", 1.6, "-"),
             ("auto", "argmax", "#d62728", "18: argmax", 1.6, "-"),
             ("auto", "meanvar", "#2ca02c", "18: mean, variance", 1.6, "-"),
             ("previous", "sum", "#ff7f0e", "16's rule: sum", 1.6, "--"),
             ("cluster", "sum", "#8c564b", "18 in a cluster: sum", 1.6, ":"),
             ("cub_segmented", "sum", "#111111", "cub::DeviceSegmentedReduce", 1.6, "--")]
    series = []
    for method, op, color, label, thick, style in lines:
        xs, ys, los, his = [], [], [], []
        for k in ks:
            row, floor = get(sweep, dtype, k, method, op), get(sweep, dtype, k, "floor")
            share = of_floor(row, floor)
            if share is None:
                continue
            xs.append(row["m"])
            ys.append(min(share, 110.0))
            lo, hi = plots.band([100.0 * f / t for f, t in zip(floor.get("run_ms", []), row.get("run_ms", []))
                                 if t > 0])
            los.append(lo)
            his.append(hi)
        if xs:
            series.append({"x": xs, "y": ys, "color": color, "label": label, "width": thick, "style": style,
                           "lo": los, "hi": his})
    series.reverse()  # 18's sum drawn last, on top
    plots.line_plot(path, title, [subtitle], series, "M, rows (log scale); K = 2^26 / M", "% of the read-only floor",
                    sorted(ms), [str(m) for m in sorted(ms)], (0, 110), y_ticks=[0, 20, 40, 60, 80, 100],
                    legend_title="method", legend_order=[label for _, _, _, label, _, _ in lines],
                    size=(11.0, 5.6))


# ----------------------------------------------------------------------------- entry points

def fill(dirs, root):
    """Writes the plots and fills the rows chapters' blocks from the runs (folders with rows/);
    returns what it wrote."""
    sweeps = {c: combine([load_sweep(d, c) for d in dirs]) for c in CHAPTERS}
    written, blocks = [], []
    whole, tuning = sweeps[WHOLE], os.path.join(root, "docs", "tuning.md")
    images = os.path.join(root, "docs", "images")
    os.makedirs(images, exist_ok=True)
    jobs = [(path, plot, (whole, dtype, path)) for dtype in whole["types"]
            for path in [os.path.join(images, f"rows_crossover_{dtype}.svg")]]
    readme = {c: os.path.join(root, c, "README.md") for c in CHAPTERS}
    blocks.append((readme["13_rows"], "results:13_rows",
                   crossover_block(sweeps["13_rows"], root, readme["13_rows"], ("warp", "block"))))
    blocks.append((readme["14_row_stats"], "results:14_row_stats",
                   ops_block(sweeps["14_row_stats"], readme["14_row_stats"], root, previous="previous", targets=False)))
    blocks.append((readme["15_lane_groups"], "results:15_lane_groups",
                   crossover_block(sweeps["15_lane_groups"], root, readme["15_lane_groups"], ("previous", "group"),
                                   {"previous": "14's warp or block"})))
    blocks.append((readme[WHOLE], "results:16_short_rows",
                   crossover_block(whole, root, readme[WHOLE], OURS, plots=True)))
    split = sweeps[SPLIT]
    jobs += [(path, plot_split, (split, dtype, path)) for dtype in split["types"]
             for path in [os.path.join(images, f"rows_split_{dtype}.svg")]]
    written += plots.draw(jobs, "fill_rows.py")
    blocks.append((readme[SPLIT], "results:18_split_rows", split_block(split, readme[SPLIT], root)))
    blocks.append((tuning, "results:rows_split_targets", split_targets_block(split, tuning, root)))
    blocks.append((tuning, "results:rows_argmax_copy", argmax_copy_block(dirs, split, tuning, root)))
    blocks.append((tuning, "results:rows_targets", targets_block(whole, tuning, root)))
    blocks.append((tuning, "results:rows_ops", ops_block(whole, tuning, root)))
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
