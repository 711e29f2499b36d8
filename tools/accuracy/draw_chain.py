#!/usr/bin/env python3
"""Draws 12_accuracy's picture of how rounding error builds up along a chain of additions.

    python3 tools/accuracy/draw_chain.py [--out docs/images]

writes accuracy_chain.svg: eight values summed by the loop (00), a tree (09, CUB, NumPy) and the compensated loop
(12) in a toy floating point of 3 significant decimal digits (a float keeps 24 binary digits; the effect is the
same, only easier to read). Every number in it is computed here. Python 3 standard library only.
"""

import argparse
import decimal
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from svg import MONO, Svg  # noqa: E402

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


def compensated(loop):
    """[(s, c)] after each addition of the loop: s its running sum, c the sum of what it dropped."""
    steps, c = [], decimal.Decimal(0)
    for s, dropped in loop:
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
    loop = sequential(values)
    levels = tree(values)
    comp = compensated(loop)
    final_comp = TOY.plus(EXACT.add(comp[-1][0], comp[-1][1]))

    width, cell, gap = 990, 84, 10
    left = 240
    lost_color = "#c0392b"
    svg = Svg(width, 10, "How rounding error builds up: a loop, a tree, a compensated loop",
              f"Eight values summed three ways in a toy floating point with {DIGITS} significant digits.")
    svg.text(20, 30, f"Eight values, three orders, in a toy float that keeps {DIGITS} significant digits "
             f"(a float keeps 24 bits)", size=15, weight="bold")
    svg.text(20, 52, f"Exact sum {fmt(exact)}; rounded once to {DIGITS} digits: {fmt(TOY.plus(exact))}. "
             "In red: the rounding error of each addition (rounded minus exact).", size=13)

    def box(x, y, text, fill="#eef3fb", stroke="#4a6fa5"):
        svg.rect(x, y, cell - gap, 28, fill=fill, stroke=stroke, rx=4)
        svg.text(x + (cell - gap) / 2, y + 19, text, size=13, anchor="middle", family=MONO, color="#222")

    def col(i):
        return left + i * cell

    def heading(y, title, *lines):
        svg.text(20, y + 18, title, size=14, weight="bold")
        for k, line in enumerate(lines):
            svg.text(20, y + 36 + 16 * k, line, size=12, color="#555")

    def chain(y, sums, errors=(), fill="#ffffff", stroke="#4a6fa5", arrow="#888"):
        """Running sums joined by arrows, each addition's rounding error (if any) under its sum."""
        for i, text in enumerate(sums):
            if i:
                svg.line(col(i - 1) + cell - gap, y + 14, col(i), y + 14, stroke=arrow, arrow=True)
            box(col(i), y, text, fill=fill, stroke=stroke)
            if i and errors and errors[i - 1]:
                svg.text(col(i) + (cell - gap) / 2, y + 44, fmt_error(errors[i - 1]), size=11, anchor="middle",
                         color=lost_color)

    # 1. The loop: one chain.
    y = 80
    heading(y, "Loop (00)", "one chain of 7 additions")
    for i, v in enumerate(values):
        box(col(i), y, fmt(v))
    y2 = y + 52
    svg.text(20, y2 + 19, "running sum s", size=12, color="#555")
    chain(y2, [fmt(values[0])] + [fmt(s) for s, _ in loop], [dropped for _, dropped in loop])
    svg.text(col(8), y2 + 19, f"= {fmt(loop[-1][0])}", size=14, weight="bold", color=lost_color)

    # 2. The tree.
    y = y2 + 80
    heading(y, "Tree (09, CUB, NumPy)", "3 levels: each value", "meets 3 additions")
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
    heading(y, "Compensated (12)", "the loop's chain, keeping", "what each + drops in c")
    chain(y, [fmt(values[0])] + [fmt(s) for s, _ in comp])
    svg.text(col(8), y + 19, "s", size=13, color="#555")
    yc = y + 40
    chain(yc, ["0"] + [fmt(c) for _, c in comp], fill="#fdf2e9", stroke="#c77c2e", arrow="#c77c2e")
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
    svg.write(path)
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
