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
VALUES = [decimal.Decimal(v) for v in ["100"] + ["0.4"] * 7]
TOY = decimal.Context(prec=DIGITS, rounding=decimal.ROUND_HALF_EVEN)
EXACT = decimal.Context(prec=50)
RED, GREEN = "#c0392b", "#2a7a2a"  # a rounding error; a result rounded once
CELL, BOX = 84, 74  # a box and the gap after it; a box
MORAL = ["Every addition rounds its result, and in the loop and the tree what it drops is gone for good. A value",
         "added early meets n - 1 roundings in the loop, log2(n) in a tree: that is the chain length, and the error",
         "bound grows with it. Here the loop's errors all go one way; the tree's are fewer, on smaller partial sums,",
         "and partly cancel. 12 computes each dropped part exactly (TwoSum) and carries it to the end in c."]


def add(a, b):
    """The toy float addition: the exact sum rounded to DIGITS digits, and what the rounding
    dropped (exact minus rounded: what a compensation has to add back)."""
    exact = EXACT.add(a, b)
    rounded = TOY.plus(exact)
    return rounded, EXACT.subtract(exact, rounded)


def loop(values):
    """[(s, dropped, c)] after each addition of the loop: s the running sum, dropped what the addition's rounding
    dropped, c the compensation (the sum of all that was dropped, which in this picture adds up exactly)."""
    steps, s, c = [], values[0], decimal.Decimal(0)
    for x in values[1:]:
        s, dropped = add(s, x)
        c, lost = add(c, dropped)
        assert not lost, "pick values whose dropped parts add up exactly"
        steps.append((s, dropped, c))
    return steps


def tree(values):
    """The levels of a pairwise tree: [[(value, dropped), ...], ...], leaves first."""
    levels = [[(v, decimal.Decimal(0)) for v in values]]
    while len(levels[-1]) > 1:
        below = levels[-1]
        levels.append([add(below[i][0], below[i + 1][0]) for i in range(0, len(below), 2)])
    return levels


def fmt(d):
    return format(d.normalize(), "f")


def fmt_error(dropped):
    """The rounding error of an addition (rounded minus exact), with its sign."""
    return ("+" if dropped < 0 else "\u2212") + fmt(abs(dropped))


def col(i):
    """The left edge of column i."""
    return 240 + i * CELL


def draw():
    exact = sum(VALUES, decimal.Decimal(0))
    steps, levels = loop(VALUES), tree(VALUES)
    svg = Svg(990, 10, "How rounding error builds up: a loop, a tree, a compensated loop",
              f"Eight values summed three ways in a toy floating point with {DIGITS} significant digits.")
    svg.text(20, 30, f"Eight values, three orders, in a toy float that keeps {DIGITS} significant digits "
             f"(a float keeps 24 bits)", size=15, weight="bold")
    svg.text(20, 52, f"Exact sum {fmt(exact)}; rounded once to {DIGITS} digits: {fmt(TOY.plus(exact))}. "
             "In red: the rounding error of each addition (rounded minus exact).", size=13)

    def box(x, y, text, fill="#eef3fb", stroke="#4a6fa5"):
        svg.rect(x, y, BOX, 28, fill=fill, stroke=stroke, rx=4)
        svg.text(x + BOX / 2, y + 19, text, size=13, anchor="middle", family=MONO, color="#222")

    def heading(y, title, *lines):
        svg.text(20, y + 18, title, size=14, weight="bold")
        for k, line in enumerate(lines):
            svg.text(20, y + 36 + 16 * k, line, size=12, color="#555")

    def chain(y, sums, errors=(), fill="#ffffff", stroke="#4a6fa5", arrow="#888"):
        """Running sums joined by arrows, each addition's rounding error (if any) under its sum."""
        for i, text in enumerate(sums):
            if i:
                svg.line(col(i - 1) + BOX, y + 14, col(i), y + 14, stroke=arrow, arrow=True)
            box(col(i), y, text, fill=fill, stroke=stroke)
            if i and errors and errors[i - 1]:
                svg.text(col(i) + BOX / 2, y + 44, fmt_error(errors[i - 1]), size=11, anchor="middle", color=RED)

    # 1. The loop: one chain.
    y = 80
    heading(y, "Loop (00)", "one chain of 7 additions")
    for i, v in enumerate(VALUES):
        box(col(i), y, fmt(v))
    svg.text(20, y + 71, "running sum s", size=12, color="#555")
    chain(y + 52, [fmt(VALUES[0])] + [fmt(s) for s, _, _ in steps], [dropped for _, dropped, _ in steps])
    svg.text(col(8), y + 71, f"= {fmt(steps[-1][0])}", size=14, weight="bold", color=RED)

    # 2. The tree: each level adds pairs of the level above.
    y, row_h = y + 132, 48
    heading(y, "Tree (09, CUB, NumPy)", "3 levels: each value", "meets 3 additions")
    centres = [col(i) + BOX / 2 for i in range(len(VALUES))]  # of the level above
    for level, nodes in enumerate(levels):
        ly = y + level * row_h
        below = []
        for j, (v, dropped) in enumerate(nodes):
            cx = centres[j] if level == 0 else (centres[2 * j] + centres[2 * j + 1]) / 2
            for child in centres[2 * j:2 * j + 2] if level else ():
                svg.line(child, ly - row_h + 28, cx, ly, stroke="#888")
            below.append(cx)
            box(cx - BOX / 2, ly, fmt(v), fill="#eef3fb" if level == 0 else "#ffffff")
            if dropped:
                svg.text(cx + BOX / 2 + 4, ly + 19, fmt_error(dropped), size=11, color=RED)
        centres = below
    top = y + (len(levels) - 1) * row_h
    svg.text(col(8), top + 19, f"= {fmt(levels[-1][0][0])}", size=14, weight="bold", color=GREEN)

    # 3. Compensated: the loop's chain of s, and c.
    y = top + 70
    heading(y, "Compensated (12)", "the loop's chain, keeping", "what each + drops in c")
    chain(y, [fmt(VALUES[0])] + [fmt(s) for s, _, _ in steps])
    svg.text(col(8), y + 19, "s", size=13, color="#555")
    chain(y + 40, ["0"] + [fmt(c) for _, _, c in steps], fill="#fdf2e9", stroke="#c77c2e", arrow="#c77c2e")
    svg.text(col(8), y + 59, "c", size=13, color="#555")
    s, c = steps[-1][0], steps[-1][2]
    svg.text(col(0), y + 98, f"result: s + c = {fmt(s)} + {fmt(c)}, rounded once = {fmt(TOY.plus(EXACT.add(s, c)))} "
             "(the correctly rounded sum)", size=14, weight="bold", color=GREEN)
    for k, line in enumerate(MORAL):
        svg.text(20, y + 130 + 20 * k, line, size=13)
    y += 130 + 20 * len(MORAL)
    svg.height = y + 10
    return svg


def main(argv=None):
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description="Draw 12_accuracy's chain picture (SVG).")
    parser.add_argument("--out", default=os.path.join(repo, "docs", "images"), help="folder (default docs/images)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "accuracy_chain.svg")
    draw().write(path)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
