#!/usr/bin/env python3
"""Draws 12_accuracy's picture of how rounding error builds up along a chain of additions.

    python3 tools/accuracy/draw_chain.py [--out docs/images]

writes accuracy_chain.svg: the same eight values summed three ways, in a toy floating
point that keeps 3 significant decimal digits (a float keeps 24 binary digits; the
effect is the same, only easier to read):
  - the sequential loop (00): one chain of 7 additions, each rounding the running sum;
  - a tree (09, CUB, NumPy's pairwise sum): 3 levels, each value meets 3 roundings;
  - compensated (12): the loop's chain, but each addition also keeps what it rounded
    away, in a second running sum c; the result is s + c, rounded once.
Every number in the picture is computed here (decimal arithmetic, round half to even).

Python 3 standard library only.
"""

import argparse
import decimal
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from svg import MONO, Svg, write  # noqa: E402

DIGITS = 3
VALUES = ["100", "0.4", "0.4", "0.4", "0.4", "0.4", "0.4", "0.4"]

TOY = decimal.Context(prec=DIGITS, rounding=decimal.ROUND_HALF_EVEN)
EXACT = decimal.Context(prec=50)


def add(a, b):
    """The toy float addition: the exact sum rounded to DIGITS digits, and what the rounding
    dropped (exact minus rounded: what a compensation has to add back)."""
    exact = EXACT.add(a, b)
    rounded = TOY.plus(exact)
    return rounded, EXACT.subtract(exact, rounded)


def sequential(values):
    """[(running sum, dropped)] after each addition of the loop."""
    steps, s = [], values[0]
    for x in values[1:]:
        s, dropped = add(s, x)
        steps.append((s, dropped))
    return steps


def tree(values):
    """The levels of a pairwise tree: [[(value, dropped), ...], ...], leaves first."""
    levels = [[(v, decimal.Decimal(0)) for v in values]]
    while len(levels[-1]) > 1:
        below = levels[-1]
        levels.append([add(below[i][0], below[i + 1][0]) for i in range(0, len(below), 2)])
    return levels


def compensated(values):
    """[(s, c)] after each addition: s the rounded running sum, c the sum of what it dropped."""
    steps, s, c = [], values[0], decimal.Decimal(0)
    for x in values[1:]:
        s, dropped = add(s, x)
        c, lost = add(c, dropped)
        if lost:  # in this picture the compensation itself never rounds
            raise ValueError("pick values whose dropped parts add up exactly")
        steps.append((s, c))
    return steps


def fmt(d):
    return format(d.normalize(), "f")


def fmt_error(dropped):
    """The rounding error of an addition (rounded minus exact), with its sign."""
    error = -dropped
    return ("+" if error > 0 else "\u2212") + fmt(abs(error))


def draw(path):
    values = [decimal.Decimal(v) for v in VALUES]
    exact = sum(values, decimal.Decimal(0))
    correctly_rounded = TOY.plus(exact)
    loop = sequential(values)
    levels = tree(values)
    comp = compensated(values)
    final_comp = TOY.plus(EXACT.add(comp[-1][0], comp[-1][1]))

    width, cell, gap = 990, 84, 10
    left = 240
    svg = Svg(width, 10, "How rounding error builds up: a loop, a tree, a compensated loop",
              f"Eight values summed three ways in a toy floating point with {DIGITS} significant digits.")
    svg.text(20, 30, f"Eight values, three orders, in a toy float that keeps {DIGITS} significant digits "
             f"(a float keeps 24 bits)", size=15, weight="bold")
    svg.text(20, 52, f"Exact sum {fmt(exact)}; rounded once to {DIGITS} digits: {fmt(correctly_rounded)}. "
             "In red: the rounding error of each addition (rounded minus exact).", size=13)

    def box(x, y, text, fill="#eef3fb", stroke="#4a6fa5", w=cell - gap, h=28, color="#222"):
        svg.rect(x, y, w, h, fill=fill, stroke=stroke, rx=4)
        svg.text(x + w / 2, y + 19, text, size=13, anchor="middle", family=MONO, color=color)

    def col(i):
        return left + i * cell

    lost_color = "#c0392b"

    # 1. The loop: one chain.
    y = 80
    svg.text(20, y + 18, "Loop (00)", size=14, weight="bold")
    svg.text(20, y + 36, "one chain of 7 additions", size=12, color="#555")
    for i, v in enumerate(values):
        box(col(i), y, fmt(v))
    y2 = y + 52
    svg.text(20, y2 + 19, "running sum s", size=12, color="#555")
    box(col(0), y2, fmt(values[0]), fill="#ffffff")
    for i, (s, dropped) in enumerate(loop, start=1):
        svg.line(col(i - 1) + cell - gap, y2 + 14, col(i), y2 + 14, stroke="#888", arrow=True)
        box(col(i), y2, fmt(s), fill="#ffffff")
        if dropped:
            svg.text(col(i) + (cell - gap) / 2, y2 + 44, fmt_error(dropped), size=11, anchor="middle",
                     color=lost_color)
    svg.text(col(8), y2 + 19, f"= {fmt(loop[-1][0])}", size=14, weight="bold", color=lost_color)

    # 2. The tree.
    y = y2 + 80
    svg.text(20, y + 18, "Tree (09, CUB, NumPy)", size=14, weight="bold")
    svg.text(20, y + 36, "3 levels: each value", size=12, color="#555")
    svg.text(20, y + 52, "meets 3 additions", size=12, color="#555")
    row_h = 48
    centres = [col(i) + (cell - gap) / 2 for i in range(len(values))]
    for level, nodes in enumerate(levels):
        ly = y + level * row_h
        new_centres = []
        for j, (v, dropped) in enumerate(nodes):
            if level == 0:
                cx = centres[j]
            else:
                a, b = centres[2 * j], centres[2 * j + 1]
                cx = (a + b) / 2
                for child in (a, b):
                    svg.line(child, ly - row_h + 28, cx, ly, stroke="#888")
            new_centres.append(cx)
            box(cx - (cell - gap) / 2, ly, fmt(v), fill="#eef3fb" if level == 0 else "#ffffff")
            if dropped:
                svg.text(cx + (cell - gap) / 2 + 4, ly + 19, fmt_error(dropped), size=11, color=lost_color)
        centres = new_centres
    top = y + (len(levels) - 1) * row_h
    svg.text(col(8), top + 19, f"= {fmt(levels[-1][0][0])}", size=14, weight="bold", color="#2a7a2a")

    # 3. Compensated.
    y = top + 70
    svg.text(20, y + 18, "Compensated (12)", size=14, weight="bold")
    svg.text(20, y + 36, "the loop's chain, keeping", size=12, color="#555")
    svg.text(20, y + 52, "what each + drops in c", size=12, color="#555")
    box(col(0), y, fmt(values[0]), fill="#ffffff")
    for i, (s, _) in enumerate(comp, start=1):
        svg.line(col(i - 1) + cell - gap, y + 14, col(i), y + 14, stroke="#888", arrow=True)
        box(col(i), y, fmt(s), fill="#ffffff")
    svg.text(col(8), y + 19, "s", size=13, color="#555")
    yc = y + 40
    box(col(0), yc, "0", fill="#fdf2e9", stroke="#c77c2e")
    for i, (_, c) in enumerate(comp, start=1):
        svg.line(col(i - 1) + cell - gap, yc + 14, col(i), yc + 14, stroke="#c77c2e", arrow=True)
        box(col(i), yc, fmt(c), fill="#fdf2e9", stroke="#c77c2e")
    svg.text(col(8), yc + 19, "c", size=13, color="#555")
    svg.text(col(0), yc + 58, f"result: s + c = {fmt(comp[-1][0])} + {fmt(comp[-1][1])}, rounded once = "
             f"{fmt(final_comp)} (the correctly rounded sum)", size=14, weight="bold", color="#2a7a2a")

    y = yc + 90
    for line in ("Every addition rounds its result, and in the loop and the tree what it drops is gone for good. A value",
                 "added early meets n - 1 roundings in the loop, log2(n) in a tree: that is the chain length, and the error",
                 "bound grows with it. Here the loop's errors all go one way; the tree's are fewer, on smaller partial sums,",
                 "and partly cancel. 12 computes each dropped part exactly (TwoSum) and carries it to the end in c."):
        svg.text(20, y, line, size=13)
        y += 20
    svg.height = y + 10
    write(svg, path)
    return path


def main(argv=None):
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description="Draw 12_accuracy's chain picture (SVG).")
    parser.add_argument("--out", default=os.path.join(repo, "docs", "images"), help="output folder (default docs/images)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    print(draw(os.path.join(args.out, "accuracy_chain.svg")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
