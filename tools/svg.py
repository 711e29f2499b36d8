"""Helpers for writing SVG by hand (draw_schemes.py, draw_rows.py, accuracy/draw_chain.py; the results
plots are drawn with matplotlib: plots.py). Python 3 standard library only."""

import colorsys
from xml.sax.saxutils import escape

SANS = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
TEXT = "#222222"
SUBTLE = "#666666"


def fmt(number):
    """A coordinate with at most one decimal, without a trailing .0."""
    text = f"{number:.1f}"
    return text[:-2] if text.endswith(".0") else text


def hls_color(hue, lightness, saturation):
    """'#rrggbb' of a colour given as hue, lightness, saturation (0..1)."""
    r, g, b = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def wrap(text, max_chars):
    """The words of text as lines of at most max_chars characters."""
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > max_chars:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    return lines + ([current] if current else [])


def attributes(**attrs):
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        key = "xml:space" if key == "xml_space" else key.rstrip("_").replace("_", "-")
        if isinstance(value, float):
            value = fmt(value)
        parts.append(f'{key}="{escape(str(value), {chr(34): "&quot;"})}"')
    return " ".join(parts)


def points(pairs):
    return " ".join(f"{fmt(x)},{fmt(y)}" for x, y in pairs)


class Svg:
    """Collects elements; str() gives the document."""

    def __init__(self, width, height, title, description=""):
        self.width, self.height = width, height
        self.title, self.description = title, description
        self.defs = []
        self.body = []
        self.markers = {}

    def rect(self, x, y, w, h, fill="none", stroke="none", **extra):
        self.body.append(f"<rect {attributes(x=float(x), y=float(y), width=float(w), height=float(h), fill=fill, stroke=stroke, **extra)}/>")

    def line(self, x1, y1, x2, y2, stroke="#000", width=1.0, arrow=False, **extra):
        marker = f"url(#{self.arrow_marker(stroke)})" if arrow else None
        self.body.append(f"<line {attributes(x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), stroke=stroke, stroke_width=float(width), marker_end=marker, **extra)}/>")

    def polyline(self, pairs, stroke, width=1.5, **extra):
        self.body.append(f"<polyline {attributes(points=points(pairs), fill='none', stroke=stroke, stroke_width=float(width), stroke_linejoin='round', stroke_linecap='round', **extra)}/>")

    def polygon(self, pairs, fill, stroke="none", **extra):
        self.body.append(f"<polygon {attributes(points=points(pairs), fill=fill, stroke=stroke, **extra)}/>")

    def text(self, x, y, content, **style):
        self.raw_text(x, y, escape(content), **style)

    def raw_text(self, x, y, markup, size=13, anchor="start", color="#222", weight=None, family=SANS, **extra):
        """Text whose content is already SVG markup (e.g. <tspan> for superscripts)."""
        self.body.append(f"<text {attributes(x=float(x), y=float(y), font_size=size, text_anchor=anchor, fill=color, font_weight=weight, font_family=family, **extra)}>{markup}</text>")

    def arrow_marker(self, color):
        """The id of an arrowhead marker in this colour (SVG 1.1 markers cannot take the line's colour)."""
        if color not in self.markers:
            marker_id = f"arrow{len(self.markers)}"
            self.markers[color] = marker_id
            self.defs.append(f'<marker id="{marker_id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                             f'markerHeight="7" orient="auto"><path d="M0,1 L10,5 L0,9 z" fill="{color}"/></marker>')
        return self.markers[color]

    def __str__(self):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{fmt(self.width)}" height="{fmt(self.height)}" '
                f'viewBox="0 0 {fmt(self.width)} {fmt(self.height)}" role="img">')
        parts = [head, f"<title>{escape(self.title)}</title>"]
        if self.description:
            parts.append(f"<desc>{escape(self.description)}</desc>")
        if self.defs:
            parts.append("<defs>" + "".join(self.defs) + "</defs>")
        parts.append('<rect width="100%" height="100%" fill="#ffffff"/>')
        parts.extend(self.body)
        parts.append("</svg>")
        return "\n".join(parts) + "\n"


def write(svg, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(str(svg))
