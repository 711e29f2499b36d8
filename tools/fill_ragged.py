#!/usr/bin/env python3
"""fill_ragged.py: 19_ragged_segments's Results table, its plots and docs/tuning.md's every operator of 19, for
tools/publish.py, from `tools/gpu_suite.sh ragged` runs, one folder per separately started machine
(docs/data/ragged/runK): ragged.jsonl, bench_ragged's output (19_ragged_segments/bench/bench.cu: a run head, then
a line per distribution of the lengths, type, operator and method: merge_path, staged, tile_per_block, binary_search,
three_blocks, cub_segmented, floor);
ragged_rows.jsonl, 18_split_rows --method auto --json on the bench's equal rows (18's rule beside 19); gpu.txt.

A time is the median over the machines of each machine's median; a share of the bound the median of the
machines' own (bench.cu's percent_of_bound: the floor's time scaled to the method's bytes, over its time).
Blocks: the Results table (the Sum), the step table (19, and what each of its steps buys alone), docs/tuning.md's
every operator, its MeanVar at 3 blocks an SM, and its profile of 19's kernel from ragged_ncu_*.csv
(`tools/gpu_suite.sh ragged_ncu`, the first run that has them). Plots: docs/images/ragged_{type}.svg, each method's
Sum as its share of the bound on every distribution. A kind of run of its own, `tools/gpu_suite.sh ragged_n`
(docs/data/ragged_n/runK: ragged_n.jsonl, 19 and 18's rule on one segment at several n), fills docs/tuning.md's table
of what grows with n (n_block).
"""
import glob
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fill_reproducible  # noqa: E402
import ncu_table  # noqa: E402
import plots  # noqa: E402
import results  # noqa: E402
from results import (DataError, differs, fmt_spread, marked_ratio, median_over_machines as median,  # noqa: E402
                     power_label, reps_of, table)

CHAPTER = "19_ragged_segments"
RUN_FILE = "ragged.jsonl"  # bench_ragged's output in a run folder
RULE_FILE = "ragged_rows.jsonl"  # 18_split_rows --method auto --json on the equal rows
OURS, CUB, FLOOR = "merge_path", "cub_segmented", "floor"  # the bench's methods
STEPS_MARKER = f"results:{CHAPTER[:2]}_steps"  # the step table's block in 19's README
# The step table's builds of 19 without one step each: (the bench's method, its source in bench/, what it lacks).
WITHOUT = [("staged", "staged.cu", "the register path: every tile of ends staged"),
           ("tile_per_block", "tile_per_block.cu", "ranges: a block per tile"),
           ("binary_search", "binary_search.cu", "the partition's 4-way search: a binary search, one probe a step")]
# docs/tuning.md's MeanVar block: the build with MeanVar at 3 blocks an SM (the bench's method, its source in bench/).
THREE_BLOCKS = ("three_blocks", "three_blocks.cu")
OPS = ("sum", "max", "argmax", "meanvar")  # CUB has no meanvar
FIELDS = ("dist", "n", "segments", "longest", "type", "offsets", "op", "method", "median_ms", "iqr_ms", "bytes",
          "input_bytes", "floor_ms", "percent_of_bound", "ok")
RULE_FIELDS = ("rows", "cols", "type", "op", "median_ms", "iqr_ms", "input_bytes", "output_bytes", "ok")
# The plot's bars, in the legend's order: (the point's method, colour, label).
BARS = [(OURS, "#6a3d9a", "19: merge path"), (CUB, "#111111", "cub::DeviceSegmentedReduce"),
        ("rule", "#ff7f0e", "18's rule (equal rows only)")]
WRONG_NOTE = "⚠: a WRONG result; its time is shown but does not count."


def load(paths):
    """Per run folder: its facts (results.machine), its run heads, the bench's lines by (dist, type, op, method),
    18's runs by (type, op, M, K) (none without ragged_rows.jsonl). DataError on a missing field."""
    machines = []
    for folder in paths:
        path = os.path.join(folder, RUN_FILE)
        head, lines = fill_reproducible.split_head(path)
        rule_path = os.path.join(folder, RULE_FILE)
        rules = results.read_records(rule_path) if os.path.exists(rule_path) else []
        for where, records, fields in ((path, lines, FIELDS), (rule_path, rules, RULE_FIELDS)):
            missing = sorted({k for r in records for k in fields if k not in r})
            if missing:
                raise DataError(f"{where}: no {', '.join(missing)} (is this `tools/gpu_suite.sh ragged`'s?)")
        machines.append({"facts": results.machine(folder, head), "head": head, "rule_heads": rules,
                         "bench": {(r["dist"], r["type"], r["op"], r["method"]): r for r in lines},
                         "rule": {(r["type"], r["op"], r["rows"], r["cols"]): r for r in rules}})
    return machines


def point(found, bounds):
    """One published point from each machine's record and its share of the bound: the median of the medians,
    lo and hi (the machines' range), n_runs and iqr_ms (the spread results.marked_ratio reads), ok (False where
    any machine's was), bound (the median of the shares) and bounds (each machine's)."""
    times = [r["median_ms"] for r in found]
    return {"median_ms": median(times), "lo": min(times), "hi": max(times), "n_runs": len(found),
            "iqr_ms": median(r["iqr_ms"] for r in found), "ok": all(r["ok"] is not False for r in found),
            "bound": median(bounds), "bounds": bounds}


def combine(machines):
    """The points of every machine: {"dists": in the bench's order, "types", "facts", "heads", "n", "offsets",
    "points": {(dist, type, op, method): point}}; method "rule" is 18's on a distribution of equal rows, its share
    of the bound from the floor of the bench's same run: the floor's time scaled to 18's bytes (the input and a
    result per row; 18 reads no offsets)."""
    first = machines[0]["bench"]
    points = {}
    for key in first:
        found = [m["bench"].get(key) for m in machines]
        if all(found):  # not a point that some machine did not measure
            points[key] = point(found, [r["percent_of_bound"] for r in found])
    for (dist, dtype, op, method), r in first.items():
        rule_key = (dtype, op, r["segments"], r["longest"])
        if method != OURS or r["segments"] * r["longest"] != r["n"] or \
                not all(rule_key in m["rule"] for m in machines):
            continue  # not equal rows, or not run by 18 on every machine
        rules = [m["rule"][rule_key] for m in machines]
        floors = [m["bench"][(dist, dtype, "-", FLOOR)]["floor_ms"] for m in machines]
        points[(dist, dtype, op, "rule")] = point(rules, [
            100 * f * (q["input_bytes"] + q["output_bytes"]) / q["input_bytes"] / q["median_ms"]
            for f, q in zip(floors, rules)])
    rows = list(first.values())
    return {"dists": list(dict.fromkeys(r["dist"] for r in rows)),
            "types": list(dict.fromkeys(r["type"] for r in rows)), "facts": [m["facts"] for m in machines],
            "heads": [m["head"] for m in machines], "rule_heads": [h for m in machines for h in m["rule_heads"]],
            "n": rows[0]["n"], "offsets": rows[0]["offsets"],
            "shape": {(r["dist"], r["type"]): (r["segments"], r["longest"]) for r in rows}, "points": points}


def mark(*found):
    """" ⚠" where any of the points is a WRONG result."""
    return " ⚠" if any(p is not None and not p["ok"] for p in found) else ""


def cell(p):
    """A time in µs, its spread (results.fmt_spread of results.spread_percent: the machine farthest from the
    median, or half the IQR of one run), the mark and its share of the bound: "137.2 ±0.3% (46%)"."""
    if p is None:
        return "—"
    spread = results.spread_percent(p)
    return (f"{p['median_ms'] * 1000:.1f}" + ("" if spread is None else f" {fmt_spread(spread)}") + mark(p)
            + f" ({p['bound']:.0f}%)")


def ratio(a, b):
    """a's time over b's (results.marked_ratio: ≈ within the spread, a range past a large one), marked where either
    is WRONG; "—" where either is missing."""
    return "—" if a is None or b is None else marked_ratio(a, b) + mark(a, b)


def caption(sweep, page, root, what, with_rule=False):
    """The block's first line: the machines, the commands (with_rule: 18's too, where it ran), what differs from
    docs/README.md's way of measuring."""
    with_rule = with_rule and any(k[3] == "rule" for k in sweep["points"])
    heads = sweep["heads"] + sweep["rule_heads"] * with_rule
    how = differs(reps_of(heads), all(h.get("flush") is not False for h in heads), len(sweep["facts"]) < 2)
    bench = results.rel_link(page, os.path.join(root, CHAPTER, "bench", "bench.cu"))
    rule = ", and `18_split_rows --method auto --json` on its equal rows" * with_rule
    return results.caption(sweep["facts"], f"`tools/gpu_suite.sh ragged`: `bench_ragged` ([bench.cu]({bench})), "
                           f"{what} of n = {power_label(sweep['n'])} elements with {sweep['offsets']} offsets"
                           f"{rule}{how}", page, root)


def notes(shown, pairs):
    """The WRONG note where a point shown is WRONG, the note on ratios given as ranges where a pair's is."""
    wrong = [WRONG_NOTE] * any(p is not None and not p["ok"] for p in shown)
    return wrong + [results.LARGE_SPREAD_NOTE] * any(results.large_spread(a, b) for a, b in pairs)


def readme_block(sweep, root):
    """19's README: per type its plot and the Sum on every distribution: 19, CUB and 18's rule with their shares of
    the bound, the ratios, and the floor."""
    page, tuning = os.path.join(root, CHAPTER, "README.md"), os.path.join(root, "docs", "tuning.md")
    legend = ("Times in µs; in brackets the share of the bound: the read-only floor's time (timed in the same run) "
              "scaled to the bytes the method must move, the input, the offsets (segments + 1) and a result per "
              "segment for 19 and CUB, the input and a result per row for 18's rule, which reads no offsets. "
              "\"× faster\": CUB's time over 19's; \"18's rule\": `18_split_rows --method auto` on the same values "
              "as a matrix, equal rows only; \"19 ÷ 18's rule\": 19's time over 18's. Every operator: "
              "[docs/tuning.md](" + results.rel_link(page, tuning) + "#19-ragged-segments-every-operator).")
    out, shown, pairs = [caption(sweep, page, root, "the sums", True) + " " + legend], [], []
    for dtype in sweep["types"]:
        rows = []
        for dist in sweep["dists"]:
            ours, cub, rule, floor = (sweep["points"].get((dist, dtype, op, m)) for op, m in
                                      (("sum", OURS), ("sum", CUB), ("sum", "rule"), ("-", FLOOR)))
            if ours is None:
                continue
            shown += [ours, cub, rule]
            pairs += [(cub, ours), (ours, rule)]
            segments, longest = sweep["shape"][(dist, dtype)]
            rows.append([dist, str(segments), str(longest), cell(ours), cell(cub), ratio(cub, ours), cell(rule),
                         ratio(ours, rule), "—" if floor is None else f"{floor['median_ms'] * 1000:.1f}"])
        image = results.rel_link(page, os.path.join(root, "docs", "images", f"ragged_{dtype}.svg"))
        out += [f"**{dtype}**", f"![% of the read+write bound of 19, CUB and 18's rule on every distribution of the "
                                f"lengths, {dtype} sums]({image})",
                table(["lengths", "segments", "longest", "19 µs (% of bound)", "CUB µs (% of bound)",
                       "19 × faster than CUB", "18's rule µs (% of bound)", "19 ÷ 18's rule", "floor µs"],
                      ["---"] + ["---:"] * 8, rows)]
    return page, "\n\n".join(out + notes(shown, pairs))


def steps_block(sweep, root):
    """19's README: what each step buys alone: per type and distribution, each operator's share of the bound with
    19, then for each build without one step (WITHOUT) its time over 19's; None where the runs have neither."""
    page = os.path.join(root, CHAPTER, "README.md")
    if not any(k[3] == method for k in sweep["points"] for method, _, _ in WITHOUT):
        return page, None
    builds = "; ".join(f"without {lacks} ([{source}]({results.rel_link(page, os.path.join(root, CHAPTER, 'bench', source))}))"
                       for _, source, lacks in WITHOUT)
    legend = (f"Each cell: 19's share of the bound, then in brackets the time of 19's copy unit compiled again "
              f"without one step over 19's, each timed interleaved with 19 in the same run: what that step buys "
              f"alone. In order: {builds}.")
    out, shown, pairs = [caption(sweep, page, root, "every operator") + " " + legend], [], []
    for dtype in sweep["types"]:
        rows = []
        for dist in sweep["dists"]:
            found = [(sweep["points"].get((dist, dtype, op, OURS)),
                      [sweep["points"].get((dist, dtype, op, method)) for method, _, _ in WITHOUT]) for op in OPS]
            if not any(ours for ours, _ in found):
                continue
            for ours, others in found:
                shown += [ours] + others
                pairs += [(other, ours) for other in others]
            rows.append([dist] + ["—" if ours is None else f"{ours['bound']:.0f}%{mark(ours)} ("
                                  + ", ".join("—" if other is None else ratio(other, ours) for other in others) + ")"
                                  for ours, others in found])
        out += [f"**{dtype}**", table(["lengths"] + list(OPS), ["---"] + ["---:"] * len(OPS), rows)]
    return page, "\n\n".join(out + notes(shown, pairs))


def tuning_block(sweep, root):
    """docs/tuning.md: per type and distribution, each operator's share of the bound with 19, and CUB's time over
    19's (no CUB for meanvar)."""
    page = os.path.join(root, "docs", "tuning.md")
    legend = ("Each operator of 19 as its share of the bound (the read-only floor's time scaled to the input, the "
              "offsets and the results), and in brackets CUB's time over 19's (CUB has no mean and variance).")
    out, shown, pairs = [caption(sweep, page, root, "every operator") + " " + legend], [], []
    for dtype in sweep["types"]:
        rows = []
        for dist in sweep["dists"]:
            found = [(sweep["points"].get((dist, dtype, op, OURS)), sweep["points"].get((dist, dtype, op, CUB)))
                     for op in OPS]
            if not any(ours for ours, _ in found):
                continue
            shown += [p for pair in found for p in pair]
            pairs += [(cub, ours) for ours, cub in found]
            rows.append([dist] + ["—" if ours is None else f"{ours['bound']:.0f}%" + mark(ours)
                                  + ("" if cub is None else f" ({ratio(cub, ours)})") for ours, cub in found])
        out += [f"**{dtype}**", table(["lengths"] + [f"{op}: % of bound (× CUB)" if op != "meanvar" else
                                                     f"{op}: % of bound" for op in OPS], ["---"] + ["---:"] * 4, rows)]
    return page, "\n\n".join(out + notes(shown, pairs))


def meanvar_block(sweep, root):
    """docs/tuning.md: per distribution and type, MeanVar's share of the bound with 19 (4 blocks an SM, 4 pieces
    gathered at a time), and in brackets the time of the build at 3 blocks an SM gathering 8 (THREE_BLOCKS) over
    19's; None where the runs have no such build."""
    page = os.path.join(root, "docs", "tuning.md")
    method, source = THREE_BLOCKS
    if not any(k[3] == method for k in sweep["points"]):
        return page, None
    build = results.rel_link(page, os.path.join(root, CHAPTER, "bench", source))
    legend = (f"MeanVar of 19 as its share of the bound: 4 blocks an SM, each thread gathering 4 of a cut segment's "
              f"pieces at a time. In brackets the time of the copy unit compiled again with MeanVar at 3 blocks an SM "
              f"gathering 8 ([{source}]({build})) over 19's, timed interleaved with 19 in the same run.")
    rows, shown, pairs = [], [], []
    for dist in sweep["dists"]:
        found = [(sweep["points"].get((dist, dtype, "meanvar", OURS)), sweep["points"].get((dist, dtype, "meanvar", method)))
                 for dtype in sweep["types"]]
        if not any(ours for ours, _ in found):
            continue
        shown += [p for pair in found for p in pair]
        pairs += [(other, ours) for ours, other in found]
        rows.append([dist] + ["—" if ours is None else f"{ours['bound']:.0f}%{mark(ours)} ({ratio(other, ours)})"
                              for ours, other in found])
    out = [caption(sweep, page, root, "MeanVar") + " " + legend,
           table(["lengths"] + [f"{dtype}: % of bound (3 blocks ÷ 4)" for dtype in sweep["types"]],
                 ["---"] + ["---:"] * len(sweep["types"]), rows)]
    return page, "\n\n".join(out + notes(shown, pairs))


def plot(sweep, dtype, path):
    """The Sum on every distribution of the lengths: a bar per method, its share of the bound (the machines'
    range as a whisker), a red cross on a WRONG result."""
    series = []
    for method, color, label in BARS:
        found = [sweep["points"].get((dist, dtype, "sum", method)) for dist in sweep["dists"]]
        if not any(found):
            continue
        ranges = [plots.band(p["bounds"]) if p else (None, None) for p in found]
        series.append({"y": [p and p["bound"] for p in found], "color": color, "label": label,
                       "lo": [lo for lo, _ in ranges], "hi": [hi for _, hi in ranges], "bold": method == OURS,
                       "wrong": [bool(p) and not p["ok"] for p in found]})
    band = "; whiskers: the machines' range" if len(sweep["facts"]) > 1 else ""
    wrong = [("WRONG result", {"color": plots.WRONG_COLOR, "marker": "x", "markersize": 9, "markeredgewidth": 2.2,
                               "linestyle": "none"})] * any(any(s["wrong"]) for s in series)
    plots.bar_plot(path, f"{dtype} sums of ragged segments, n = {power_label(sweep['n'])}: "
                   f"{results.describe_runs(sweep['facts'])}",
                   ["% of the bound: the read-only floor's time scaled to the bytes each method moves (input, "
                    "offsets, results) over its time; 100% moves them at the floor's speed" + band],
                   [textwrap.fill(dist, 12) for dist in sweep["dists"]], series,
                   "the lengths of the segments", "% of the read+write bound", (0, 110),
                   y_ticks=[0, 20, 40, 60, 80, 100], legend_title="method", extra_legend=wrong)


# tools/gpu_suite.sh ragged_ncu: 19's kernel in Nsight Compute, the sum at each distribution, and float's other
# operators (the first run that has them, one run). The files' lengths in the step's order, and the columns: (metric,
# label, format of value and n).
PROFILE = "ragged_ncu_{type}_{lengths}.csv"
PROFILE_OP = "ragged_ncu_{op}_float_{lengths}.csv"  # max, argmax, meanvar (the sum: PROFILE's float file)
PROFILE_LENGTHS = ("uniform", "pareto", "one_half", "four_eighths", "equal_1", "equal_64", "equal_4096")
PROFILE_COLUMNS = [
    ("gpu__time_duration.sum", "time µs", lambda v, n: f"{v / 1000:.1f}"),
    ("sm__inst_executed.sum", "instructions per element", lambda v, n: f"{v * 32 / n:.1f}"),
    ("smsp__issue_active.avg.per_cycle_active", "issued a cycle", lambda v, n: f"{v:.2f}"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM % of peak", lambda v, n: f"{v:.0f}"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy %", lambda v, n: f"{v:.0f}"),
    ("smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "waiting on memory %", lambda v, n: f"{v:.0f}"),
    ("smsp__warp_issue_stalled_barrier_per_warp_active.pct", "waiting at a barrier %", lambda v, n: f"{v:.0f}"),
]


def profile_block(paths, root):
    """docs/tuning.md: where 19's time goes, per type and distribution: the kernel's (ragged_tiles) time,
    instructions, issue rate, DRAM, occupancy and stalls in Nsight Compute; None where no run has the files."""
    page = os.path.join(root, "docs", "tuning.md")
    folder = next((p for p in paths if glob.glob(os.path.join(p, PROFILE.format(type="*", lengths="*")))), None)
    if folder is None:
        return page, None

    def measured(path):  # the distribution's name, n and the launch's metrics; None where ncu measured nothing
        launches = ncu_table.read_launches(path) if os.path.exists(path) else []
        if not launches:
            return None
        with open(path) as f:  # the program's own lines: its n and the distribution's name
            said = re.search(r"^input +(\d+) .* segments? \((.*), longest \d+\)", f.read(), re.M)
        if said is None:
            raise DataError(f"{path}: no input line from 19_ragged_segments")
        return said.group(2), int(said.group(1)), launches[0]

    out, float_sums = [], {}  # float_sums: the float sum's files, read once for both tables
    for dtype in ("float", "bf16"):
        rows = []
        for lengths in PROFILE_LENGTHS:
            got = measured(os.path.join(folder, PROFILE.format(type=dtype, lengths=lengths)))
            if dtype == "float":
                float_sums[lengths] = got
            if got is None:
                continue
            name, n, launch = got
            values = [ncu_table.number(launch.get(key, "")) for key, _, _ in PROFILE_COLUMNS]
            rows.append([name] + ["—" if v is None else fmt(v, n) for v, (_, _, fmt) in zip(values, PROFILE_COLUMNS)])
        if rows:
            out += [f"**{dtype}**", table(["lengths"] + [label for _, label, _ in PROFILE_COLUMNS],
                                          ["---"] + ["---:"] * len(PROFILE_COLUMNS), rows)]
    # Every operator of float: instructions per element and occupancy, where a run has the other operators' files.
    rows = []
    for lengths in PROFILE_LENGTHS:
        cells, name = [], None
        for op in OPS:
            got = float_sums[lengths] if op == "sum" else measured(
                os.path.join(folder, PROFILE_OP.format(op=op, lengths=lengths)))
            if got is None:
                cells.append("—")
                continue
            name, n, launch = got
            instructions = ncu_table.number(launch.get("sm__inst_executed.sum", ""))
            occupancy = ncu_table.number(launch.get("sm__warps_active.avg.pct_of_peak_sustained_active", ""))
            cells.append("—" if instructions is None or occupancy is None else
                         f"{instructions * 32 / n:.1f} ({occupancy:.0f}%)")
        if name is not None and any(c != "—" for c in cells[1:]):
            rows.append([name] + cells)
    if rows:
        out += ["**float, every operator:** instructions per element (occupancy %)",
                table(["lengths"] + list(OPS), ["---"] + ["---:"] * len(OPS), rows)]
    if not out:
        return page, None
    facts = load([folder])[0]["facts"]
    what = ("`tools/gpu_suite.sh ragged_ncu`: `ncu --kernel-name regex:ragged_tiles --launch-count 1` on "
            "`19_ragged_segments --lengths L --type T --op O --seed 20260046 --reps 1 --no-flush` (the bench's "
            "lengths; the sum of float and bf16, and float's other operators), the kernel's first launch, one run")
    legend = ("Instructions per element: the warp instructions executed × 32 / n. Issued a cycle: the instructions "
              "each scheduler issued a cycle while it had warps (at most 1). Waiting on memory, at a barrier: the "
              "share of the warps' active cycles stalled on a global load's result (long scoreboard) or at a "
              "`__syncthreads` (Nsight Compute's stall reasons).")
    return page, "\n\n".join([results.caption([facts], what, page, root) + " " + legend] + out)


# tools/gpu_suite.sh ragged_n: 19's sum on one segment (equal rows, M = 1) at several n, each with its own run's
# read-only floor, and 18's rule on the same rows (a kind of run of its own: docs/data/ragged_n/runK).
N_FILE = "ragged_n.jsonl"
N_FIELDS = ("chapter", "type", "op", "median_ms", "iqr_ms", "ok")


def n_block(paths, root):
    """docs/tuning.md: 19's Sum on one segment of n elements as n grows: the floor's time (in 19's run), 19's time
    and share of the bound, 19's time less the floor's (each machine's own, then the median), and 18's rule on the
    same row with its share of its own run's floor; the n that every machine measured."""
    page = os.path.join(root, "docs", "tuning.md")
    machines = []
    for folder in paths:
        path = os.path.join(folder, N_FILE)
        records = results.read_records(path)
        ours = {r["n"]: r for r in records if r.get("chapter") == CHAPTER and r.get("segments") == 1}
        rule = {r["cols"]: r for r in records if r.get("chapter") == "18_split_rows" and r.get("rows") == 1}
        missing = sorted({k for r in records for k in N_FIELDS if k not in r} |
                         {k for r in ours.values() for k in ("floor_ms", "percent_of_bound") if k not in r} |
                         {k for r in rule.values() for k in ("percent_of_floor",) if k not in r})
        if missing or not ours:
            raise DataError(f"{path}: no {', '.join(missing) or CHAPTER + ' run'} "
                            "(is this `tools/gpu_suite.sh ragged_n`'s?)")
        machines.append((results.machine(folder, next(iter(ours.values()))), ours, rule))
    rows, shown = [], []
    for n in sorted(set.intersection(*(set(ours) for _, ours, _ in machines))):
        found = [ours[n] for _, ours, _ in machines]
        rules = [rule.get(n) for _, _, rule in machines]
        ours_p = point(found, [r["percent_of_bound"] for r in found])
        rule_p = point(rules, [r["percent_of_floor"] for r in rules]) if all(rules) else None
        shown += [ours_p, rule_p]
        rows.append([power_label(n), f"{median(r['floor_ms'] for r in found) * 1000:.1f}", cell(ours_p),
                     f"{median(r['median_ms'] - r['floor_ms'] for r in found) * 1000:.1f}", cell(rule_p)])
    dtype = next(iter(machines[0][1].values()))["type"]
    what = (f"`tools/gpu_suite.sh ragged_n`: `19_ragged_segments --lengths equal --rows 1 --n N --type {dtype} "
            "--op sum` and `18_split_rows --rows 1 --cols N --method auto`, each with the read-only floor timed in "
            "its own run")
    legend = ("19's time, and in brackets its share of the bound; 19 less the floor: each machine's 19 time less "
              "its floor's; 18's rule: in brackets its share of its own run's floor.")
    text = "\n\n".join([results.caption([f for f, _, _ in machines], what, page, root) + " " + legend,
                          table(["n", "floor µs", "19 µs (% of bound)", "19 less the floor µs",
                                 "18's rule µs (% of floor)"], ["---:"] * 5, rows)] + notes(shown, []))
    return results.write_blocks([(page, "results:ragged_n", text)], root, "fill_ragged")


def publish(paths, root):
    """Draws the plots and fills 19's README blocks and docs/tuning.md's from the run folders, one per machine.
    Returns what it wrote."""
    sweep = combine(load(paths))
    images = os.path.join(root, "docs", "images")
    os.makedirs(images, exist_ok=True)
    drawn = plots.draw([(path, plot, (sweep, dtype, path)) for dtype in sweep["types"]
                        for path in [os.path.join(images, f"ragged_{dtype}.svg")]], "fill_ragged.py")
    readme, text = readme_block(sweep, root)
    _, steps = steps_block(sweep, root)
    tuning, ops = tuning_block(sweep, root)
    _, meanvar = meanvar_block(sweep, root)
    _, profile = profile_block(paths, root)
    return drawn + results.write_blocks([(readme, f"results:{CHAPTER}", text), (readme, STEPS_MARKER, steps),
                                         (tuning, "results:ragged_ops", ops), (tuning, "results:ragged_meanvar", meanvar),
                                         (tuning, "results:ragged_profile", profile)],
                                        root, "fill_ragged")
