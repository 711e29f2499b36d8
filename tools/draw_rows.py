#!/usr/bin/env python3
"""Draws the pictures of the rows chapters (13_rows to 16_short_rows, 18_split_rows) and of 19_ragged_segments as
SVG files.

    python3 tools/draw_rows.py [--out docs/images]

The shapes are computed the way the kernels do (plan_rows, staged_word, lane_reduce_row, diagonal_search);
main() lists the pictures. Python 3 standard library only.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svg import MONO, SUBTLE, TEXT, Svg, hls_color, wrap  # noqa: E402

GRID = "#9aa0a6"
HEAD = "#f4a259"    # elements before the first aligned address
TAIL = "#7fb069"    # elements after the last whole vector
SPARE = "#d0d0d0"   # spare words in shared memory
VECTOR_BYTES = 16


def thread_color(index, count):
    """A colour per thread (or lane, or warp) of `count`, spread around the hue circle."""
    return hls_color(0.58 + index / count * 0.9, 0.55, 0.55)


def text_color(fill):
    """White or near-black, whichever reads better on fill."""
    r, g, b = (int(fill[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return "#ffffff" if 0.299 * r + 0.587 * g + 0.114 * b < 0.55 else "#1a1a1a"


def split_row(start_byte, cols, element_bytes):
    """lane_reduce_row: (head, vector_count, tail) of a row starting at start_byte."""
    per_vector = VECTOR_BYTES // element_bytes
    misaligned = start_byte % VECTOR_BYTES
    head = min(cols, (VECTOR_BYTES - misaligned) // element_bytes if misaligned else 0)
    vectors = (cols - head) // per_vector
    return head, vectors, cols - head - vectors * per_vector


def staged_word(word, spare):
    """16's staged_word: where word `word` of a tile lies in shared memory."""
    return word + spare * (word // 64)


def bank_counts(row_words, spare):
    """How many of a warp's 32 lanes read their row's first word (staged_word) from each bank."""
    counts = [0] * 32
    for lane in range(32):
        counts[staged_word(lane * row_words, spare) % 32] += 1
    return counts


def split_pieces(count, parts):
    """The vectors [begin, end) of each piece of a row of `count` vectors (18's lane_reduce_row)."""
    per = (count + parts - 1) // parts
    return [(min(per * part, count), min(per * part + per, count)) for part in range(parts)]


def diagonal_search(diagonal, offsets):
    """19's merge-path search: where `diagonal` (a number of path items) crosses the path of the segments with
    these CSR offsets, as (ends taken, elements taken): the fewest ends k such that end k (offsets[k + 1]) is
    not before element diagonal - k - 1. By halves: the kernel's answer, which it finds 4 ways a step."""
    ends, elements = len(offsets) - 1, offsets[-1]
    low, high = max(diagonal - elements, 0), min(diagonal, ends)
    while low < high:
        middle = (low + high) // 2
        if offsets[middle + 1] <= diagonal - middle - 1:
            low = middle + 1
        else:
            high = middle
    return low, diagonal - low


def ragged_path(lengths, tile):
    """19's path of segments of these lengths: (offsets, items, corners). items: ("element", j, segment) and
    ("end", k, k) in path order; corners[b]: where tile boundary b (item b x tile, the path's end for the
    last) crosses the path, as ragged_partition computes it."""
    offsets = [0]
    for length in lengths:
        offsets.append(offsets[-1] + length)
    items = []
    for s, length in enumerate(lengths):
        items += [("element", j, s) for j in range(offsets[s], offsets[s] + length)] + [("end", s, s)]
    path = len(items)
    tiles = (path + tile - 1) // tile
    return offsets, items, [diagonal_search(min(b * tile, path), offsets) for b in range(tiles + 1)]


def cell(svg, x, y, w, h, fill, label="", size=10):
    svg.rect(x, y, w, h, fill=fill, stroke="#ffffff", stroke_width=1.0)
    if label:
        svg.text(x + w / 2, y + h / 2 + size * 0.36, label, size=size, anchor="middle", color=text_color(fill),
                 family=MONO)


def note(svg, x, y, text, color=TEXT, anchor="start", size=11):
    svg.text(x, y, text, size=size, anchor=anchor, color=color)


def side(svg, x, y, text):
    """A label ending left of x, beside a row of cells whose top is at y."""
    svg.text(x - 10, y + 14, text, size=11, anchor="end", color=SUBTLE)


def cell_row(svg, x, y, label, w, cells, size=10):
    """Cells w wide from x (20 high), each (fill, text), the row's label left of them."""
    side(svg, x, y, label)
    for k, (fill, text) in enumerate(cells):
        cell(svg, x + k * w, y, w, 20.0, fill, text, size)


def page(height, title, description, heading, subheading):
    """An Svg 980 wide with the picture's heading and the line under it."""
    svg = Svg(980.0, height, title, description)
    svg.text(24, 32, heading, size=19, weight="bold", color=TEXT)
    svg.text(24, 54, subheading, size=12.5, color=SUBTLE)
    return svg


def panel_title(svg, y, title, caption):
    """The panel's title and its caption (wrapped); returns where the panel's cells start."""
    svg.text(24, y, title, size=15, weight="bold", color=TEXT)
    lines = wrap(caption, 138)
    for i, line in enumerate(lines):
        svg.text(24, y + 19 + 16 * i, line, size=12, color=SUBTLE)
    return y + 18 + 16 * len(lines)


def draw_mapping():
    svg = page(755, "The rows chapters: how the rows of a matrix are shared out",
               "One thread, a group of lanes, a warp or a block per row; each cell a 16-byte vector"
               ", coloured by the thread that loads it.",
               "One result per row: who reads which part of a row",
               "Each cell is one load of a 16-byte vector (4 floats, 8 halves), or one element of it. "
               "Colour = the thread that loads it.")
    x0, cw, ch = 110, 30.0, 20.0

    # 1. One thread per row, rows of at most 128 bytes staged in shared memory (K = 3 floats).
    y = panel_title(svg, 92, "Thread: one thread per row, staged (K = 3 floats, 12 bytes; rows of up to 128 bytes)",
                    "The block loads a tile of 1280 rows as one byte range: thread t loads vectors t, t + 256, "
                    "t + 512, t + 768 (four 16-byte loads in flight), into shared memory; after the barrier, thread t "
                    "reduces rows t, t + 256, ... of the tile from there.")
    threads = 8
    for r in range(threads):  # element j of row r is in vector (3r + j) / 4 (4 floats), loaded by that thread
        yy = y + r * (ch + 3)
        cell_row(svg, x0, yy, f"row {r}", cw, [(thread_color((r * 3 + j) // 4, threads), f"x{j}") for j in range(3)])
        first, last = (r * 3) // 4, (r * 3 + 2) // 4
        note(svg, x0 + 3 * cw + 12, yy + 14, f"loaded by thread {first}" + ("" if first == last else f", {last}")
             + f"; thread {r} adds it from shared memory, writes result[{r}]")
    note(svg, 720, y + 40, "no shuffles: each thread", size=12)
    note(svg, 720, y + 58, "owns whole rows", size=12)

    # 2. A group of lanes per row (K = 64 floats: 16 vectors; 15's plan_rows gives 4 lanes).
    lanes, vectors, shown_rows = 4, 16, 4
    y = panel_title(svg, y + threads * (ch + 3) + 26,
                    "Group: 4 lanes per row (K = 64 floats: 16 vectors of 16 bytes, 4 per lane)",
                    "A warp holds 8 such groups, one row each. Lane l of a row takes vectors l, l + 4, ...: each "
                    "load of the warp reads 64 bytes of 8 rows, whole 32-byte sectors.")
    for r in range(shown_rows):
        yy = y + r * (ch + 3)
        row_lanes = [r * lanes + v % lanes for v in range(vectors)]
        cell_row(svg, x0, yy, f"row {r}", 32, [(thread_color(lane, 16), f"{lane}") for lane in row_lanes], 9.5)
        note(svg, x0 + vectors * 32 + 12, yy + 14,
             f"lanes {r * lanes}-{r * lanes + lanes - 1}: 2 shuffle steps -> result[{r}]")

    # 3. One warp per row (K = 1024 floats: 256 vectors).
    y = panel_title(svg, y + shown_rows * (ch + 3) + 26,
                    "Warp: 32 lanes per row (K = 1024 floats: 256 vectors, 8 per lane)",
                    "Lane l takes vectors l, l + 32, l + 64, ...: each load of the warp reads 512 contiguous bytes; "
                    "four loads in flight per lane, then 5 shuffle steps.")
    for line in range(2):  # 64 vectors a line
        cells = [(thread_color(v % 32, 32), "") for v in range(64)]
        cell_row(svg, x0, y + line * (ch + 3), f"v{line * 64}..", 13.0, cells)
    yy = y + 2 * (ch + 3)
    note(svg, x0, yy + 14, "... vectors 128 to 255 the same way. Colours: lanes 0 to 31", SUBTLE)
    for lane in range(32):
        cell(svg, x0 + 400 + lane * 13, yy + 3, 13, 13, thread_color(lane, 32))

    # 4. One block per row (K = 65536 floats: 16384 vectors, 256 threads).
    y = panel_title(svg, yy + 40, "Block: 256 threads per row (K = 65536 floats: 16384 vectors, 64 per thread)",
                    "Thread t takes vectors t, t + 256, ...; each warp combines its lanes with shuffles, the 8 warp "
                    "results meet in shared memory (09's block_reduce), thread 0 writes the row's result.")
    for k in range(16):
        cell(svg, x0 + k * 46, y, 46, ch, thread_color(k % 8, 8), f"warp {k % 8}", size=9)
    note(svg, x0 + 16 * 46 + 10, y + 14, "... 64 rounds", SUBTLE)
    note(svg, x0, y + ch + 18, "each cell: 32 vectors (512 bytes), one per lane of that warp", SUBTLE)
    return svg


def draw_alignment():
    cols, element_bytes, rows = 33, 4, 4
    svg = page(290, "13_rows: rows of K = 33 floats start at every alignment",
               "Each row split into head (before the first 16-byte-aligned address), whole 16-byte vectors, and tail.",
               "Rows of K = 33 floats (132 bytes) start at every 16-byte alignment",
               "Each row is split on its own: head (before its first 16-byte boundary), whole vectors "
               "(one 16-byte load each), tail. Grey lines: 16-byte boundaries.")
    ew, ch, x0, y0 = 16.0, 24.0, 225.0, 84.0  # ew: one element (4 bytes)
    per_vector = VECTOR_BYTES // element_bytes
    # Every row on one byte axis, shifted by its start modulo 16, so that the 16-byte boundaries line up.
    for b in range(10):
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
            fill, label = (HEAD if j < head else TAIL), ""
            if head <= j < head + vectors * per_vector:  # a whole vector: alternating shades, named once
                v = (j - head) // per_vector
                fill = hls_color(0.6, 0.45 if v % 2 == 0 else 0.62, 0.55)
                label = f"v{v}" if (j - head) % per_vector == 1 else ""
            cell(svg, x + j * ew, y, ew, ch, fill, label, size=8.5)
        note(svg, x0 + (cols + per_vector - 1) * ew + 8, y + 16, f"head {head}, {vectors} vectors, tail {tail}")
    y = y0 + rows * (ch + 14) + 8
    for i, (fill, label) in enumerate(((HEAD, "head: elements one at a time"),
                                       (hls_color(0.6, 0.45, 0.55), "vectors: one 16-byte load each"),
                                       (TAIL, "tail: elements one at a time"))):
        cell(svg, x0 + i * 240, y, 16, 16, fill)
        note(svg, x0 + i * 240 + 24, y + 13, label, size=12)
    return svg


def draw_lane_groups():
    lanes, groups, vectors = 4, 8, 16  # K = 64 floats: 16 vectors; 15's plan_rows gives 4 lanes
    svg = page(625, "15_lane_groups: a warp as eight groups of 4 lanes, one row each",
               "Each group of 4 lanes reads its own row of 16 vectors; the four loads of a trip; one group's "
               "shuffles with offsets 2 and 1.",
               "A group of 4 lanes per row (K = 64 floats: 16 vectors of 16 bytes per row)",
               "15_lane_groups with kLanes = 4: the 32 lanes of a warp are 8 groups, each on its own row. "
               "Colour = group, number = lane.")
    x0, cw, ch = 110.0, 26.0, 20.0

    # 1. The warp's lanes, in groups.
    y = panel_title(svg, 90, "1. One warp: lanes 0-31, eight groups of 4 (thread t is lane t % 4 of group t / 4)",
                    "A group starts at a multiple of 4, so lane ^ offset for offsets 2 and 1 stays in the group.")
    for lane in range(32):
        cell(svg, x0 + lane * cw, y, cw, ch, thread_color(lane // lanes, groups), f"{lane}", size=10)
    for g in range(groups):
        note(svg, x0 + (g * lanes + lanes / 2) * cw, y + ch + 15, f"row {g}", anchor="middle")
    side(svg, x0, y, "lanes")

    # 2. Each group on its own row; the four loads of a trip, and the 128-byte lines.
    y = panel_title(svg, y + ch + 48, "2. Each group reads its own row: lane j of the group takes vectors j, j + 4, "
                                      "j + 8, j + 12",
                    "One load instruction of the warp reads 4 vectors (64 bytes, half a line's worth) of each of 8 "
                    "rows. Loads 1 and 2 of a trip together make 128 bytes: if ptxas issues load 2 later, the rest of "
                    "the line is asked for later, so groups of 2 and 4 lanes load with the .L2::128B hint.")
    w = 36.0
    for k in range(4):
        xa, xb = x0 + 4 * k * w, x0 + (4 * k + 4) * w
        svg.line(xa + 3, y + 4, xb - 3, y + 4, stroke=TEXT, width=1.2)
        note(svg, (xa + xb) / 2, y, f"load {k + 1}: vectors {4 * k}-{4 * k + 3}", anchor="middle")
    y += 12
    shown = 4
    for r in range(shown):
        cells = [(thread_color(r, groups), f"{r * lanes + v % lanes}") for v in range(vectors)]
        cell_row(svg, x0, y + r * (ch + 3), f"row {r}", w, cells)
    bottom = y + shown * (ch + 3)
    for line in range(3):  # 128-byte lines: 8 vectors each (the rows of 256 bytes start on a line)
        x = x0 + line * 8 * w
        svg.line(x, y - 2, x, bottom + 2, stroke=TEXT, width=1.6, stroke_dasharray="5 3")
    note(svg, x0 + 4 * w, bottom + 16, "one 128-byte line", anchor="middle")
    note(svg, x0 + 12 * w, bottom + 16, "the next line", anchor="middle")
    for dy, text in ((14, "... rows 4-7 the same way"), (32, "(number = the lane"), (48, "that loads the vector)")):
        note(svg, x0 + vectors * w + 12, y + dy, text, SUBTLE)

    # 3. One group's shuffles: offsets 2 and 1.
    y = panel_title(svg, bottom + 44, "3. The shuffles of one group (row 1: lanes 4-7), "
                                      "__shfl_xor_sync with offsets 2, then 1",
                    "Every lane ends with the row's state; lane 4 (the group's lane 0) writes result[1]. The other "
                    "seven groups take the same steps at the same time, each within its own lanes.")
    states = [["a", "b", "c", "d"]]
    for offset in (2, 1):
        prev = states[-1]
        states.append([prev[j] + "+" + prev[j ^ offset] if len(prev[j]) == 1 else "a+b+c+d" for j in range(lanes)])
    bw, gap = 92.0, 54.0

    def box_x(j):
        return x0 + 40 + j * (bw + 20)

    for j in range(lanes):
        note(svg, box_x(j) + bw / 2, y + 12, f"lane {4 + j}", anchor="middle")
    y += 18
    labels = ("partial states", "after offset 2", "after offset 1")
    for step, (label, row, offset) in enumerate(zip(labels, states, (2, 1, None))):
        yy = y + step * gap
        side(svg, x0, yy, label)
        for j in range(lanes):
            cell(svg, box_x(j), yy, bw, ch, thread_color(1, groups), row[j], size=10.5)
        if offset:  # the shuffle to the next row: lane j reads lane j ^ offset
            for j in range(lanes):
                svg.line(box_x(j ^ offset) + bw / 2, yy + ch + 2, box_x(j) + bw / 2, yy + gap - 3, stroke=SUBTLE,
                         width=1.0, arrow=True)
    for step, text in enumerate(("lane 4 ^ 2 = 6, 5 ^ 2 = 7", "lane 4 ^ 1 = 5, 6 ^ 1 = 7", "never lanes 0-3 or 8-31")):
        note(svg, box_x(4) + 6, y + step * gap + 14, text)
    return svg


def draw_staged():
    cols, element_bytes, spare = 5, 4, 3  # K = 5 floats: rows of 20 bytes, 3 rows per thread (16's plan_rows)
    row_words = cols * element_bytes // 4
    words = 65  # rows 0-12; row 12 spans the spare words
    svg = page(580, "16_short_rows: a tile of rows staged in shared memory",
               "The block loads the tile's bytes as 16-byte vectors, stores them in shared memory with 3 spare words "
               "after every 64, and each thread reduces its own rows; the banks of row-strided reads.",
               "One thread per row, through shared memory (K = 5 floats: rows of 20 bytes)",
               "16_short_rows: a tile of 256 x 3 = 768 rows; its first 65 words shown. Each cell is a 4-byte "
               "word, coloured by the row it belongs to.")
    x0, cw, ch = 92.0, 12.0, 20.0

    def row_fill(word):
        return hls_color(0.58 + (word // row_words) * 0.13, 0.5 if (word // row_words) % 2 == 0 else 0.68, 0.55)

    # 1. The load: the tile is one byte range, read as 16-byte vectors.
    y = panel_title(svg, 90, "1. Load: the tile is one byte range; thread t loads vectors t, t + 256, t + 512, t + 768",
                    "All of a thread's loads are issued before any is stored: up to four 16-byte loads in flight per "
                    "thread, whatever K is. Vector boundaries in black; the thread that loads each vector above it.")
    for v in range((words + 3) // 4):
        svg.text(x0 + 4 * v * cw + 2 * cw, y + 8, f"t{v}", size=9.5, anchor="middle", color=TEXT)
    y += 14
    side(svg, x0, y, "global")
    for word in range(words):
        cell(svg, x0 + word * cw, y, cw, ch, row_fill(word))
    for v in range((words + 3) // 4 + 1):
        x = x0 + min(4 * v, words) * cw
        svg.line(x, y - 3, x, y + ch + 3, stroke=TEXT, width=1.6)

    # 2. The store, with spare words; 3. each thread's row.
    y = panel_title(svg, y + ch + 40, "2. Store: word w of the tile goes to shared word w + 3 * (w / 64), "
                                      "3 spare words after every 64",
                    "3. After __syncthreads(), thread t reduces row t (and rows t + 256, t + 512) from shared memory, "
                    "a vector's worth of elements at a time: no shuffles, and a warp writes 32 neighbouring results.")
    side(svg, x0, y, "shared")
    for word in range(words):
        cell(svg, x0 + staged_word(word, spare) * cw, y, cw, ch, row_fill(word))
    for extra in range(spare):
        cell(svg, x0 + (64 + extra) * cw, y, cw, ch, SPARE)
    note(svg, x0 + (64 + spare / 2) * cw, y - 6, "spare", anchor="middle", size=10)
    for r in range(words // row_words):
        first, last = staged_word(r * row_words, spare), staged_word(r * row_words + row_words - 1, spare)
        xa, xb = x0 + first * cw + 2, x0 + (last + 1) * cw - 2
        svg.line(xa, y + ch + 5, xb, y + ch + 5, stroke=TEXT, width=1.2)
        note(svg, (xa + xb) / 2, y + ch + 18, f"t{r}", anchor="middle", size=10)
    note(svg, x0, y + ch + 38, "Row t starts at shared word 5t (3 more past word 63, 6 past 127): the 32 lanes of a "
                               f"warp read their rows' first words from banks with at most "
                               f"{max(bank_counts(row_words, spare))} lanes each.", SUBTLE)

    # 4. Why the spare words: the banks of row-strided reads, rows of 128 bytes.
    y = panel_title(svg, y + ch + 78, "4. Why the spare words: rows of 32 floats (128 bytes), the bank of each lane's "
                                      "first read",
                    "A bank serves one word at a time: lanes on different words of one bank wait in turn. "
                    "Bank = shared word mod 32.")
    base, scale, bw = y + 122, 3.4, 11.0
    for panel, (spare_words, title) in enumerate(((0, "no spare words: all 32 lanes in bank 0"),
                                                  (spare, "3 spare words per 64: 2 lanes per bank"))):
        px = x0 + panel * 440
        svg.line(px, base, px + 32 * bw, base, stroke=GRID, width=1.0)
        for bank, count in enumerate(bank_counts(32, spare_words)):
            if count:
                svg.rect(px + bank * bw + 1, base - count * scale, bw - 2, count * scale,
                         fill=thread_color(panel * 3, 6))
                note(svg, px + bank * bw + bw / 2, base - count * scale - 4, f"{count}", anchor="middle", size=9)
        for bank in (0, 8, 16, 24, 31):
            note(svg, px + bank * bw + bw / 2, base + 13, f"{bank}", SUBTLE, anchor="middle", size=9)
        note(svg, px, base + 30, title, size=12)
    side(svg, x0, base - 54, "lanes")
    return svg


def draw_split():
    rows, parts, count = 3, 4, 20  # rows, pieces per row, vectors per row
    svg = page(430, "18_split_rows: a row over several blocks",
               "Three rows, each split into four pieces of whole vectors; one block per piece; each block's state "
               "goes to scratch and it draws its row's ticket; the block that draws the last ticket combines.",
               "18_split_rows: M = 3 rows, 4 blocks per row (blocks_per_row = resident blocks / M)",
               "Each cell is a 16-byte vector. Piece p of a row: vectors [p * ceil(V / 4), ...); the head goes "
               "with piece 0, the tail with piece 3. Block b = row * 4 + piece.")
    x0, y0, w, h = 124.0, 84.0, 19.0, 26.0
    sx = x0 + count * w + 44
    for r in range(rows):
        y = y0 + r * (h + 70)
        svg.text(x0 - 26, y + 18, f"row {r}", size=13, anchor="end", color=TEXT, weight="bold")
        cell(svg, x0 - 4 - 14, y, 14, h, HEAD, "", 9)
        for part, (begin, end) in enumerate(split_pieces(count, parts)):
            color = thread_color(r * parts + part, rows * parts)
            for v in range(begin, end):
                cell(svg, x0 + v * w, y, w, h, color, str(v), 9)
            mid = x0 + (begin + end) / 2 * w
            note(svg, mid, y + h + 16, f"block {r * parts + part}", anchor="middle")
            svg.line(mid, y + h + 21, sx + part * 38 + 18, y + h + 3, stroke=GRID, width=1.0, arrow=True)
        cell(svg, x0 + count * w, y, 10, h, TAIL, "", 9)
        for part in range(parts):
            cell(svg, sx + part * 38, y - 2, 36, h + 4, thread_color(r * parts + part, rows * parts), f"s{part}", 10)
        tx = sx + parts * 38 + 10
        svg.text(tx, y + 10, f"ticket[{r}]: 0 → 1 → 2 → 3 → 4", size=12, color=TEXT, family=MONO)
        note(svg, tx, y + 28, "whoever draws 3 combines s0..s3", SUBTLE, size=11.5)
        note(svg, tx, y + 44, f"in order, writes output[{r}], sets 0", SUBTLE, size=11.5)
    note(svg, 24, 392, "Orange: the row's head (before its first 16-byte boundary); green: its tail.", SUBTLE, size=12)
    note(svg, 24, 410, "The states are combined in a fixed order, so the result is the same on every run; which block "
         "draws the last ticket is not.", SUBTLE, size=12)
    return svg


def draw_ragged():
    lengths, tile = [2, 0, 1, 13, 1, 1, 4], 8  # the real tile: 4096 path items (256 threads x 16)
    offsets, items, corners = ragged_path(lengths, tile)
    segments, n, path = len(lengths), offsets[-1], len(items)
    tiles = len(corners) - 1
    first_tile = [(offsets[s] + s) // tile for s in range(segments)]     # the owner: the tile of its first item
    last_tile = [(offsets[s + 1] + s) // tile for s in range(segments)]  # the tile of its end
    cut = [s for s in range(segments) if first_tile[s] != last_tile[s]]
    longest = max(range(segments), key=lambda s: lengths[s])
    svg = page(428, "19_ragged_segments: segments of any lengths, balanced by merge path",
               f"{segments} segments of lengths {', '.join(map(str, lengths))} ({n} elements) merged with their "
               f"ends into a path of {path} items, cut every {tile} items into {tiles} tiles; the long segment is "
               f"cut over {last_tile[longest] - first_tile[longest] + 1} tiles, each stores its piece and draws a "
               "ticket kept at the segment's first tile.",
               "19_ragged_segments: every tile gets the same number of path items",
               f"Lengths {', '.join(map(str, lengths))}: {n} elements and {segments} ends make a path of {n} + "
               f"{segments} = {path} items; a tile takes {tile} of them (in the code 4096 = 256 threads x 16).")
    x0, ew, nw, ch = 110.0, 28.0, 14.0, 22.0  # ew: an element, nw: an end

    def hue(s):
        return 0.58 + s / segments * 0.9  # thread_color's hues, one per segment

    xs, x = [], x0  # each path item's left edge
    for kind, _, _ in items:
        xs.append(x)
        x += ew if kind == "element" else nw
    right = x

    def span(first, last):  # x of the left edge of item first, of the right edge of item last
        return xs[first], xs[last] + (ew if items[last][0] == "element" else nw)

    # 1. The array: each element where it will lie on the path, the segment boundaries between.
    y = panel_title(svg, 88, "1. The array and its offsets (CSR): segment s is elements [offsets[s], offsets[s + 1])",
                    f"Colour = segment; s1 is empty (offsets[1] = offsets[2] = {offsets[1]}). Each element is drawn "
                    "above its place on the path.") + 14
    for s in range(segments):
        mine = [i for i, item in enumerate(items) if item[2] == s]
        a, b = span(mine[0], mine[-2] if len(mine) > 1 else mine[-1])
        note(svg, (a + b) / 2, y - 6, f"s{s}", SUBTLE, anchor="middle", size=10.5)
    side(svg, x0, y, "elements")
    svg.line(x0, y - 3, x0, y + ch + 5, stroke=GRID, width=1.0, stroke_dasharray="3 2")
    note(svg, x0, y + ch + 17, "0", anchor="middle", size=10.5)
    for i, (kind, j, s) in enumerate(items):
        if kind == "element":
            cell(svg, xs[i], y, ew, ch, thread_color(s, segments), str(j), 9.5)
        else:  # the boundary after segment s: offsets[s + 1]
            mid = xs[i] + nw / 2
            svg.line(mid, y - 3, mid, y + ch + 5, stroke=GRID, width=1.0, stroke_dasharray="3 2")
            note(svg, mid, y + ch + 17, str(offsets[s + 1]), anchor="middle", size=10.5)
    side(svg, x0, y + ch + 3, "offsets")

    # 2. The path: each segment's end after its elements; tiles of `tile` items and where they cross it.
    y = panel_title(svg, y + ch + 46, f"2. The path: each end after its segment's elements; a tile every {tile} "
                                      "items, whatever the lengths",
                    f"Boundary b (item {tile}b) crosses the path at (ends taken, elements taken): the partition "
                    "kernel's 4-way search, a thread per boundary.") + 26
    for b in range(tiles):
        a, c = span(b * tile, min((b + 1) * tile, path) - 1)
        count = min((b + 1) * tile, path) - b * tile
        svg.line(a + 3, y - 10, c - 3, y - 10, stroke=TEXT, width=1.2)
        note(svg, (a + c) / 2, y - 14, f"tile {b}: {count} items", anchor="middle")
    side(svg, x0, y, "path")
    for i, (kind, j, s) in enumerate(items):
        if kind == "element":
            cell(svg, xs[i], y, ew, ch, thread_color(s, segments), str(j), 9.5)
        else:
            cell(svg, xs[i], y, nw, ch, hls_color(hue(s), 0.28, 0.55), str(s), 9.5)
    for s in cut:  # the pieces of a cut segment, under the path
        for t in range(first_tile[s], last_tile[s] + 1):
            a, c = span(max(offsets[s] + s, t * tile), min(offsets[s + 1] + s, (t + 1) * tile - 1))
            svg.line(a + 2, y + ch + 4, c - 2, y + ch + 4, stroke=thread_color(s, segments), width=3.0)
    for b, (ends, elements) in enumerate(corners):
        bx = xs[b * tile] if b < tiles else right
        svg.line(bx, y - 5, bx, y + ch + 7, stroke=TEXT, width=2.0)
        svg.text(bx, y + ch + 19, f"({ends}, {elements})", size=10.5, anchor="middle", color=TEXT, family=MONO)
    for b in range(tiles):
        a, c = span(b * tile, min((b + 1) * tile, path) - 1)
        ends, elements = corners[b + 1][0] - corners[b][0], corners[b + 1][1] - corners[b][1]
        closed = [f"s{s}" for s in range(segments) if first_tile[s] == last_tile[s] == b]
        note(svg, (a + c) / 2, y + ch + 36, f"{elements} elements, " + (f"{ends} end" + "s" * (ends != 1) if ends
                                                                       else "no end"), SUBTLE, anchor="middle")
        pieces = [f"s{s}" for s in cut if first_tile[s] <= b <= last_tile[s]]
        note(svg, (a + c) / 2, y + ch + 52, f"closes {', '.join(closed)} itself" if closed else
             f"a piece of {', '.join(pieces)} only", anchor="middle")

    # 3. A cut segment: a piece in each of its tiles, and a ticket kept at its owner.
    py = y + ch + 64
    for s in cut:
        owner = first_tile[s]
        tx, ty = x0, py + 54
        for t in range(owner, last_tile[s] + 1):
            slot = f"opening[{t}]" if t == owner else f"continuing[{t}]"
            a, c = span(max(offsets[s] + s, t * tile), min(offsets[s + 1] + s, (t + 1) * tile - 1))
            ta, tc = span(t * tile, min((t + 1) * tile, path) - 1)
            w = len(slot) * 6.2 + 14
            bx = min(max((a + c) / 2 - w / 2, ta + 4), tc - 4 - w)
            cell(svg, bx, py, w, 22, thread_color(s, segments), slot, 10)
            svg.line(bx + w / 2, py + 23, tx + 60, ty - 13, stroke=GRID, width=1.0, arrow=True)
        svg.text(tx, ty, f"counters[{owner}]: " + " → ".join(str(k) for k in range(last_tile[s] - owner + 2)),
                 size=12, color=TEXT, family=MONO)
        note(svg, tx + 250, ty - 8, f"s{s} ({lengths[s]} elements) is cut over tiles {owner}-{last_tile[s]}; its "
                                    f"owner is tile {owner}, the tile of its first item.", size=11.5)
        note(svg, tx + 250, ty + 9, "Each piece + a ticket at the owner; the last drawer combines the pieces, "
                                    f"owner first, into output[{s}].", SUBTLE, size=11.5)
    return svg


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "docs", "images"), help="folder for the SVG files")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for name, draw in (("rows_mapping.svg", draw_mapping), ("rows_alignment.svg", draw_alignment),
                       ("rows_lane_groups.svg", draw_lane_groups), ("rows_staged.svg", draw_staged),
                       ("rows_split.svg", draw_split), ("ragged_merge_path.svg", draw_ragged)):
        draw().write(os.path.join(args.out, name))
        print(os.path.join(args.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
