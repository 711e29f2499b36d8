#!/usr/bin/env python3
"""Turns the tour's sweep files into the results pages, the plots and the README tables.

    python3 tools/results.py docs/data          (or: results.py update docs/data)

reads DATA/sweep_int.json and DATA/sweep_float.json (written by
`build/release/bin/tour --sweep --type int --out docs/data`) and writes

    docs/results.md                 every chapter at N = 2^16 .. 2^30, and every size in
                                    a collapsible table, for each type
    docs/images/results_int.svg     GB/s against N, one line per chapter (and _float)
    README.md                       the block <!-- results:main --> ... <!-- /results -->:
                                    the 2^24 and 2^28 int tables and the plot
    NN_name/README.md (any *.md)    each block <!-- results:NN_name --> ... <!-- /results -->:
                                    that chapter's times, GB/s and % of peak

Other marker blocks (<!-- ncu:... --> and so on) are left alone; fill them with

    python3 tools/results.py fill FILE MARKER < text.md

which replaces what lies between `<!-- MARKER -->` and `<!-- /KIND -->` (KIND is
MARKER up to its colon: `ncu:04_shared_tree` ends at `<!-- /ncu -->`) with the text
read from standard input, in every such block of FILE.

Python 3 standard library only.
"""

import argparse
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg import Svg, write  # noqa: E402

TYPES = ("int", "float")
TYPE_BYTES = {"int": 4, "float": 4, "double": 8}
TABLE_POWERS = (16, 20, 24, 28, 30)
MAIN_POWERS = (24, 28)
CPU = "00_cpu_baseline"
FIRST_GPU = "01_global_naive"
CUB = "10_cub"
FLOOR = "read-only floor"  # the tour's kernel that only reads the input: a yardstick, not a chapter
REPRODUCE = "build/release/bin/tour --sweep --type int --out docs/data"
SKIP_DIRS = {"build", "node_modules", "__pycache__"}


class DataError(Exception):
    """A sweep file that is missing, unreadable or not in the tour's format."""


# ----------------------------------------------------------------------------- reading

def load_sweep(path):
    try:
        with open(path, encoding="utf-8") as f:
            sweep = json.load(f)
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise DataError(f"{path} is not valid JSON: {e}")
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
    table = {}
    for row in sweep["rows"]:
        table.setdefault(row["chapter"], {})[row["n"]] = row
    sweep["floor"] = table.pop(FLOOR, {})  # older sweeps have none
    sweep["table"] = table
    sweep["chapters"] = sorted(table)
    sweep["sizes"] = sorted({row["n"] for row in sweep["rows"]})
    sweep["path"] = path
    return sweep


def load_all(data_dir):
    sweeps = {}
    for dtype in TYPES:
        path = os.path.join(data_dir, f"sweep_{dtype}.json")
        if os.path.exists(path):
            sweep = load_sweep(path)
            if sweep["type"] != dtype:
                raise DataError(f"{path} holds type '{sweep['type']}', expected '{dtype}'")
            sweeps[dtype] = sweep
    if not sweeps:
        raise DataError(f"no sweep_int.json or sweep_float.json in '{data_dir}'; make them with: {REPRODUCE}")
    return sweeps


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
    return row.get("percent_of_peak", 100 * row["gbps"] / sweep["peak_gbps"])


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


def rel_link(from_file, target):
    return os.path.relpath(target, os.path.dirname(os.path.abspath(from_file))).replace(os.sep, "/")


def chapter_link(chapter, root, from_file):
    readme = os.path.join(root, chapter, "README.md")
    if os.path.exists(readme):
        return f"[{chapter}]({rel_link(from_file, readme)})"
    return chapter


def chapter_note(chapter):
    return " (CPU)" if chapter == CPU else " (yardstick)" if chapter == CUB else ""


def measured_on(sweep, dtype=None):
    reps = f"median of {sweep['reps']} runs" if isinstance(sweep.get("reps"), int) else "median of the timed runs"
    flush = "L2 flushed before each" if sweep.get("flush", True) else "L2 not flushed (--no-flush)"
    what = f"`{dtype}` sums, " if dtype else ""
    return (f"Measured on **{sweep['device']}** (peak {sweep['peak_gbps']:.0f} GB/s), CUDA {sweep['cuda']}, "
            f"{sweep['date']}: {what}{reps}, {flush}")


def table(header, aligns, rows):
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(aligns) + " |"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def any_wrong(sweeps):
    return any(not row["ok"] for sweep in sweeps.values() for row in sweep["rows"])


WRONG_NOTE = "⚠: the chapter's result was WRONG at that size; the time is shown but does not count."


# ----------------------------------------------------------------------------- results.md

def results_page(sweeps, root, page):
    out = ["# Results", "",
           "<!-- Generated by tools/results.py from docs/data/sweep_*.json: do not edit by hand. -->", ""]
    sources = []
    for dtype, sweep in sweeps.items():
        reps = f"the median of {sweep['reps']} timed runs" if isinstance(sweep.get("reps"), int) else "the median"
        flush = "the L2 cache flushed before each run" if sweep.get("flush", True) else "the L2 cache not flushed"
        name = os.path.basename(sweep["path"])
        inside = not os.path.relpath(os.path.abspath(sweep["path"]), root).startswith("..")
        source = f"[{name}]({rel_link(page, sweep['path'])})" if inside else f"`{name}`"
        sources.append(f"`{dtype}`: {source}, "
                       f"measured on **{sweep['device']}** with CUDA {sweep['cuda']} on {sweep['date']}, "
                       f"{reps}, {flush}")
    out += ["Every number on this page comes from the tour's sweep (`tour --sweep`), one file per element type:", ""]
    out += [f"- {s}" for s in sources]
    peaks = {f"{s['peak_gbps']:.0f}" for s in sweeps.values()}
    out += ["",
            "Each GPU chapter runs at its own default launch shape on the same input and is checked against the "
            "CPU reference. The time covers every launch that turns the input into the final value; GB/s is the "
            f"input's bytes divided by that time, and % of peak compares it with the GPU's peak bandwidth "
            f"({' / '.join(sorted(peaks))} GB/s, 2 × memory clock × bus width). Chapter 00 is the multi-threaded "
            "CPU sum: the GPU's peak does not apply to it. CUB (10_cub) is the yardstick.", ""]
    if any_wrong(sweeps):
        out += [WRONG_NOTE, ""]
    for dtype, sweep in sweeps.items():
        out += section(dtype, sweep, root, page)
    out += ["## How to reproduce", "",
            "On a machine with a CUDA GPU, from the repository root:", "", "```sh",
            "cmake --preset release && cmake --build --preset release",
            "mkdir -p docs/data"]
    out += [REPRODUCE.replace("--type int", f"--type {t}") for t in TYPES]
    out += ["python3 tools/results.py docs/data   # this page, the plots, the README tables", "```", "",
            "A sweep runs every chapter at N = 2^10 .. 2^30 (stopping early if the GPU's memory runs out) and takes "
            "a while. Keep the machine otherwise idle while it runs.", ""]
    return "\n".join(out)


def section(dtype, sweep, root, page):
    sizes = [1 << k for k in TABLE_POWERS]
    plot = os.path.join(root, "docs", "images", f"results_{dtype}.svg")
    out = [f"## {dtype}", "", f"![GB/s against N for every chapter, {dtype}]({rel_link(page, plot)})", "",
           f"### Time (median), {dtype}", ""]
    rows = []
    for chapter in sweep["chapters"]:
        cells = [chapter_link(chapter, root, page) + chapter_note(chapter)]
        for n in sizes:
            row = sweep["table"][chapter].get(n)
            cells.append(fmt_time(row["ms"] if row else None) + wrong(row))
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
            cells.append(fmt_gbps(row["gbps"]) + ("" if p is None else f" ({fmt_percent(p)})") + wrong(row))
        rows.append(cells)
    out += [table(header, ["---"] + ["---:"] * len(sizes), rows), ""]
    out += ["<details>", f"<summary>Every size, {dtype} (N = {power_label(sweep['sizes'][0])} .. "
            f"{power_label(sweep['sizes'][-1])})</summary>", ""]
    rows = []
    for n in sweep["sizes"]:
        for chapter in sweep["chapters"]:
            row = sweep["table"][chapter].get(n)
            if row is None:
                continue
            rows.append([power_label(n), chapter, fmt_time(row["ms"]), fmt_gbps(row["gbps"]),
                         fmt_percent(percent_of_peak(row, sweep)), "ok" if row["ok"] else "**WRONG**"])
    out += [table(["N", "chapter", "time", "GB/s", "% of peak", "check"], ["---:", "---", "---:", "---:", "---:", "---"],
                  rows), "", "</details>", ""]
    return out


# ----------------------------------------------------------------------------- README blocks

def main_block(sweeps, root, readme):
    dtype = "int" if "int" in sweeps else next(iter(sweeps))
    sweep = sweeps[dtype]
    results = os.path.join(root, "docs", "results.md")
    out = [f"{measured_on(sweep, dtype)}. \"vs previous\" is the speed-up over the row above, \"vs 01\" over "
           f"chapter 01. Every size and `float`: [docs/results.md]({rel_link(readme, results)}).", ""]
    if any_wrong({dtype: sweep}):
        out += [WRONG_NOTE, ""]
    for k in MAIN_POWERS:
        n = 1 << k
        present = [c for c in sweep["chapters"] if n in sweep["table"][c]]
        if not present:
            out += [f"N = 2^{k}: not measured (the sweep stopped before this size).", ""]
            continue
        first = sweep["table"].get(FIRST_GPU, {}).get(n)
        rows, previous = [], None
        for chapter in present:
            row = sweep["table"][chapter][n]
            rows.append([chapter_link(chapter, root, readme) + chapter_note(chapter), fmt_time(row["ms"]) + wrong(row),
                         fmt_gbps(row["gbps"]), fmt_percent(percent_of_peak(row, sweep)),
                         fmt_percent(percent_of_floor(row, sweep)),
                         fmt_ratio(ratio(previous, row)), fmt_ratio(ratio(first, row))])
            previous = row
        out += [f"**N = 2^{k} {dtype}s ({size_label(n, dtype)})**", ""]
        out += [table(["chapter", "time", "GB/s", "% of peak", "% of floor", "vs previous", "vs 01"],
                      ["---", "---:", "---:", "---:", "---:", "---:", "---:"], rows), ""]
        floor = sweep["floor"].get(n)
        if floor:
            out += [f"The read-only floor (a kernel that only reads the input, with 16-byte loads): "
                    f"{fmt_time(floor['ms'])}, {fmt_gbps(floor['gbps'])} GB/s, "
                    f"{fmt_percent(100 * floor['gbps'] / sweep['peak_gbps'])} of peak. \"% of floor\" is a chapter's "
                    f"share of that bandwidth: what this GPU can actually read, where \"% of peak\" is the datasheet's.",
                    ""]
    plot = os.path.join(root, "docs", "images", f"results_{dtype}.svg")
    out += [f"![GB/s against N for every chapter ({dtype})]({rel_link(readme, plot)})"]
    return "\n".join(out)


def chapter_block(chapter, sweeps, root, readme):
    present = {t: s for t, s in sweeps.items() if chapter in s["table"]}
    if not present:
        return None
    first = next(iter(present.values()))
    same = all((s["device"], s["cuda"], s["date"]) == (first["device"], first["cuda"], first["date"])
               for s in present.values())
    results = os.path.join(root, "docs", "results.md")
    if chapter == CPU:
        intro = (f"Measured by the tour on the host CPU of the machine with **{first['device']}**, {first['date']} "
                 "(the same sweep as the GPU chapters; GB/s = input bytes / median time).")
    elif same:
        intro = measured_on(first) + "."
    else:
        intro = " ".join(f"{measured_on(s, t)}." for t, s in present.items())
    out = [f"{intro} Every chapter at every size: [docs/results.md]({rel_link(readme, results)}).", ""]
    if any(not r["ok"] for s in present.values() for r in s["table"][chapter].values()):
        out += [WRONG_NOTE, ""]
    header, aligns = ["N"], ["---:"]
    for dtype in present:
        header += [f"{dtype} time", f"{dtype} GB/s"] + ([] if chapter == CPU else [f"{dtype} % of peak"])
        aligns += ["---:"] * (2 if chapter == CPU else 3)
    rows = []
    for k in TABLE_POWERS:
        n = 1 << k
        cells = [f"2^{k}"]
        for dtype, sweep in present.items():
            row = sweep["table"][chapter].get(n)
            cells += [fmt_time(row["ms"] if row else None) + wrong(row), fmt_gbps(row["gbps"] if row else None)]
            if chapter != CPU:
                cells.append(fmt_percent(percent_of_peak(row, sweep)))
        rows.append(cells)
    out.append(table(header, aligns, rows))
    comparison = compare_line(chapter, present)
    if comparison:
        out += ["", comparison]
    return "\n".join(out)


def compare_line(chapter, sweeps):
    """One sentence: this chapter against the previous one, 01 and CUB, at N = 2^24 of the first type."""
    n = 1 << 24
    dtype, sweep = next(iter(sweeps.items()))
    row = sweep["table"][chapter].get(n)
    if row is None or chapter == CPU:
        return None
    chapters = sweep["chapters"]
    index = chapters.index(chapter)
    parts = []
    previous = chapters[index - 1] if index > 0 else None
    if previous is not None:
        r = ratio(sweep["table"][previous].get(n), row)
        if r is not None:
            parts.append(f"{r:.2f}× as fast as {previous}")
    # Against 01 as well, unless 01 is the previous chapter (already named) or this one.
    if (chapter not in (FIRST_GPU, CUB) and previous != FIRST_GPU and FIRST_GPU in chapters
            and chapters.index(FIRST_GPU) < index and FIRST_GPU in sweep["table"]):
        r = ratio(sweep["table"][FIRST_GPU].get(n), row)
        if r is not None:
            parts.append(f"{r:.2f}× as fast as {FIRST_GPU}")
    if chapter != CUB and CUB in sweep["table"]:
        cub = sweep["table"][CUB].get(n)
        if cub is not None and cub["gbps"] > 0:
            parts.append(f"{100 * row['gbps'] / cub['gbps']:.0f}% of CUB's bandwidth")
    if not parts:
        return None
    return f"At N = 2^24 {dtype}s this chapter runs " + ", ".join(parts) + "."


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


def fill_file(path, marker, content):
    """Fills every block MARKER of a file. Returns the number of blocks; writes only on change."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new_text, count = fill_text(text, marker, content)
    if new_text != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new_text)
    return count


def find_markdown(root):
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS and not d.startswith("."))
        found.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".md"))
    return found


RESULTS_MARKER = re.compile(r"^\s*<!--\s*(results:[A-Za-z0-9_\-]+)\s*-->\s*$", re.M)


# ----------------------------------------------------------------------------- the plot

PALETTE = ["#d62728", "#ff7f0e", "#bcbd22", "#2ca02c", "#17becf", "#1f77b4", "#9467bd", "#8c564b", "#e377c2"]


def nice_step(span, ticks=6):
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * power:
            return m * power
    return 10 * power


def plot(dtype, sweep, path):
    width, height = 980.0, 580.0
    x0, x1, y0, y1 = 84.0, width - 230.0, 92.0, height - 70.0
    k_min, k_max = 10, 30
    peak = sweep["peak_gbps"]
    top_value = max([peak] + [r["gbps"] for r in sweep["rows"]])
    step = nice_step(top_value * 1.08, ticks=8)
    y_max = step * math.ceil(top_value * 1.08 / step)

    def px(n):
        return x0 + (math.log2(n) - k_min) / (k_max - k_min) * (x1 - x0)

    def py(gbps):
        return y1 - min(gbps, y_max) / y_max * (y1 - y0)

    title = f"{dtype} sum, GB/s against N: {sweep['device']}, CUDA {sweep['cuda']}, {sweep['date']}"
    subtitle = (f"every chapter at its default launch shape; median of {sweep.get('reps', '?')} runs, "
                f"{'L2 flushed before each' if sweep.get('flush', True) else 'L2 not flushed'}; "
                "GB/s = input bytes / time")
    svg = Svg(width, height, title, subtitle)
    svg.text(20, 30, title, size=18, weight="bold")
    svg.text(20, 52, subtitle, size=13, color="#444")

    # Grid and axes.
    value = 0.0
    while value <= y_max + 1e-9:
        y = py(value)
        svg.line(x0, y, x1, y, stroke="#e6e6e6", width=1.0)
        svg.text(x0 - 8, y + 4, f"{value:g}", size=12, anchor="end", color="#444")
        value += step
    for k in range(k_min, k_max + 1, 2):
        x = px(1 << k)
        svg.line(x, y0, x, y1, stroke="#efefef", width=1.0)
        svg.raw_text(x, y1 + 20, f'2<tspan dy="-6" font-size="10">{k}</tspan>', size=13, anchor="middle",
                     color="#444")
    svg.line(x0, y1, x1, y1, stroke="#444", width=1.2)
    svg.line(x0, y0, x0, y1, stroke="#444", width=1.2)
    svg.text((x0 + x1) / 2, height - 22, "N (elements, log scale)", size=13, anchor="middle")
    svg.text(22, (y0 + y1) / 2, "GB/s (input bytes / median time)", size=13, anchor="middle",
             transform=f"rotate(-90 22 {(y0 + y1) / 2:.1f})")

    # The peak.
    yp = py(peak)
    svg.line(x0, yp, x1, yp, stroke="#555", width=1.4, stroke_dasharray="7 5")
    svg.text(x1 - 4, yp - 6, f"peak {peak:.0f} GB/s", size=12, anchor="end", color="#444")

    # One line per chapter, CUB last and thickest, on top.
    chapters = [c for c in sweep["chapters"] if c != CUB] + ([CUB] if CUB in sweep["table"] else [])
    colors, k = {}, 0
    for chapter in sweep["chapters"]:
        if chapter == CUB:
            colors[chapter] = "#111111"
        elif chapter == CPU:
            colors[chapter] = "#8a8a8a"
        else:
            colors[chapter] = PALETTE[k % len(PALETTE)]
            k += 1
    for chapter in chapters:
        points = sorted(sweep["table"][chapter].items())
        xy = [(px(n), py(r["gbps"])) for n, r in points if n >= 1 << k_min]
        color = colors[chapter]
        thick = 4.0 if chapter == CUB else 2.0
        dash = "2 4" if chapter == CPU else None
        if len(xy) > 1:
            svg.polyline(xy, stroke=color, width=thick, stroke_dasharray=dash)
        for (x, y), (n, r) in zip(xy, [p for p in points if p[0] >= 1 << k_min]):
            if r["ok"]:
                svg.circle(x, y, 3.5 if chapter == CUB else 2.6, fill=color)
            else:
                svg.line(x - 5, y - 5, x + 5, y + 5, stroke="#d00000", width=2.2)
                svg.line(x - 5, y + 5, x + 5, y - 5, stroke="#d00000", width=2.2)

    # Legend.
    lx, ly = x1 + 24, y0 + 4
    svg.text(lx, ly, "chapter", size=13, weight="bold")
    for i, chapter in enumerate(sweep["chapters"]):
        y = ly + 22 + 21 * i
        color = colors[chapter]
        svg.line(lx, y - 4, lx + 28, y - 4, stroke=color, width=4.0 if chapter == CUB else 2.0,
                 stroke_dasharray="2 4" if chapter == CPU else None)
        label = chapter + (" (CPU)" if chapter == CPU else " (CUB)" if chapter == CUB else "")
        svg.text(lx + 36, y, label, size=12, weight="bold" if chapter == CUB else None)
    y = ly + 22 + 21 * len(sweep["chapters"]) + 8
    svg.line(lx, y - 4, lx + 28, y - 4, stroke="#555", width=1.4, stroke_dasharray="7 5")
    svg.text(lx + 36, y, "peak bandwidth", size=12)
    if any(not r["ok"] for r in sweep["rows"]):
        y += 21
        svg.line(lx + 9, y - 9, lx + 19, y + 1, stroke="#d00000", width=2.2)
        svg.line(lx + 9, y + 1, lx + 19, y - 9, stroke="#d00000", width=2.2)
        svg.text(lx + 36, y, "WRONG result", size=12)
    write(svg, path)


# ----------------------------------------------------------------------------- commands

def update(data_dir, root, readmes=True):
    sweeps = load_all(data_dir)
    images = os.path.join(root, "docs", "images")
    os.makedirs(images, exist_ok=True)
    written = []
    for dtype, sweep in sweeps.items():
        path = os.path.join(images, f"results_{dtype}.svg")
        plot(dtype, sweep, path)
        written.append(path)
    page = os.path.join(root, "docs", "results.md")
    with open(page, "w", encoding="utf-8") as f:
        f.write(results_page(sweeps, root, page))
    written.append(page)
    warnings = []
    if readmes:
        for path in find_markdown(root):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for marker in sorted(set(RESULTS_MARKER.findall(text))):
                key = marker.split(":", 1)[1]
                content = main_block(sweeps, root, path) if key == "main" else chapter_block(key, sweeps, root, path)
                if content is None:
                    warnings.append(f"{os.path.relpath(path, root)}: no data for '{key}' in the sweep; "
                                    "block left as it was")
                    continue
                try:
                    fill_file(path, marker, content)
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
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root_default = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if argv and argv[0] == "fill":
        parser = argparse.ArgumentParser(prog="results.py fill",
                                         description="Replace the inside of every <!-- MARKER --> ... <!-- /KIND --> "
                                                     "block of FILE with standard input.")
        parser.add_argument("file")
        parser.add_argument("marker", help="e.g. ncu:04_shared_tree (the block ends at <!-- /ncu -->)")
        args = parser.parse_args(argv[1:])
        content = sys.stdin.read()
        try:
            count = fill_file(args.file, args.marker, content)
        except (OSError, ValueError) as e:
            print(f"results.py fill: {e}", file=sys.stderr)
            return 2
        if count == 0:
            print(f"results.py fill: no '<!-- {args.marker} -->' line in {args.file}", file=sys.stderr)
            return 1
        print(f"filled {count} block{'s' if count != 1 else ''} '{args.marker}' in {args.file}")
        return 0
    if argv and argv[0] == "update":
        argv = argv[1:]
    parser = argparse.ArgumentParser(
        description="Write docs/results.md, the plots and the README results blocks from the tour's sweep files. "
                    "(Also: results.py fill FILE MARKER < text.)")
    parser.add_argument("data", nargs="?", default=os.path.join(root_default, "docs", "data"),
                        help="folder with sweep_int.json and sweep_float.json (default docs/data)")
    parser.add_argument("--root", default=root_default, help="repository root (default: this script's repository)")
    parser.add_argument("--no-readmes", action="store_true", help="write results.md and the plots only")
    args = parser.parse_args(argv)
    try:
        return update(args.data, os.path.abspath(args.root), readmes=not args.no_readmes)
    except DataError as e:
        print(f"results.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
