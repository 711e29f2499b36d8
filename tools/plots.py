"""The results plots, drawn with matplotlib (results.py, fill_rows.py, fill_accuracy.py, fill_ragged.py) through
draw(), which skips them with one line where matplotlib is not importable: lines (line_plot) and grouped bars
(bar_plot). The SVGs are deterministic: a fixed size, DejaVu Sans, a fixed hash salt and no date, so the same data
gives the same bytes."""

import os
import sys

SIZE = (11.0, 6.2)  # inches: every plot has the same width
WRONG_COLOR = "#d00000"


def pyplot():
    """matplotlib.pyplot, set up for deterministic SVG files; raises ImportError without matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.hashsalt": "cuda-reduction", "svg.fonttype": "none", "font.family": "DejaVu Sans",
                                "path.simplify": False})
    import matplotlib.pyplot as plt
    return plt


def draw(jobs, who):
    """Runs each job (path, function, args); without matplotlib none, said in one line. Returns the paths drawn."""
    try:
        pyplot()
    except ImportError:
        if jobs:
            names = ", ".join(os.path.basename(path) for path, _, _ in jobs)
            print(f"{who}: matplotlib is not importable, so these plots were not drawn: {names} "
                  "(apt install python3-matplotlib)", file=sys.stderr)
        return []
    for path, function, args in jobs:
        function(*args)
    return [path for path, _, _ in jobs]


def power_labels(base, powers):
    """Tick labels 2^10, 2^12, ... (or 10^-6, ...) in mathtext."""
    return [f"${base}^{{{k}}}$" for k in powers]


def spaced_labels(values, min_gap=0.12):
    """Labels for ticks at values on a log scale, one line lower where the left neighbour is too close."""
    import math
    out, last = [], None
    for v in values:
        x = math.log10(v)
        lower = last is not None and x - last < min_gap
        out.append(("\n" if lower else "") + str(v))
        if not lower:
            last = x
    return out


def line_plot(path, title, subtitles, series, x_label, y_label, x_ticks, x_labels, y_lim, y_log=False,
              y_ticks=None, y_labels=None, x_base=2, peak=None, legend_title=None, extra_legend=(),
              legend_order=None, y_gap=None, size=SIZE):
    """One plot: a bold title and grey subtitles over the axes, the legend on the right. series: dicts of x,
    y (None or nan: a gap), color, label, and optionally width, style, marker_size, lo and hi (a light band),
    wrong (per point: a red cross), bold (label), in_legend, hollow (white markers), alpha. y_gap: a dotted
    line at that height; peak: a dashed line at that GB/s, labelled; extra_legend: (label, Line2D kwargs)
    entries that are no series; legend_order: the series' labels in the legend's order."""
    plt, fig, ax = frame(title, subtitles, size)
    from matplotlib.lines import Line2D
    ax.set_xscale("log", base=x_base)
    if y_log:
        ax.set_yscale("log")
    ax.set_xticks(x_ticks, x_labels)
    ax.minorticks_off()
    ax.set_xlim(min(x_ticks) / x_base ** 0.25, max(x_ticks) * x_base ** 0.25)
    ax.set_ylim(*y_lim)
    if y_ticks is not None:
        ax.set_yticks(y_ticks, y_labels if y_labels is not None else [f"{t:g}" for t in y_ticks])
    style_axes(ax, x_label, y_label)
    handles, bold = [], []
    for z, s in enumerate(series):
        color, xs, ys = s["color"], s["x"], [float("nan") if y is None else y for y in s["y"]]
        if s.get("lo") is not None:
            ax.fill_between(xs, s["lo"], s["hi"], color=color, alpha=0.16, linewidth=0, zorder=2 + z * 0.01)
        line, = ax.plot(xs, ys, color=color, linewidth=s.get("width", 1.6), linestyle=s.get("style", "-"), marker="o",
                        markersize=s.get("marker_size", 3.5), zorder=3 + z * 0.01, label=s["label"],
                        alpha=s.get("alpha", 1.0), markerfacecolor="white" if s.get("hollow") else color,
                        markeredgewidth=1.5 if s.get("hollow") else 1.0)
        wrong = [(x, y) for x, y, bad in zip(xs, ys, s.get("wrong") or [False] * len(xs)) if bad]
        if wrong:
            ax.plot([x for x, _ in wrong], [y for _, y in wrong], linestyle="none", marker="x", markersize=9,
                    markeredgewidth=2.2, color=WRONG_COLOR, zorder=5)
        if s.get("in_legend", True):
            handles.append(line)
            if s.get("bold"):
                bold.append(line)
    if y_gap is not None:
        ax.axhline(y_gap, color="#bbbbbb", linewidth=1.0, linestyle=(0, (3, 3)), zorder=2.5)
    if peak is not None:
        ax.axhline(peak, color="#555555", linewidth=1.2, linestyle=(0, (6, 4)), zorder=2.5)
        ax.annotate(f"peak {peak:.0f} GB/s", xy=(1, peak), xycoords=("axes fraction", "data"), xytext=(-4, 4),
                    textcoords="offset points", ha="right", va="bottom", fontsize=9, color="#444444")
    if legend_order is not None:
        handles.sort(key=lambda h: legend_order.index(h.get_label()))
    for label, kwargs in extra_legend:
        handles.append(Line2D([], [], label=label, **kwargs))
    legend_and_save(plt, fig, ax, handles, bold, legend_title, path)


def frame(title, subtitles, size):
    """A figure with fixed margins in inches (the axes sit at the same place in every plot of that size), a bold
    title and grey subtitles over the axes: (pyplot, the figure, its axes)."""
    plt = pyplot()
    width, height = size
    fig = plt.figure(figsize=size)
    top_in = 0.42 + 0.2 * len(subtitles) + 0.15
    fig.subplots_adjust(left=1.0 / width, right=1 - 2.75 / width, bottom=0.75 / height, top=1 - top_in / height)
    fig.text(0.18 / width, 1 - 0.16 / height, title, fontsize=12.5 if len(title) < 90 else 10.5, fontweight="bold",
             va="top", ha="left", color="#111111")
    for i, line in enumerate(subtitles):
        fig.text(0.18 / width, 1 - (0.46 + 0.2 * i) / height, line, fontsize=9.5 if len(line) < 150 else 8,
                 va="top", ha="left", color="#444444")
    return plt, fig, fig.add_subplot(1, 1, 1)


def style_axes(ax, x_label, y_label):
    """Every plot's grid, spines, axis labels and ticks."""
    ax.grid(True, color="#e6e6e6", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_xlabel(x_label, fontsize=11)
    ax.set_ylabel(y_label, fontsize=11)
    ax.tick_params(labelsize=9.5, colors="#333333")


def legend_and_save(plt, fig, ax, handles, bold, legend_title, path):
    """The legend on the right of the axes (the labels of the handles in `bold` in bold), then the SVG file."""
    legend = ax.legend(handles=handles, title=legend_title, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                       fontsize=9, title_fontsize=10, frameon=False, handlelength=2.6, alignment="left")
    for text, handle in zip(legend.get_texts(), handles):
        if handle in bold:
            text.set_fontweight("bold")
    if legend_title:
        legend.get_title().set_fontweight("bold")
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def bar_plot(path, title, subtitles, categories, series, x_label, y_label, y_lim, y_ticks=None, legend_title=None,
             extra_legend=(), size=SIZE):
    """Grouped bars, one group per category (its label under it), a bar per series that has a value there, in the
    order of series, the group centred; the legend on the right, as line_plot's. series: dicts of y (one per
    category; None: no bar), color, label, and optionally lo and hi (per category: a whisker, the machines' range;
    None or nan: none), wrong (per category: a red cross on the bar), bold (label). A bar above y_lim is drawn to
    it."""
    plt, fig, ax = frame(title, subtitles, size)
    from matplotlib.lines import Line2D
    slot, top = 0.8 / len(series), y_lim[1]  # a group fills 0.8 of the space between two categories
    handles, bold = [], []
    present = [[i for i, s in enumerate(series) if s["y"][k] is not None] for k in range(len(categories))]
    for i, s in enumerate(series):
        at = [(k + (present[k].index(i) - (len(present[k]) - 1) / 2) * slot, k) for k in range(len(categories))
              if i in present[k]]
        xs, ys = [x for x, _ in at], [min(s["y"][k], top) for _, k in at]
        bars = ax.bar(xs, ys, width=slot * 0.92, color=s["color"], label=s["label"], zorder=3)
        lo, hi = s.get("lo") or [None] * len(s["y"]), s.get("hi") or [None] * len(s["y"])
        whiskers = [(x, y, min(lo[k], top), min(hi[k], top)) for (x, k), y in zip(at, ys)
                    if lo[k] is not None and lo[k] == lo[k]]  # not None, not nan
        if whiskers:
            ax.errorbar([x for x, _, _, _ in whiskers], [y for _, y, _, _ in whiskers],
                        yerr=[[max(y - low, 0) for _, y, low, _ in whiskers],
                              [max(high - y, 0) for _, y, _, high in whiskers]],
                        fmt="none", ecolor="#333333", elinewidth=0.9, capsize=2.5, zorder=4)
        wrong = [(x, y) for (x, k), y in zip(at, ys) if (s.get("wrong") or [False] * len(s["y"]))[k]]
        if wrong:
            ax.plot([x for x, _ in wrong], [y for _, y in wrong], linestyle="none", marker="x", markersize=9,
                    markeredgewidth=2.2, color=WRONG_COLOR, zorder=5)
        handles.append(bars)
        if s.get("bold"):
            bold.append(bars)
    ax.set_xticks(range(len(categories)), categories)
    ax.set_xlim(-0.6, len(categories) - 0.4)
    ax.set_ylim(*y_lim)
    if y_ticks is not None:
        ax.set_yticks(y_ticks, [f"{t:g}" for t in y_ticks])
    style_axes(ax, x_label, y_label)
    ax.grid(False, axis="x")
    for label, kwargs in extra_legend:
        handles.append(Line2D([], [], label=label, **kwargs))
    legend_and_save(plt, fig, ax, handles, bold, legend_title, path)


def band(values):
    """The machines' range of a point: (min, max), or (nan, nan) with fewer than two values."""
    found = [v for v in values if v is not None]
    return (min(found), max(found)) if len(found) >= 2 else (float("nan"), float("nan"))
