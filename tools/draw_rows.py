#!/usr/bin/env python3
"""Draws the pictures of chapter 13 (13_rows/README.md) as SVG files.

    python3 tools/draw_rows.py [--out docs/images]

writes

    rows_mapping.svg    how rows are shared out: one thread, a group of lanes, a warp, a
                        block per row (rows.cu's staged_rows, rows_by_lanes, rows_by_block),
                        with the 16-byte vectors each thread loads
    rows_alignment.svg  rows of K = 33 floats start at every 16-byte alignment: each row's
                        head, vectors and tail (rows.cu's lane_reduce_row)

The shapes in the pictures follow the rule of rows.cuh (plan_rows): the script computes
which thread takes which vector the way the kernels do.

Python 3 standard library only.
"""

import argparse
import colorsys
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg import MONO, Svg, write  # noqa: E402

TEXT = "#222222"
SUBTLE = "#666666"
GRID = "#9aa0a6"
HEAD = "#f4a259"    # elements before the first aligned address
TAIL = "#7fb069"    # elements after the last whole vector
VECTOR_BYTES = 16
WIDTH = 980.0


def hue_color(hue, lightness=0.55, saturation=0.55):
    r, g, b = colorsys.hls_to_rgb(hue % 1.0, lightness, saturation)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def thread_color(index, count):
    """A colour per thread (or lane, or warp) of `count`, spread around the hue circle."""
    return hue_color(0.58 + index / max(count, 1) * 0.9)


def text_color(fill):
    r, g, b = (int(fill[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return "#ffffff" if 0.299 * r + 0.587 * g + 0.114 * b < 0.55 else "#1a1a1a"


def split_row(start_byte, cols, element_bytes):
    """rows.cu's lane_reduce_row: (head, vector_count, tail) of a row starting at start_byte."""
    per_vector = VECTOR_BYTES // element_bytes
    misaligned = start_byte % VECTOR_BYTES
    head = min(cols, (VECTOR_BYTES - misaligned) // element_bytes if misaligned else 0)
    vectors = (cols - head) // per_vector
    return head, vectors, cols - head - vectors * per_vector


def lane_of_vector(vector, lanes):
    """Lane l of a row's `lanes` takes vectors l, l + lanes, l + 2*lanes, ..."""
    return vector % lanes


def cell(svg, x, y, w, h, fill, label="", size=10, stroke="#ffffff"):
    svg.rect(x, y, w, h, fill=fill, stroke=stroke, stroke_width=1.0)
    if label:
        svg.text(x + w / 2, y + h / 2 + size * 0.36, label, size=size, anchor="middle", color=text_color(fill),
                 family=MONO)


def wrap(text, max_chars):
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > max_chars:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return lines + ([current] if current else [])


def panel_title(svg, y, title, caption):
    """The panel's title and its caption (wrapped); returns where the panel's cells start."""
    svg.text(24, y, title, size=15, weight="bold", color=TEXT)
    lines = wrap(caption, 138)
    for i, line in enumerate(lines):
        svg.text(24, y + 19 + 16 * i, line, size=12, color=SUBTLE)
    return y + 18 + 16 * len(lines)


def draw_mapping(path):
    svg = Svg(WIDTH, 755, "13_rows: how the rows of a matrix are shared out",
              "One thread, a group of lanes, a warp or a block per row; each cell a 16-byte vector"
              ", coloured by the thread that loads it.")
    svg.text(24, 32, "One result per row: who reads which part of a row", size=19, weight="bold", color=TEXT)
    svg.text(24, 54, "Each cell is one load of a 16-byte vector (4 floats, 8 halves), or one element of it. "
                     "Colour = the thread that loads it.", size=12.5, color=SUBTLE)

    # 1. One thread per row, rows of at most 128 bytes staged in shared memory (K = 3 floats).
    y = panel_title(svg, 92, "Thread: one thread per row, staged (K = 3 floats, 12 bytes; rows of up to 128 bytes)",
                    "The block loads a tile of 1280 rows as one byte range: thread t loads vectors t, t + 256, t + 512, "
                    "t + 768 (four 16-byte loads in flight), into shared memory; after the barrier, thread t reduces "
                    "rows t, t + 256, ... of the tile from there.")
    cw, ch = 30.0, 20.0
    threads = 8
    for r in range(threads):
        x0 = 110
        svg.text(x0 - 10, y + r * (ch + 3) + 14, f"row {r}", size=11, anchor="end", color=SUBTLE)
        for j in range(3):
            loader = (r * 3 + j) // 4  # the vector (4 floats) holding this element, loaded by that thread
            cell(svg, x0 + j * cw, y + r * (ch + 3), cw, ch, thread_color(loader, threads), f"x{j}")
        svg.text(x0 + 3 * cw + 12, y + r * (ch + 3) + 14,
                 f"loaded by thread {(r * 3) // 4}" + ("" if (r * 3) // 4 == (r * 3 + 2) // 4 else f", {(r * 3 + 2) // 4}")
                 + f"; thread {r} adds it from shared memory, writes result[{r}]", size=11, color=TEXT)
    svg.text(720, y + 40, "no shuffles: each thread", size=12, color=TEXT)
    svg.text(720, y + 58, "owns whole rows", size=12, color=TEXT)

    # 2. A group of lanes per row (K = 64 floats: 16 vectors; rows.cuh gives 4 lanes).
    y += threads * (ch + 3) + 26
    lanes, vectors, shown_rows = 4, 16, 4
    y = panel_title(svg, y, "Group: 4 lanes per row (K = 64 floats: 16 vectors of 16 bytes, 4 per lane)",
                    "A warp holds 8 such groups, one row each. Lane l of a row takes vectors l, l + 4, ...: each "
                    "load of the warp reads 64 bytes of 8 rows, whole 32-byte sectors.")
    for r in range(shown_rows):
        x0 = 110
        yy = y + r * (ch + 3)
        svg.text(x0 - 10, yy + 14, f"row {r}", size=11, anchor="end", color=SUBTLE)
        for v in range(vectors):
            lane = r * lanes + lane_of_vector(v, lanes)
            cell(svg, x0 + v * 32, yy, 32, ch, thread_color(lane, shown_rows * lanes), f"{lane}", size=9.5)
        svg.text(x0 + vectors * 32 + 12, yy + 14,
                 f"lanes {r * lanes}-{r * lanes + lanes - 1}: 2 shuffle steps -> result[{r}]",
                 size=11, color=TEXT)

    # 3. One warp per row (K = 1024 floats: 256 vectors).
    y += shown_rows * (ch + 3) + 26
    y = panel_title(svg, y, "Warp: 32 lanes per row (K = 1024 floats: 256 vectors, 8 per lane)",
                    "Lane l takes vectors l, l + 32, l + 64, ...: each load of the warp reads 512 contiguous bytes; "
                    "four loads in flight per lane, then 5 shuffle steps.")
    per_line, w = 64, 13.0
    x0 = 110
    for line in range(2):
        yy = y + line * (ch + 3)
        svg.text(x0 - 10, yy + 14, f"v{line * per_line}..", size=11, anchor="end", color=SUBTLE)
        for v in range(per_line):
            vector = line * per_line + v
            lane = lane_of_vector(vector, 32)
            cell(svg, x0 + v * w, yy, w, ch, thread_color(lane, 32))
    yy = y + 2 * (ch + 3)
    svg.text(x0, yy + 14, "... vectors 128 to 255 the same way. Colours: lanes 0 to 31", size=11, color=SUBTLE)
    for lane in range(32):
        cell(svg, x0 + 400 + lane * 13, yy + 3, 13, 13, thread_color(lane, 32))

    # 4. One block per row (K = 65536 floats: 16384 vectors, 256 threads).
    y = yy + 40
    y = panel_title(svg, y, "Block: 256 threads per row (K = 65536 floats: 16384 vectors, 64 per thread)",
                    "Thread t takes vectors t, t + 256, ...; each warp combines its lanes with shuffles, the 8 warp "
                    "results meet in shared memory (09's block_reduce), thread 0 writes the row's result.")
    warps = 8
    for segment in range(2):
        for warp in range(warps):
            xx = x0 + (segment * warps + warp) * 46
            cell(svg, xx, y, 46, ch, thread_color(warp, warps), f"warp {warp}", size=9)
    svg.text(x0 + 16 * 46 + 10, y + 14, "... 64 rounds", size=11, color=SUBTLE)
    svg.text(x0, y + ch + 18, "each cell: 32 vectors (512 bytes), one per lane of that warp", size=11, color=SUBTLE)
    write(svg, path)


def draw_alignment(path):
    cols, element_bytes, rows = 33, 4, 4
    svg = Svg(WIDTH, 290, "13_rows: rows of K = 33 floats start at every alignment",
              "Each row split into head (before the first 16-byte-aligned address), whole 16-byte vectors, and tail.")
    svg.text(24, 32, "Rows of K = 33 floats (132 bytes) start at every 16-byte alignment", size=19, weight="bold",
             color=TEXT)
    svg.text(24, 54, "Each row is split on its own: head (before its first 16-byte boundary), whole vectors "
                     "(one 16-byte load each), tail. Grey lines: 16-byte boundaries.", size=12.5, color=SUBTLE)
    ew, ch, x0, y0 = 16.0, 24.0, 225.0, 84.0  # ew: one element (4 bytes)
    per_vector = VECTOR_BYTES // element_bytes
    # Every row on one byte axis, shifted by its start modulo 16, so that the 16-byte
    # boundaries line up.
    for b in range(0, 10):
        x = x0 + b * per_vector * ew
        svg.line(x, y0 - 8, x, y0 + rows * (ch + 14) - 6, stroke=GRID, width=0.8, stroke_dasharray="3 3")
    for r in range(rows):
        start = r * cols * element_bytes
        shift = start % VECTOR_BYTES
        head, vectors, tail = split_row(start, cols, element_bytes)
        y = y0 + r * (ch + 14)
        svg.text(x0 - 12, y + 16, f"row {r}: byte {start} ({start} mod 16 = {shift})", size=11, anchor="end",
                 color=SUBTLE)
        x = x0 + shift // element_bytes * ew
        for j in range(cols):
            if j < head:
                fill, label = HEAD, ""
            elif j < head + vectors * per_vector:
                v = (j - head) // per_vector
                fill = hue_color(0.6, lightness=0.45 if v % 2 == 0 else 0.62)
                label = f"v{v}" if (j - head) % per_vector == 1 else ""
            else:
                fill, label = TAIL, ""
            cell(svg, x + j * ew, y, ew, ch, fill, label, size=8.5)
        svg.text(x0 + (cols + per_vector - 1) * ew + 8, y + 16, f"head {head}, {vectors} vectors, tail {tail}", size=11,
                 color=TEXT)
    y = y0 + rows * (ch + 14) + 8
    for i, (fill, label) in enumerate(((HEAD, "head: elements one at a time"),
                                       (hue_color(0.6, lightness=0.45), "vectors: one 16-byte load each"),
                                       (TAIL, "tail: elements one at a time"))):
        cell(svg, x0 + i * 240, y, 16, 16, fill)
        svg.text(x0 + i * 240 + 24, y + 13, label, size=12, color=TEXT)
    write(svg, path)


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "docs", "images"), help="folder for the SVG files")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for name, draw in (("rows_mapping.svg", draw_mapping), ("rows_alignment.svg", draw_alignment)):
        path = os.path.join(args.out, name)
        draw(path)
        print("wrote", os.path.relpath(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
