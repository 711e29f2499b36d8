#!/usr/bin/env python3
"""Draws the addressing-scheme diagrams of the tutorial as SVG files (Python 3 standard library only).

    python3 tools/draw_schemes.py [--block 16] [--out docs/images]

A tree diagram shows the array after every step (partial sums of a small example input), an arrow from each of the
two cells a thread adds to the cell it writes, and the block's threads at work; main() lists the files.
"""

import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg import MONO, SUBTLE, TEXT, Svg, hls_color, wrap  # noqa: E402

ACTIVE = "#1f6fb2"        # arrows, thread labels, working threads
WRITTEN_FILL = "#d3e6f8"  # a cell written in this step
LIVE_STROKE = "#4a4f57"   # a cell still to be read
DEAD_FILL = "#f2f2f2"     # a cell no longer read
DEAD_STROKE = "#d2d2d2"
DEAD_TEXT = "#a9a9a9"
RESULT_FILL = "#ffe08a"   # the final sum
RESULT_STROKE = "#b88a00"
FAINT = "#c4c4c4"         # work whose result is never used
IDLE = "#b5b5b5"         # an idle thread's outline, padding

WARP_SIZE = 32
WARP_LINE = "#e07b00"     # warp boundaries, "diverged"
WARP_COLORS = (ACTIVE, "#8a44b0", "#0f8a6e", "#b0601a")  # the threads of warps 0, 1, 2, 3 (then again)


def example_values(n):
    """A fixed small input (1..9) so that every partial sum in the picture can be checked by hand."""
    return [(i * 7 + 3) % 9 + 1 for i in range(n)]


class Step:
    """One step of a tree: the pairs added, who adds them, and which cells are still needed after it."""

    def __init__(self, rule, pairs, working, live_after, unused_pairs=(), no_source=()):
        self.rule = rule                  # lines of text: the step's rule, as code
        self.pairs = pairs                # (destination, source, thread id) of each useful addition
        self.working = set(working)       # ids of the threads doing useful work
        self.live_after = set(live_after)  # cells read by a later step (or the result)
        self.unused_pairs = list(unused_pairs)  # (destination, source): computed, never used
        self.no_source = list(no_source)  # lanes whose source lane is out of range (or is padding)
        self.notes = []                   # lines of text under the rule

    @property
    def stride(self):
        """How far apart the two cells of each pair are."""
        return self.pairs[0][1] - self.pairs[0][0]


def halving_steps(first, last, rule, block):
    """Steps of stride first, first / 2, ..., last: thread t < stride adds [t + stride] into [t] where that slot
    exists (t + stride < block); rule(stride) gives the step's lines of code."""
    steps, stride = [], first
    while stride >= last:
        pairs = [(t, t + stride, t) for t in range(stride) if t + stride < block]
        missing = [t for t in range(min(stride, block)) if t + stride >= block]  # partner is padding
        steps.append(Step(rule(stride), pairs, [p[2] for p in pairs], range(min(stride, block)), no_source=missing))
        stride //= 2
    return steps


def block_steps(scheme, block, name="x"):
    """The steps of a block-level tree of `block` elements: "interleaved", "neighbored" or "neighbored_less"."""
    if scheme == "interleaved":
        return halving_steps(block // 2, 1, lambda s: [f"if (t < {s})", f"  {name}[t] += {name}[t + {s}]"], block)
    steps, stride = [], 1
    while stride < block:
        span = 2 * stride
        if scheme == "neighbored":
            pairs = [(t, t + stride, t) for t in range(0, block, span)]
            rule = [f"if (t % {span} == 0)", f"  {name}[t] += {name}[t + {stride}]"]
        else:
            pairs = [(span * t, span * t + stride, t) for t in range(block // span)]
            rule = [f"i = {span} * t", f"if (i + {stride} < {block})", f"  {name}[i] += {name}[i + {stride}]"]
        steps.append(Step(rule, pairs, [p[2] for p in pairs], range(0, block, span)))
        stride *= 2
    return steps


def shuffle_steps(lanes):
    """07: lane l adds what lane l + offset holds, offsets lanes / 2 down to 1; only lanes < offset matter."""
    steps, offset = [], lanes // 2
    while offset > 0:
        useful = [(lane, lane + offset, lane) for lane in range(offset)]
        unused = [(lane, lane + offset) for lane in range(offset, lanes - offset)]
        rule = ["from = __shfl_down_sync(", f"         mask, v, {offset})", f"if (l + {offset} < {lanes}) v += from"]
        steps.append(Step(rule, useful, range(offset), range(offset), unused, range(lanes - offset, lanes)))
        offset //= 2
    return steps


def pow2ceil(x):
    """The smallest power of two at or above x (the device's __clz trick in 05 computes the same)."""
    return 1 << max(x - 1, 0).bit_length()


def padded_steps(block, name="partial"):
    """05: the tree over a block padded, in thought, to pow2ceil(block) slots: at each stride, thread
    t < stride adds partial[t + stride] only when that slot exists (t + stride < block)."""
    steps = halving_steps(pow2ceil(block) // 2, 1, lambda s: [f"if (t < {s} &&", f"    t + {s} < {block})",
                                                             f"  {name}[t] +=", f"    {name}[t + {s}]"], block)
    for step in steps:
        if step.no_source:
            missing = step.no_source
            step.notes = [f"t 0–{step.pairs[-1][2]} add,", f"t {missing[0]}–{missing[-1]}: no partner"]
    return steps


def unroll_block_steps(block, name="partial"):
    """06, part 1: the written-out block-wide halvings of a power-of-two block, down to 64 values."""
    return halving_steps(block // 2, 64, lambda s: [f"if (t < {s})", f"  {name}[t] +=", f"    {name}[t + {s}]"], block)


def warp_fold_steps(name="partial"):
    """06, part 2: warp 0 folds partial[0..63] into partial[0] (warp_fold_64)."""
    def rule(stride):
        cond = [] if stride == 32 else ["if (lane == 0)" if stride == 1 else f"if (lane < {stride})"]
        return cond + [f"  {name}[lane] +=", f"    {name}[lane + {stride}]"]

    steps = halving_steps(32, 1, rule, 64)
    for step in steps:
        step.notes = [f"{len(step.pairs)} of 32 lanes"]
    return steps


def simulate(values, steps, shuffle):
    """The array after each step (rows[0] is the input)."""
    rows = [list(values)]
    for step in steps:
        old, new = rows[-1], list(rows[-1])
        if shuffle:  # every lane adds what lane + offset holds; a lane with no such source adds nothing
            n = len(old)
            new = [old[lane] + (old[lane + step.stride] if lane + step.stride < n else 0) for lane in range(n)]
        else:
            for destination, source, _ in step.pairs:
                new[destination] = old[destination] + old[source]
        rows.append(new)
    return rows


def warp_color(thread):
    return WARP_COLORS[(thread // WARP_SIZE) % len(WARP_COLORS)]


def cell_style(i, written, live, result=False):
    """(fill, stroke, text colour, font weight) of cell i: the result, written in this step, still read, or dead."""
    if result:
        return RESULT_FILL, RESULT_STROKE, TEXT, "bold"
    if i in written:
        return WRITTEN_FILL, ACTIVE, TEXT, "bold"
    if i in live:
        return "#ffffff", LIVE_STROKE, TEXT, None
    return DEAD_FILL, DEAD_STROKE, DEAD_TEXT, None


def titled(width, title, caption, space, char_w=6.9):
    """A new Svg with the diagram's title and its caption, wrapped; returns it and the y `space` below the caption."""
    svg = Svg(width, 0, title, caption)
    svg.text(20, 32, title, size=18, weight="bold")
    lines = wrap(caption, int((width - 40) / char_w))
    for k, line in enumerate(lines):
        svg.text(20, 56 + 18 * k, line, size=13, color="#444")
    return svg, 56 + 18 * len(lines) + space


def barrier_line(svg, left, right, y, label, label_right=False):
    """A dashed line across the array at y for a barrier, named left of it (or right of it)."""
    svg.line(left, y, right, y, stroke="#9a9a9a", width=1.0, stroke_dasharray="5 4")
    if label_right:
        svg.text(right + 6, y + 4, label, size=10, color=SUBTLE, family=MONO)
    else:
        svg.text(left - 12, y + 4, label, size=10, anchor="end", color=SUBTLE, family=MONO)


def rule_column(svg, x, y, k, rule, notes, color=TEXT):
    """Step k + 1 in the left column, ending at x from y down: its number, its rule as code, its notes."""
    svg.text(x, y, f"step {k + 1}", size=12, anchor="end", weight="bold")
    for line in rule:
        y += 14
        svg.text(x, y, line, size=11, anchor="end", family=MONO, color=color, xml_space="preserve")
    for note in notes:
        y += 14
        svg.text(x, y, note, size=10.5, anchor="end", color=SUBTLE)


def pill(svg, x, top, w, h, fill, label, size, baseline):
    """A rounded label (a thread's or a warp's id) centred on x, its text's baseline at y = baseline."""
    svg.rect(x - w / 2, top, w, h, fill=fill, rx=h / 2)
    svg.text(x, baseline, label, size=size, anchor="middle", color="#ffffff", weight="bold")


SWATCHES = {"written": (WRITTEN_FILL, ACTIVE), "live": ("#ffffff", LIVE_STROKE), "dead": (DEAD_FILL, DEAD_STROKE),
            "working": (ACTIVE, ACTIVE), "idle": ("#ffffff", IDLE)}  # legend: cells, then threads
CELL_LEGEND = [("written", "written in this step"), ("live", "still to be read"), ("dead", "no longer read")]


def draw_legend(svg, y, width, items, pill_text="3"):
    """Legend items (kind, label) in rows from x = 20 that fit `width`; returns the last row's y."""
    x = 20.0
    for kind, label in items:
        needed = 30 + 6.6 * len(label) + 22
        if x + needed > width - 10:
            x, y = 20.0, y + 24
        fill, stroke = SWATCHES.get(kind, (None, None))
        if kind in ("written", "live", "dead"):
            svg.rect(x, y - 11, 22, 16, fill=fill, stroke=stroke, rx=3)
        elif kind in ("working", "idle"):
            svg.rect(x + 4, y - 11, 14, 14, fill=fill, stroke=stroke, rx=2)
        elif kind == "padding":
            svg.rect(x, y - 11, 22, 16, fill="#ffffff", stroke=IDLE, rx=2, stroke_dasharray="2 2")
        elif kind == "pill":
            pill(svg, x + 12, y - 11, 24, 14, ACTIVE, pill_text, 10, y - 1)
        elif kind == "faint":
            svg.line(x, y - 4, x + 22, y - 4, stroke=FAINT, width=1.5)
        elif kind in ("cross", "no_source"):  # a missing partner, as draw_rows draws it in 01-06 (cross) and 07
            line_w, dashes, color = (1.0, "2 3", "#a0a0a0") if kind == "cross" else (1.2, "3 3", "#b0b0b0")
            svg.line(x, y - 4, x + 22, y - 4, stroke=FAINT, width=line_w, stroke_dasharray=dashes)
            svg.text(x + 11, y, "×", size=12, anchor="middle", color=color)
        elif kind == "warp":
            svg.line(x + 11, y - 13, x + 11, y + 3, stroke=WARP_LINE, width=1.2, stroke_dasharray="3 3")
        svg.text(x + 30, y, label, size=12, color=TEXT)
        x += needed
    return y


def draw_rows(svg, top, left, cell_w, rows, steps, row_names, gap, barrier, big=False, shuffle=False, padding=(),
              index_marks=None, after_step=None):
    """Rows of cells cell_w wide from x = left, one per step, with the additions between them: arrows and thread
    labels in the colour of the adding thread's warp, the step's rule (and notes) in the left column and a dashed
    line for the barrier after each step (none if barrier is None); after_step(k, step, y0, y1) draws more.
    big: 03, 04 and 07's look (taller cells, the rule centred, the barrier named right of the array);
    shuffle: 07's lanes. Returns the y of the last row's bottom."""
    n = len(rows[0])
    columns = set(range(n)) - set(padding)  # padding: slots in thought only, drawn dashed in the first row
    index_marks = (range(n) if n <= 32 else range(0, n, 4)) if index_marks is None else index_marks
    cell_h = 30.0 if big else 24.0
    pad = 1.0 if cell_w >= 12 else 0.5

    def cx(i):
        return left + (i + 0.5) * cell_w

    def row_top(k):
        return top + k * (cell_h + gap)

    def value_size(value):
        """The font size at which value fits in a cell (0 when it would be too small to read)."""
        if big:
            return 14 if cell_w >= 30 else 11
        fit = min(9.5, (cell_w - 3) / (0.64 * len(str(value))))
        return fit if cell_w >= 16 and fit >= 7.5 else 0

    svg.text(left - 12, top - 8, "lane" if shuffle else "index", size=10, anchor="end", color=SUBTLE)
    for i in index_marks:
        svg.text(cx(i), top - 8, str(i), size=10 if big else 9, anchor="middle", color=SUBTLE)
    for k, row in enumerate(rows):
        y = row_top(k)
        written = {p[0] for p in steps[k - 1].pairs} if k > 0 else set()
        live = steps[k - 1].live_after if k > 0 else columns
        last = k == len(rows) - 1
        svg.text(left - 12, y + cell_h / 2 + 4, row_names[k], size=12, anchor="end", color=TEXT)
        for i, value in enumerate(row):
            x, w = left + i * cell_w + pad, cell_w - 2 * pad
            if i in padding:
                if k == 0:
                    svg.rect(x, y, w, cell_h, fill="#ffffff", stroke=IDLE, rx=1.5, stroke_dasharray="2 2")
                continue
            fill, stroke, color, weight = cell_style(i, written, live, last and i == 0)
            svg.rect(x, y, w, cell_h, fill=fill, stroke=stroke, rx=3 if cell_w >= 12 else 1.5)
            size = value_size(value)
            if size and not (shuffle and fill == DEAD_FILL):  # a lane whose sum is never used: nothing to read
                svg.text(cx(i), y + cell_h / 2 + size * 0.36, str(value), size=round(size, 1), anchor="middle",
                         color=color, weight=weight)
        if last and big:
            svg.text(cx(0), y + cell_h + 16, "sum" if shuffle else "block sum", size=11, anchor="middle",
                     color=RESULT_STROKE, weight="bold")
        elif last:
            label = "block sum" if value_size(row[0]) else f"block sum = {row[0]}"
            svg.text(left, y + cell_h + 15, label, size=11, color=RESULT_STROKE, weight="bold")
    arrow_w = 1.6 if big else 1.2 if cell_w >= 12 else 0.8
    for k, step in enumerate(steps):
        y0, y1 = row_top(k) + cell_h, row_top(k + 1)
        for destination, source in step.unused_pairs:
            svg.line(cx(destination), y0, cx(destination), y1 - 1, stroke=FAINT, width=1.0)
            svg.line(cx(source), y0, cx(destination) + cell_w * 0.2, y1 - 1, stroke=FAINT, width=1.0)
        for lane in step.no_source:  # its partner is past the end (or padding)
            if big:
                svg.line(cx(lane), y0, cx(lane), y1 - 1, stroke=FAINT, width=1.2, stroke_dasharray="3 3")
                svg.text(cx(lane), y0 + gap * 0.5 + 4, "×", size=12, anchor="middle", color="#b0b0b0")
                continue
            if lane + step.stride < n:
                svg.line(cx(lane + step.stride), y0, cx(lane), y1 - 12, stroke=FAINT, width=0.8,
                         stroke_dasharray="2 3")
            svg.text(cx(lane), y1 - 3, "×", size=10, anchor="middle", color="#a0a0a0")
        for destination, source, thread in step.pairs:
            color = warp_color(thread)
            svg.line(cx(destination), y0, cx(destination), y1 - 1, stroke=color, width=arrow_w, arrow=True)
            svg.line(cx(source), y0, cx(destination) + cell_w * 0.2, y1 - 1, stroke=color, width=arrow_w, arrow=True)
        for destination, _, thread in step.pairs if cell_w >= 16 else ():
            if big:
                size, top_y = 11 if cell_w >= 30 else 9, y0 + gap * 0.5 - 16.0 / 2
                label = f"t{thread}" if cell_w >= 30 and not shuffle else str(thread)
                pill(svg, cx(destination), top_y, min(cell_w - 4, 32.0), 16.0, ACTIVE, label, size,
                     top_y + 16.0 / 2 + size * 0.36)
            else:
                top_y = y0 + gap * 0.55 - 13.0 / 2
                pill(svg, cx(destination), top_y, cell_w - 3, 13.0, warp_color(thread), str(thread), 8,
                     top_y + 13.0 / 2 + 3)
        if big:  # the rule centred between the two rows
            y = (y0 + y1) / 2 - 8 * len(step.rule) + 2
            svg.text(left - 12, y, f"step {k + 1}", size=12, anchor="end", weight="bold")
            for j, line in enumerate(step.rule):
                svg.text(left - 12, y + 16 + 15 * j, line, size=11.5, anchor="end", family=MONO, color=TEXT,
                         xml_space="preserve")
        else:
            rule_column(svg, left - 12, y0 + 30, k, step.rule, step.notes)
        if barrier and k < len(steps) - 1:
            barrier_line(svg, left, left + n * cell_w, row_top(k + 1) + cell_h + (7 if big else 6), barrier,
                         label_right=big)
        if after_step:
            after_step(k, step, y0, y1)
    return row_top(len(rows) - 1) + cell_h


def draw_tree(title, caption, values, steps, first_row, unit="stride ", shuffle=False):
    """03, 04 and 07 (one warp): one row of cells per step, arrows for the additions, a strip of threads (not
    for 07)."""
    row_names = [first_row] + [f"after {unit}{step.stride}" for step in steps]
    n = len(values)
    cell_w = max(22.0, min(38.0, 608.0 / n))
    longest = max([len(line) for step in steps for line in step.rule] + [len(name) * 12 / 11.5 for name in row_names])
    left = max(150.0, 34 + 7.0 * longest)
    square = 16.0 if n <= 16 else max(6.0, 256.0 / n)
    strip_x = left + n * cell_w + 36
    width = (left + n * cell_w + 40) if shuffle else (strip_x + n * square + 30)
    width = max(width, 760.0, 40 + 10.5 * len(title))
    svg, top = titled(width, title, caption, 24, 7.0)

    def strip(k, step, y0, y1):
        """The block's threads, right of step k: the working ones filled."""
        sy = (y0 + y1) / 2 - square / 2
        for t in range(n):
            on = t in step.working
            svg.rect(strip_x + t * square + 1, sy, square - 2, square - 2, rx=2,
                     fill=ACTIVE if on else "#ffffff", stroke=ACTIVE if on else IDLE)
            if square >= 14:
                svg.text(strip_x + (t + 0.5) * square, sy + square / 2 + 3, str(t), size=9, anchor="middle",
                         color="#ffffff" if on else "#9a9a9a")
        busy = len(step.working)
        svg.text(strip_x, sy + square + 13, f"{busy} working, {n - busy} idle", size=11, color=SUBTLE)
        if k == 0:
            svg.text(strip_x, sy - 8, f"the block's {n} threads", size=11, color=SUBTLE)

    barrier, after_step = (None, None) if shuffle else ("__syncthreads()", strip)
    y = draw_rows(svg, top, left, cell_w, simulate(values, steps, shuffle), steps, row_names, 78.0, barrier,
                  big=True, shuffle=shuffle, after_step=after_step)
    if shuffle:
        items = CELL_LEGEND + [("pill", "lane that adds the pair (lane id)"), ("faint", "sum never reaches lane 0"),
                               ("no_source", "source lane out of range: adds nothing")]
    else:
        items = CELL_LEGEND[:2] + [("dead", "no longer read (left as it was)"), ("pill", "thread that adds the pair"),
                                   ("working", "working thread"), ("idle", "idle thread")]
    svg.height = draw_legend(svg, y + 44, width, items, "3" if shuffle else "t3") + 22
    return svg


def draw_thread_panel(svg, top, left, cell_w, threads, steps, labels, title):
    """One row per step: the block's threads, thread t under column t, the working ones filled in their
    warp's colour, and under each warp how many of its lanes work. Returns the y below it."""
    sq_h = 14.0 if cell_w >= 16 else 11.0
    svg.text(20, top, title, size=13, weight="bold")
    y = top + 30
    warps = (threads + WARP_SIZE - 1) // WARP_SIZE
    for w in range(warps):
        first, last = w * WARP_SIZE, min(threads, (w + 1) * WARP_SIZE) - 1
        svg.text(left + first * cell_w + 2, y - 6, f"warp {w}: threads {first}–{last}", size=11,
                 color=warp_color(first), weight="bold")
    panel_top = y
    for k, step in enumerate(steps):
        svg.text(left - 12, y + sq_h - 3, labels[k], size=11, anchor="end", color=TEXT)
        for t in range(threads):
            on = t in step.working
            svg.rect(left + t * cell_w + 1.5, y, cell_w - 3, sq_h, rx=2, fill=warp_color(t) if on else "#ffffff",
                     stroke=warp_color(t) if on else IDLE)
            if cell_w >= 16:
                svg.text(left + (t + 0.5) * cell_w, y + sq_h / 2 + 3, str(t), size=7.5, anchor="middle",
                         color="#ffffff" if on else "#a0a0a0")
        for w in range(warps):
            members = range(w * WARP_SIZE, min(threads, (w + 1) * WARP_SIZE))
            busy = sum(t in step.working for t in members)
            diverged = (f'{busy} of {len(members)} lanes work: '
                        f'<tspan fill="{WARP_LINE}" font-weight="bold">diverged</tspan>')
            svg.text(left + w * WARP_SIZE * cell_w + 2, y + sq_h + 13, "no lane works: the warp skips the add"
                     if busy == 0 else f"all {busy} lanes work" if busy == len(members) else diverged,
                     size=10, color=SUBTLE, markup=True)
        y += sq_h + 26
    for w in range(1, warps):
        x = left + w * WARP_SIZE * cell_w
        svg.line(x, panel_top - 18, x, y - 8, stroke=WARP_LINE, width=1.2, stroke_dasharray="3 3")
    return y


def left_column(steps, names):
    """Where the array starts: right of the longest rule, note or row name (at least 150)."""
    lines = [line for step in steps for line in step.rule + step.notes] + names
    return max(150.0, 34 + 6.7 * max(len(line) for line in lines))


def rows_gap(steps):
    """The space between two rows: room for the longest rule and its notes."""
    return max(80.0, 40 + 14 * max(len(s.rule) + len(s.notes) for s in steps))


def draw_warp_tree(title, caption, values, steps, first_row, unit, cell_w=18.0, padding=(), index_marks=None):
    """01, 02 and 05: the tree over a block of several warps (rows of cells, coloured by warp), then the
    block's threads at each step, so that the warp boundaries and the divergence show."""
    n, threads = len(values), len(values) - len(padding)
    row_names = [first_row] + [f"after {unit}{step.stride}" for step in steps]
    thread_labels = [f"step {k + 1} ({unit}{step.stride})" for k, step in enumerate(steps)]
    left = left_column(steps, row_names + thread_labels)
    width = left + n * cell_w + 30
    svg, top = titled(width, title, caption, 40)
    warps = (threads + WARP_SIZE - 1) // WARP_SIZE
    y = draw_rows(svg, top, left, cell_w, simulate(values, steps, False), steps, row_names, rows_gap(steps),
                  "__syncthreads()", padding=padding, index_marks=index_marks)
    y = draw_thread_panel(svg, y + 46, left, cell_w, threads, steps, thread_labels,
                          f"the block's {threads} threads at each step ({warps} warps of {WARP_SIZE} lanes; "
                          "thread t drawn under column t)")
    items = list(CELL_LEGEND)
    if padding:
        items += [("padding", "padding: in thought only, not in memory"), ("cross", "partner would be padding: no add")]
    if cell_w >= 16:  # else no thread labels on the arrows: their colour is the adding thread's warp
        items.append(("pill", "thread that adds the pair (colour: its warp)"))
    items += [("working", f"working thread ({', '.join(f'warp {w}' for w in range(warps))})"),
              ("idle", "idle thread"), ("warp", "warp boundary")]
    svg.height = draw_legend(svg, y + 14, width, items) + 22
    return svg


def draw_warp_unroll(block=256):
    """06: the written-out block-wide steps (whole warps, __syncthreads()) down to 64 values, then warp 0
    folding 64 -> 1 with __syncwarp() between its steps."""
    wide, fold = unroll_block_steps(block), warp_fold_steps()
    rows = simulate(example_values(block), wide + fold, False)
    cell_w = 18.0
    left = left_column(wide + fold, ["partial[0..63]"])
    array_w = 64 * cell_w
    width = left + array_w + 30
    groups = block // WARP_SIZE
    group_w = array_w / groups
    title = f"06 the tree written out: block-wide steps, then warp 0 alone ({block} threads)"
    caption = (f"Each thread stores its grid-stride sum in partial[t] (thread t of warp t / 32 writes slot t). "
               f"The block-wide steps halve the {block} values down to 64; each is one line with a constant "
               "stride, and whole warps work or skip it, followed by __syncthreads(). Then warp 0 alone folds the "
               "last 64 values, with __syncwarp() between its steps; the other warps are done.")
    svg, y = titled(width, title, caption, 26)
    svg.text(20, y, f"1. block-wide steps: all {groups} warps, a barrier for the whole block after each",
             size=13, weight="bold")
    box_h, gap = 30.0, 86.0
    top = y + 40
    for g in range(groups):
        svg.text(left + (g + 0.5) * group_w, top - 8, f"warp {g}", size=11, anchor="middle",
                 color=warp_color(g * WARP_SIZE), weight="bold")
    names = ["partial[] (shared)"] + [f"after stride {s.stride}" for s in wide]
    for k in range(len(wide) + 1):
        yk = top + k * (box_h + gap)
        svg.text(left - 12, yk + box_h / 2 + 4, names[k], size=12, anchor="end")
        written = {d // WARP_SIZE for d, _, _ in wide[k - 1].pairs} if k > 0 else set()
        live = {i // WARP_SIZE for i in wide[k - 1].live_after} if k > 0 else set(range(groups))
        for g in range(groups):
            fill, stroke, color, _ = cell_style(g, written, live)
            svg.rect(left + g * group_w + 2, yk, group_w - 4, box_h, fill=fill, stroke=stroke, rx=3)
            if group_w >= 64:
                svg.text(left + (g + 0.5) * group_w, yk + box_h / 2 + 4, f"{g * 32}–{g * 32 + 31}", size=10,
                         anchor="middle", color=color)
        if k == len(wide):
            break
        step = wide[k]
        y0, y1 = yk + box_h, yk + box_h + gap
        half_groups = len(step.pairs) // WARP_SIZE
        if k > 0:
            barrier_line(svg, left, left + array_w, y0 + 6, "__syncthreads()")
        for g in range(half_groups):
            s = g + half_groups
            color = warp_color(g * WARP_SIZE)
            a, b = left + g * group_w + 6, left + (g + 1) * group_w - 6
            c, d = left + s * group_w + 6, left + (s + 1) * group_w - 6
            svg.polygon([(c, y0), (d, y0), (b, y1 - 1), (a, y1 - 1)], fill=color, fill_opacity="0.16")
            svg.polygon([(a, y0), (b, y0), (b, y1 - 1), (a, y1 - 1)], fill=color, fill_opacity="0.22")
            pill(svg, (a + b) / 2, y0 + gap * 0.5 - 8, 52, 16, color, f"warp {g}", 10, y0 + gap * 0.5 + 4)
        rule_column(svg, left - 12, y0 + 28, k, step.rule, [f"{half_groups} warps add, {groups - half_groups} skip"],
                    color="#222")
    bottom = top + len(wide) * (box_h + gap) + box_h
    barrier_line(svg, left, left + array_w, bottom + 6, "__syncthreads()")
    svg.text(left + array_w, bottom + 24,
             f"warps 1–{groups - 1} are done: slots 0–63, written by warps 0 and 1, hold the block's 64 values",
             size=11, anchor="end", color=SUBTLE)
    # Zoom: slots 0-63 (two boxes) drawn again one cell per slot.
    y = bottom + 64
    svg.polyline([(left + 2, bottom), (left + 2, y + 40)], stroke=FAINT, width=1.0, stroke_dasharray="3 3")
    svg.polyline([(left + 2 * group_w - 2, bottom), (left + array_w - 1, y + 40)], stroke=FAINT, width=1.0,
                 stroke_dasharray="3 3")
    svg.text(20, y, "2. warp 0 alone folds partial[0..63] into partial[0]: __syncwarp() between its steps "
             "(one cell per slot)", size=13, weight="bold")
    fold_names = ["partial[0..63]"] + [f"after stride {s.stride}" for s in fold]
    y = draw_rows(svg, y + 58, left, cell_w, [row[:64] for row in rows[len(wide):]], fold, fold_names, rows_gap(fold),
                  "__syncwarp()")
    svg.height = draw_legend(svg, y + 36, width, CELL_LEGEND + [("pill", "lane of warp 0 that adds the pair")]) + 22
    return svg


def thread_color(b, t, threads):
    """(fill, text colour) of thread t of block b: a hue per block, lighter for higher thread ids."""
    hues = [0.58, 0.07, 0.33, 0.85, 0.14, 0.5, 0.0, 0.72]
    lightness = 0.38 + 0.40 * (t / max(1, threads - 1))
    return hls_color(hues[b % len(hues)], lightness, 0.62), "#ffffff" if lightness < 0.55 else "#1a1a1a"


def draw_grid_stride(blocks=2, threads=4, n=29):
    """The grid-stride loop: which thread adds which element, in memory order and per iteration."""
    total = blocks * threads
    iterations = -(-n // total)
    title = f"Grid-stride loop: a grid of {blocks} blocks x {threads} threads over n = {n} elements"
    caption = (f"Thread t of block b starts at element b*{threads} + t and steps by the whole grid "
               f"({blocks}*{threads} = {total}) until it passes n; each colour is one thread.")
    tail = n - (iterations - 1) * total
    strip_cell = max(18.0, min(30.0, 860.0 / n))
    width = max(40 + n * strip_cell, 220 + total * 56 + 160, 760)
    svg, y = titled(width, title, caption, 24, 7.0)

    # 1. The array in memory, each element coloured by the thread that adds it.
    svg.text(20, y, "the array in memory: neighbouring threads read neighbouring elements (coalesced)",
             size=13, weight="bold")
    svg.text(20, y + 17, "element index above each cell; inside, the thread that adds it as block.thread", size=12,
             color="#444")
    y += 43
    for i in range(n):
        b, t = divmod(i % total, threads)
        x = 20 + i * strip_cell
        fill, text_color = thread_color(b, t, threads)
        if i % total == 0 and i > 0:
            svg.line(x, y - 14, x, y + 38, stroke="#888888", width=1.0, stroke_dasharray="2 2")
        svg.text(x + strip_cell / 2, y - 3, str(i), size=9, anchor="middle", color=SUBTLE)
        svg.rect(x + 1, y, strip_cell - 2, 32, fill=fill, stroke="#ffffff", rx=2)
        svg.text(x + strip_cell / 2, y + 20, f"{b}.{t}", size=9 if strip_cell < 26 else 10, anchor="middle",
                 color=text_color)
    for k in range(iterations):
        x0 = 20 + k * total * strip_cell
        x1 = 20 + min(n, (k + 1) * total) * strip_cell
        svg.text((x0 + x1) / 2, y + 50, f"pass {k}", size=11, anchor="middle", color=SUBTLE)
    y += 90

    # 2. The same elements, one row per pass of the loop, one column per thread.
    svg.text(20, y, "the same elements, one row per pass of the loop", size=13, weight="bold")
    if tail < total:
        svg.text(20, y + 17, f"the last pass is ragged: only {tail} of the {total} threads still have an element",
                 size=12, color="#444")
        y += 17
    y += 30
    col_w, row_h, x_left = 56.0, 34.0, 220.0
    for b in range(blocks):
        x0 = x_left + b * threads * col_w
        svg.text(x0 + threads * col_w / 2, y, f"block {b}", size=12, anchor="middle", weight="bold")
        svg.line(x0 + 4, y + 5, x0 + threads * col_w - 4, y + 5, stroke="#999999", width=1.0)
        for t in range(threads):
            svg.text(x0 + (t + 0.5) * col_w, y + 20, f"t{t}", size=12, anchor="middle", color=TEXT)
    y += 30
    for k in range(iterations):
        label = f"pass {k}: i = b*{threads} + t" if k == 0 else f"pass {k}: i += {total}"
        svg.text(x_left - 12, y + row_h / 2 + 4, label, size=12, anchor="end", family=MONO)
        for g in range(total):
            b, t = divmod(g, threads)
            i = k * total + g
            x = x_left + g * col_w
            if i < n:
                fill, text_color = thread_color(b, t, threads)
                svg.rect(x + 2, y + 2, col_w - 4, row_h - 4, fill=fill, stroke="#ffffff", rx=3)
                svg.text(x + col_w / 2, y + row_h / 2 + 5, f"x[{i}]", size=12, anchor="middle", color=text_color)
            else:
                svg.rect(x + 2, y + 2, col_w - 4, row_h - 4, fill="#ffffff", stroke="#bbbbbb", rx=3,
                         stroke_dasharray="4 3")
                svg.text(x + col_w / 2, y + row_h / 2 + 4, "i ≥ n", size=10, anchor="middle", color="#999999")
        y += row_h
    for g in range(total):
        count = len(range(g, n, total))
        svg.text(x_left + (g + 0.5) * col_w, y + 16, f"{count} add{'s' if count != 1 else ''}", size=11,
                 anchor="middle", color=SUBTLE)
    svg.text(x_left - 12, y + 16, "each thread's sum:", size=12, anchor="end")
    y += 40
    svg.text(20, y, "Each thread keeps its running sum in a register; then the block combines its threads' sums "
             "(shared_tree.svg).", size=12, color="#444")
    svg.height = y + 20
    return svg


RELEASE, RELEASE_FILL = "#0f8a6e", "#d9efe7"  # 09's ticket: a release, and the arrows of what it makes visible
ACQUIRE, ACQUIRE_FILL = "#8a44b0", "#ebdff3"  # the last block's acquire
WRONG, WRONG_FILL = "#c0392b", "#f8dcd8"      # an old value read


def draw_ticket_timeline():
    """09: the ticket of single_pass.cu, step 2, as a timeline: thread 0 of each block writes its partial, then
    fetch_add(1, acq_rel) on one counter; the block that draws G - 1 reads every partial. Below, the relaxed ticket's
    failure."""
    width, left, box_h, pitch = 1060.0, 150.0, 30.0, 58.0
    at = {1: 420.0, 3: 530.0, 0: 640.0, 2: 750.0}  # where each block's fetch_add is: blocks 1, 3, 0, 2 in turn
    tickets = {b: k for k, b in enumerate(sorted(at, key=at.get))}
    last = max(tickets, key=tickets.get)
    half, partial_w, sync_x = 62.0, 112.0, 826.0
    title = f"09 the ticket: release and acquire in a grid of {len(at)} blocks"
    caption = ("Time runs left to right, one lane per block. Thread 0 of each block writes the block's partial, then "
               "draws a ticket: fetch_add(1, acq_rel) on one counter returns the count before its +1. The blocks "
               f"draw in the order they reach the counter; the one that draws G − 1 = {len(at) - 1} is the last "
               "block.")
    svg, y = titled(width, title, caption, 26)

    def box(x0, x1, top, label, fill, stroke, color=TEXT, weight=None):
        svg.rect(x0, top, x1 - x0, box_h, fill=fill, stroke=stroke, rx=3)
        svg.text((x0 + x1) / 2, top + box_h / 2 + 4, label, size=11, anchor="middle", color=color, weight=weight)

    def lane(top, b, order):
        """Block b's lane from y = top: its share, its partial, then its ticket drawn with `order`."""
        x = at[b]
        svg.text(left - 12, top + box_h / 2 + 4, f"block {b}", size=12, anchor="end", weight="bold")
        box(left, x - half - 6 - partial_w - 4, top, "reduce share", DEAD_FILL, DEAD_STROKE, SUBTLE)
        box(x - half - 6 - partial_w, x - half - 6, top, f"write partial[{b}]", WRITTEN_FILL, ACTIVE)
        fill, stroke = (ACQUIRE_FILL, ACQUIRE) if order == "acquire" else (RELEASE_FILL, RELEASE)
        if order == "relaxed":
            fill, stroke = "#ffffff", LIVE_STROKE
        box(x - half, x + half, top, f"ticket {tickets[b]} ({order})", fill, stroke, weight="bold")
        if b != last:
            svg.text(x + half + 8, top + box_h / 2 + 4, "exits", size=11, color=SUBTLE)

    # 1. 09's ticket.
    svg.text(20, y, "1. with release and acquire (09's kernel)", size=13, weight="bold")
    y += 26
    svg.line(left, y, width - 24, y, stroke=SUBTLE, width=1.0, arrow=True)
    svg.text(width - 24, y - 6, "time", size=11, anchor="end", color=SUBTLE)
    top = y + 18
    rows = {b: top + b * pitch for b in sorted(at)}
    for b in sorted(at):
        lane(rows[b], b, "acquire" if b == last else "release")
    # The last block: __syncwarp hands the acquire from thread 0 to lanes 1-31, then warp 0 reads every partial.
    row = rows[last]
    svg.line(sync_x, row - 8, sync_x, row + box_h + 8, stroke=WARP_LINE, width=1.4, stroke_dasharray="4 3")
    svg.text(sync_x, row - 12, "__syncwarp", size=10, anchor="middle", color=WARP_LINE, family=MONO)
    box(sync_x + 12, sync_x + 142, row, f"read partial[0..{len(at) - 1}]", "#ffffff", ACTIVE, weight="bold")
    box(sync_x + 148, width - 20, row, "result", RESULT_FILL, RESULT_STROKE, weight="bold")
    # What each release makes visible: an arrow to the acquire.
    acquire_x = at[last] - half
    for k, b in enumerate(sorted((b for b in at if b != last), key=at.get)):
        end_x = acquire_x + 18 + 22 * k
        if rows[b] < row:
            svg.line(at[b] + half - 20, rows[b] + box_h, end_x, row - 1, RELEASE, 1.6, arrow=True)
        else:
            svg.line(at[b] + half - 20, rows[b], end_x, row + box_h + 1, RELEASE, 1.6, arrow=True)
    # The counter's values: every fetch_add adds 1 to what the one before it left.
    y = top + len(at) * pitch + 6
    svg.text(left - 12, y + 16, "the counter", size=12, anchor="end")
    edges = [left] + sorted(at.values()) + [sync_x, width - 20]
    for k in range(len(edges) - 1):
        value = k if k <= len(at) else 0
        svg.rect(edges[k], y, edges[k + 1] - edges[k], 22, fill="#ffffff", stroke=LIVE_STROKE)
        svg.text((edges[k] + edges[k + 1]) / 2, y + 15, str(value), size=11, anchor="middle", family=MONO)
    for b, x in at.items():
        svg.text(x, y + 36, f"+1 by block {b}", size=10, anchor="middle", color=SUBTLE)
    svg.text(sync_x, y + 36, "store(0)", size=10, anchor="middle", color=SUBTLE, family=MONO)
    y += 66
    notes = [(RELEASE, "release (arrows): thread 0's writes before its ticket (the partial) are visible to any "
                       "thread whose acquire reads this +1 or a later one"),
             (ACQUIRE, f"acquire: the last block's reads after its ticket see all that; each +1 adds to the one "
                       f"before, so ticket {len(at) - 1} comes after every release"),
             (WARP_LINE, "__syncwarp: thread 0 drew the ticket; the barrier passes its acquire on to lanes 1-31 "
                         "of warp 0, which read partials too")]
    for color, line in notes:
        svg.rect(20, y - 10, 14, 12, fill=color, rx=2)
        svg.text(42, y, line, size=12, color=TEXT)
        y += 20
    y += 22

    # 2. The same two blocks with a relaxed ticket.
    svg.text(20, y, "2. without them (a relaxed ticket): the last block may read an old partial", size=13,
             weight="bold")
    y += 20
    first = 0  # block 0 draws ticket 2, as in 1.
    rows = {first: y, last: y + pitch}
    for b in (first, last):
        lane(rows[b], b, "relaxed")
    row = rows[last]
    read_x1 = sync_x + 142
    box(at[last] + half + 6, read_x1, row, f"read partial[{first}]: old", WRONG_FILL, WRONG, weight="bold")
    write_x, arrive_x = at[first] - half - 6 - partial_w / 2, read_x1 + 36
    svg.line(write_x, rows[first] + box_h, arrive_x, row + box_h / 2 - 4, WRONG, 1.6, arrow=True,
             stroke_dasharray="5 4")
    for k, line in enumerate((f"the new partial[{first}] may reach block {last}", f"only after block {last} read it")):
        svg.text(width - 20, rows[first] + 12 + 14 * k, line, size=11, anchor="end", color=WRONG)
    y = row + box_h + 26
    svg.text(20, y, f"Block {last} sees ticket {tickets[first]}'s +1 but not the partial written before it; and "
             "without an acquire its reads may even be done before its own ticket.", size=12, color="#444")
    svg.height = y + 16
    return svg


ROW_COLOR = "#8a44b0"  # 17: the row a float's top 4 bits name
SHIFT_COLOR = WARP_LINE  # 17: its shift, e % 32


def power_text(k):
    """2^k as the pictures write it: 1, 2, 2^-31, 2^33."""
    return "1" if k == 0 else "2" if k == 1 else f"2^{k}"


def draw_reproducible_rows(x=-0.8125, subnormal_bits=5):
    """17: one float into its thread's column (reproducible_sum.cu, add): its top 4 bits name the row, e % 32 the
    shift; the column's 17 rows in shared memory, side by side with the other threads'; then carry, the limbs and
    the one rounding."""
    def float_bits(value):
        return struct.unpack("<I", struct.pack("<f", value))[0]

    def bits_float(bits):
        return struct.unpack("<f", struct.pack("<I", bits))[0]

    def significand(bits):  # add's m, branch-free
        return (bits & 0x7FFFFF) + min(bits & 0x7FFFFFFF, 0x800000)

    bits = float_bits(x)
    sign, e, fraction = bits >> 31, (bits >> 23) & 0xFF, bits & 0x7FFFFF
    row, g, shift, m = bits >> 28, e // 32, (bits >> 23) % 32, significand(bits)
    added = m << shift  # in units of row g's 2^(32g - 150)
    assert 0 < e < 255 and row == sign * 8 + g and shift == e % 32 and m == (1 << 23) + fraction
    assert added < 1 << 55 and abs(x) == added * 2.0 ** (32 * g - 150) and (-1) ** sign * abs(x) == x
    sub_x = bits_float(subnormal_bits)  # a subnormal: e = 0, m = 2 * fraction
    sub_m = significand(subnormal_bits)
    assert subnormal_bits >> 23 == 0 and sub_m == 2 * subnormal_bits and sub_x == sub_m * 2.0 ** -150
    assert sub_x == subnormal_bits * 2.0 ** -149 and significand(float_bits(0.0)) == 0 == float_bits(-0.0) >> 28 & 7
    assert (2 ** 24 - 1) << 31 < 1 << 55 and (1 << 32) - 1 + (2 ** 9 - 1) * ((1 << 55) - 1) < 1 << 64  # headroom

    def value_range(g):
        """The floats of row g (positive): [its lowest, the next row's lowest), read off their bits."""
        low, high = bits_float(g << 28), bits_float((g + 1) << 28) if g < 7 else 2.0 ** 128
        top = 32 * g - 95 if g < 7 else 128  # row 7 holds e = 224..254, then 255 (inf, NaN)
        assert low == (0.0 if g == 0 else 2.0 ** (32 * g - 127)) and high == 2.0 ** top
        assert bits_float(((g + 1) << 28) - 1 if g < 7 else 0x7F7FFFFF) < high
        return "0" if g == 0 else power_text(32 * g - 127), power_text(top)

    width, left, cell = 1000.0, 150.0, 26.0
    title = f"17 one float into its row: x = {x:g} adds m · 2^{shift} to row {row} of its thread's column"
    caption = ("Every finite float is a whole number of 2^-150, so the sum is an integer, the same in any order. "
               "Each thread keeps it in its own column of shared memory: 17 rows of 64-bit counters, row g of "
               "either sign counting in units of 2^(32g − 150). A float goes to the row its top 4 bits name, as "
               "m · 2^(e % 32): a shift and one 64-bit add, whatever its value.")
    svg, y = titled(width, title, caption, 30)

    def bracket(x0, x1, level, label, color=SUBTLE, below=True, weight=None, anchor="middle"):
        """A bracket from x0 to x1 at y = level, its label under it (or over it)."""
        tick = -4 if below else 4
        svg.line(x0, level, x1, level, stroke=color, width=1.2)
        svg.line(x0, level + tick, x0, level, stroke=color, width=1.2)
        svg.line(x1, level + tick, x1, level, stroke=color, width=1.2)
        tx = (x0 + x1) / 2 if anchor == "middle" else x0
        svg.text(tx, level + 15 if below else level - 6, label, size=12, anchor=anchor, color=color, weight=weight)

    # 1. The 32 bits: the top 4 name the row, the low 5 of e the shift.
    svg.text(20, y, f"1. the 32 bits of x = {x:g}: the top 4 name the row, the low 5 bits of e the shift",
             size=13, weight="bold")
    y += 56
    for k in range(32):  # bit 31 on the left
        bit = (bits >> (31 - k)) & 1
        fill = "#f6c9b8" if k == 0 else WRITTEN_FILL if k <= 8 else "#dcefd2"  # sign, exponent, fraction
        svg.rect(left + k * cell, y, cell - 2, 26, fill=fill, stroke=LIVE_STROKE, rx=2)
        svg.text(left + k * cell + (cell - 2) / 2, y + 18, str(bit), size=13, anchor="middle", family=MONO)
    for b in (31, 28, 27, 23, 22, 0):
        svg.text(left + (31 - b) * cell + (cell - 2) / 2, y - 4, str(b), size=9, anchor="middle", color=SUBTLE)
    for label, first, last in (("sign", 0, 0), (f"exponent field e = {e}", 1, 8), ("fraction: 23 bits", 9, 31)):
        bracket(left + first * cell, left + (last + 1) * cell - 2, y - 16, label, below=False)
    svg.text(left - 12, y + 12, f"x = {x:g}", size=13, anchor="end", weight="bold")
    svg.text(left - 12, y + 27, f"0x{bits:08x}", size=11, anchor="end", family=MONO, color=SUBTLE)
    level = y + 34
    bracket(left, left + 4 * cell - 2, level, f"row {row}", ROW_COLOR, weight="bold")
    bracket(left + 4 * cell, left + 9 * cell - 2, level, f"shift {shift}", SHIFT_COLOR, weight="bold")
    bracket(left + 9 * cell, left + 32 * cell - 2, level, f"fraction = 0x{fraction:06x}")
    y = level + 44
    svg.text(20, y, f"row   = bits >> 28 = sign · 8 + e / 32 = {sign} · 8 + {e} / 32 = {row}", size=12,
             family=MONO, color=ROW_COLOR, xml_space="preserve")
    svg.text(20, y + 18, f"shift = e % 32 = {e} % 32 = {shift}    (2^shift = __funnelshift_l(0, 1, bits >> 23): "
             "it shifts mod 32)", size=12, family=MONO, color=SHIFT_COLOR, xml_space="preserve")
    y += 58

    # 2. The integer added: m * 2^shift in a 64-bit counter.
    svg.text(20, y, f"2. the integer added: m · 2^shift, below 2^55, in units of 2^(32g − 150), g = e / 32 = {g}",
             size=13, weight="bold")
    lines = ["m = (bits & 0x7fffff) + min(bits & 0x7fffffff, 0x800000)",
             f"  e ≥ 1: 2^23 + fraction (the leading 1, not stored)   here 0x800000 + 0x{fraction:06x} = {m}",
             f"  e = 0: 2 · fraction (zero, subnormal: fraction · 2^-149)  e.g. 0x{subnormal_bits:08x} = "
             f"{subnormal_bits} · 2^-149: m = {sub_m}, row 0, shift 0"]
    for k, line in enumerate(lines):
        svg.text(20, y + 22 + 18 * k, line, size=12, family=MONO, xml_space="preserve")
    y += 22 + 18 * len(lines) + 44
    cell2 = 13.0
    for k in range(64):  # bit 63 on the left
        b = 63 - k
        inside = shift <= b < shift + 24
        fill = RESULT_FILL if inside else "#f2f2f2" if b >= 55 else "#ffffff"
        svg.rect(left + k * cell2, y, cell2 - 1, 24, fill=fill, stroke=RESULT_STROKE if inside else DEAD_STROKE)
        svg.text(left + k * cell2 + 6, y + 16, str((m >> (b - shift)) & 1 if inside else 0), size=10,
                 anchor="middle", family=MONO, color=TEXT if inside else DEAD_TEXT)
    for b in (63, 55, shift + 23, shift, 0):
        svg.text(left + (63 - b) * cell2 + 6, y - 5, str(b), size=10, anchor="middle", color=SUBTLE)
    bracket(left, left + 9 * cell2 - 1, y - 18, "bits 55–63: room for 2^9 − 1 adds; carry() every 256", below=False,
            anchor="start")
    svg.text(left - 12, y + 17, f"m · 2^{shift}", size=12, anchor="end", family=MONO)
    bracket(left + (63 - shift - 23) * cell2, left + (64 - shift) * cell2 - 1, y + 32, f"m = {m}: bits {shift} to "
            f"{shift + 23}", RESULT_STROKE)
    bracket(left + 32 * cell2, left + 64 * cell2 - 1, y + 62, "m's lowest bit at shift = 0 to 31")
    y += 108
    svg.text(20, y, f"row {row} += {added}, in units of 2^(32 · {g} − 150) = 2^{32 * g - 150}: {abs(x):g} exactly "
             f"(row {row} = 8 + {g} counts the negative floats of g = {g})", size=12, color="#444")
    y += 42

    # 3. The column: 17 rows, stride apart; column t is thread t's.
    svg.text(20, y, "3. the thread's column: 17 rows of 64-bit counters in shared memory, column t is thread t's",
             size=13, weight="bold")
    y += 58
    row_h, cell_w, gap_w = 20.0, 54.0, 40.0
    grid_x = 430.0
    columns = [("0", 0), ("1", 1), ("2", 2), ("…", None), ("t", "t"), ("…", None)]
    xs, cx = [], grid_x
    for label, who in columns:
        w = gap_w if who is None else cell_w
        xs.append((cx, w))
        cx += w
    grid_end = cx
    t_x = xs[4][0]

    def row_top(r):
        return y + r * row_h + (8 if r >= 8 else 0) + (8 if r >= 16 else 0)

    bracket(grid_x, grid_end, y - 28, "one row: stride counters side by side (stride = block rounded up to 16)",
            below=False, anchor="start")
    for (label, who), (cx, w) in zip(columns, xs):
        svg.text(cx + w / 2, y - 8, label, size=11, anchor="middle", color=ACTIVE if who == "t" else SUBTLE,
                 weight="bold" if who == "t" else None)
    heads = [(20, "row"), (70, "sign, e"), (172, "unit"), (246, "values")]
    for hx, label in heads:
        svg.text(hx, y - 8, label, size=11, color=SUBTLE)
    for r in range(17):
        top = row_top(r)
        base_y = top + row_h / 2 + 4
        here = r == row
        color = ROW_COLOR if here else TEXT
        weight = "bold" if here else None
        gr = r % 8
        svg.text(20, base_y, f"row {r}", size=11, family=MONO, color=color, weight=weight)
        if r < 16:
            svg.text(70, base_y, f"{'+−'[r // 8]} {32 * gr}–{32 * gr + 31}", size=11, family=MONO, color=color,
                     weight=weight)
            svg.text(172, base_y, power_text(32 * gr - 150), size=11, family=MONO, color=color, weight=weight)
            low, high = value_range(gr)
            span = f"[{low}, {high})" if r < 8 else f"(−{high}, −{low}]" if here else ""
            span += ", inf, NaN" if r == 7 else ", subnormals" if r == 0 else ""
            svg.text(246, base_y, span, size=11, family=MONO, color=color, weight=weight)
        else:
            svg.text(70, base_y, "carries of 7, 15", size=11, color=TEXT)
            svg.text(172, base_y, power_text(32 * 8 - 150), size=11, family=MONO)
            svg.text(246, base_y, "signed: 7's − 15's", size=11, color=TEXT)
        for (_, who), (cx, w) in zip(columns, xs):
            if who is None:
                continue
            if who == "t":
                fill, stroke = (RESULT_FILL, RESULT_STROKE) if here else (WRITTEN_FILL, ACTIVE)
            else:
                fill, stroke = ("#efe6f6" if r == 16 else "#ffffff"), DEAD_STROKE
            svg.rect(cx + 2, top + 1, w - 4, row_h - 2, fill=fill, stroke=stroke, rx=2)
    bottom = row_top(16) + row_h
    for r in (0, 1, 16):
        svg.text(grid_end + 16, row_top(r) + row_h / 2 + 4, f"rows[{r} · stride + t]", size=11, family=MONO,
                 color=SUBTLE)
    ay = row_top(row) + row_h / 2
    svg.line(grid_end + 12, ay, t_x + cell_w - 1, ay, stroke=RESULT_STROKE, width=1.8, arrow=True)
    svg.text(grid_end + 16, ay - 6, f"rows[{row} · stride + t]", size=11, family=MONO, color=ROW_COLOR,
             weight="bold")
    svg.text(grid_end + 16, ay + 12, f"+= m · 2^{shift}  (x = {x:g})", size=11, family=MONO, color=TEXT,
             xml_space="preserve")
    svg.text(t_x + cell_w / 2, bottom + 16, "thread t", size=11, anchor="middle", color=ACTIVE, weight="bold")
    y = bottom + 50

    # 4. Then: carry, the limbs, one rounding.
    svg.text(20, y, "4. then: carries, the limbs of a State, one rounding", size=13, weight="bold")
    y += 16
    notes = ["every 16 trips (256 floats), carry(): each row keeps its low 32 bits and adds the bits from 2^32 up "
             "to the next row, where they weigh the same; rows 7 and 15 carry into row 16 (7's minus 15's)",
             "at the end, column_limbs (carrying as carry() does): limb g = row g − row (8 + g) for g = 0–7, "
             "limb 8 = row 16, limb 9 = 0: the ten limbs of a State, limb k in units of 2^(32k − 150)",
             "block_sum adds the block's States; each block adds its State into one of 32 slots with atomics; the "
             "last block (09's ticket) adds the slots and rounds once, to nearest, ties to even",
             "inf and NaN (e = 255) are found by a float probe, fmaf(x, 2^-100, probe), not by the rows: what "
             "they add to rows 7 and 15 is ignored"]
    for note in notes:
        for k, line in enumerate(wrap(note, int((width - 60) / 6.6))):
            svg.text(36, y + 18, ("• " if k == 0 else "  ") + line, size=12, color=TEXT, xml_space="preserve")
            y += 18
        y += 4
    svg.height = y + 20
    return svg


def power_of_two(text):
    """--block: a power of two from 2 to 32 (one warp)."""
    value = int(text)
    if value < 2 or value > WARP_SIZE or value & (value - 1):
        raise argparse.ArgumentTypeError("must be a power of two from 2 to 32")
    return value


def main(argv=None):
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description="Draw the addressing-scheme diagrams (SVG).")
    parser.add_argument("--block", type=power_of_two, default=16,
                        help="elements (= threads) in the trees of 03 and 04 (default 16)")
    parser.add_argument("--out", default=os.path.join(repo, "docs", "images"), help="folder (default docs/images)")
    args = parser.parse_args(argv)
    block, wb, pb = args.block, 64, 100  # threads in 03 and 04; in 01 and 02 (two warps); in 05 (not a power of 2)
    padded, pow2 = pow2ceil(pb), padded_steps(pb)
    first, shuffle = pow2[0], shuffle_steps(WARP_SIZE)
    diagrams = {
        "neighbored.svg": draw_warp_tree(
            f"01 neighbored pairs, in place in global memory ({wb} threads, {wb // WARP_SIZE} warps)",
            "Step s: thread t with t % 2s == 0 adds x[t+s] into x[t]. A warp is 32 consecutive threads that issue "
            "each instruction together; its threads are its lanes. The working threads are scattered (t = 0, 2s, "
            "4s, ...), so at every step each warp that works has idle lanes too: it diverges, running the add with "
            "its idle lanes masked off.", example_values(wb), block_steps("neighbored", wb), "input x[]", "s = "),
        "neighbored_less.svg": draw_warp_tree(
            f"02 the same pairs, done by contiguous threads ({wb} threads, {wb // WARP_SIZE} warps)",
            "The pairs of 01 (x[i] += x[i+s]) given to threads 0, 1, 2, ... (i = 2*s*t; the number on each arrow "
            "is the thread, its colour the thread's warp). The working threads are contiguous: a warp either works "
            "with all its lanes or skips the add, until fewer than 32 threads work and only warp 0 works, diverged.",
            example_values(wb), block_steps("neighbored_less", wb), "input x[]", "s = "),
        "interleaved.svg": draw_tree(
            f"03 interleaved pairs: the stride halves ({block} threads)",
            f"Thread t < stride adds x[t+stride] into x[t]; the stride starts at half the block ({block // 2}) "
            "and halves; the working threads stay contiguous.",
            example_values(block), block_steps("interleaved", block), "input x[]"),
        "shared_tree.svg": draw_tree(
            f"04 tree in shared memory: sequential addressing on partial[] ({block} threads)",
            "Each thread stores its grid-stride sum in partial[t]; then thread t < stride adds partial[t+stride] "
            "into partial[t]; a barrier after each step.",
            example_values(block), block_steps("interleaved", block, name="partial"), "partial[] (shared)"),
        "pow2ceil.svg": draw_warp_tree(
            f"05 any block size: {pb} threads, padded in thought to {padded}",
            f"The tree starts at stride pow2ceil({pb}) / 2 = {padded // 2}. Thread t < stride adds partial[t + "
            f"stride] only when that slot exists (t + stride < {pb}); slots {pb}–{padded - 1} are padding that is "
            "never stored: a missing partner would have added zero. At the first stride threads "
            f"0–{first.pairs[-1][2]} add slots {first.pairs[0][1]}–{first.pairs[-1][1]} and threads "
            f"{first.no_source[0]}–{first.no_source[-1]} find no partner; from then on every partner exists and the "
            "steps are 04's. A __syncthreads() ends every step.",
            example_values(pb) + [0] * (padded - pb), pow2, "partial[] (shared)", "stride ", cell_w=1152.0 / padded,
            padding=range(pb, padded), index_marks=sorted({0, 32, 64, 96, pb, first.no_source[0]})),
        "warp_unroll.svg": draw_warp_unroll(),
        "grid_stride.svg": draw_grid_stride(),
        "warp_shuffle.svg": draw_tree(
            f"07 warp shuffle: __shfl_down_sync, offsets {', '.join(str(s.stride) for s in shuffle)} "
            "(32 lanes: a whole warp)",
            "Lane l adds the v that lane l + offset holds, read from its registers; a lane whose source is past the "
            "last lane adds nothing; no shared memory, no barrier; lane 0 ends with the sum.",
            example_values(WARP_SIZE), shuffle, "v (lanes)", "offset ", shuffle=True),
        "ticket_timeline.svg": draw_ticket_timeline(),
        "reproducible_rows.svg": draw_reproducible_rows(),
    }
    os.makedirs(args.out, exist_ok=True)
    for name, svg in diagrams.items():
        svg.write(os.path.join(args.out, name))
        print(os.path.join(args.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
