"""SVG written by hand for draw_schemes.py, draw_rows.py and accuracy/draw_chain.py (the results plots are
matplotlib's: plots.py). Python 3 standard library only."""

import colorsys
import textwrap
from xml.sax.saxutils import escape

SANS = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
TEXT = "#222222"
SUBTLE = "#666666"


def fmt(number):
    """A coordinate with at most one decimal, without a trailing .0."""
    return f"{number:.1f}".removesuffix(".0")


def hls_color(hue, lightness, saturation):
    """'#rrggbb' of a colour given as hue (taken modulo 1), lightness, saturation (0..1)."""
    r, g, b = colorsys.hls_to_rgb(hue, lightness, saturation)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def wrap(text, max_chars):
    """The words of text as lines of at most max_chars characters."""
    return textwrap.wrap(text, max_chars, break_long_words=False, break_on_hyphens=False)


def attributes(**attrs):
    """The attributes not None, numbers through fmt: stroke_width=1 is stroke-width="1", xml_space xml:space."""
    parts = []
    for key, value in attrs.items():
        if value is not None:
            key = "xml:space" if key == "xml_space" else key.replace("_", "-")
            value = fmt(value) if isinstance(value, (int, float)) else escape(str(value), {'"': "&quot;"})
            parts.append(f'{key}="{value}"')
    return " ".join(parts)


def points(pairs):
    return " ".join(f"{fmt(x)},{fmt(y)}" for x, y in pairs)


class Svg:
    """Collects elements; str() gives the document."""

    def __init__(self, width, height, title, description):
        self.width, self.height = width, height
        self.title, self.description = title, description
        self.defs, self.body, self.markers = [], [], {}

    def element(self, tag, **attrs):
        self.body.append(f"<{tag} {attributes(**attrs)}/>")

    def rect(self, x, y, w, h, fill="none", stroke="none", **extra):
        self.element("rect", x=x, y=y, width=w, height=h, fill=fill, stroke=stroke, **extra)

    def line(self, x1, y1, x2, y2, stroke, width=1.0, arrow=False, **extra):
        marker = f"url(#{self.arrow_marker(stroke)})" if arrow else None
        self.element("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, stroke_width=width, marker_end=marker, **extra)

    def polyline(self, pairs, stroke, width=1.5, **extra):
        self.element("polyline", points=points(pairs), fill="none", stroke=stroke, stroke_width=width,
                     stroke_linejoin="round", stroke_linecap="round", **extra)

    def polygon(self, pairs, fill, stroke="none", **extra):
        self.element("polygon", points=points(pairs), fill=fill, stroke=stroke, **extra)

    def text(self, x, y, content, size=13, anchor="start", color="#222", weight=None, family=SANS, markup=False,
             **extra):
        """Text at x, y (its baseline); markup: content is SVG markup already (e.g. a <tspan>)."""
        attrs = attributes(x=x, y=y, font_size=size, text_anchor=anchor, fill=color, font_weight=weight,
                           font_family=family, **extra)
        self.body.append(f"<text {attrs}>{content if markup else escape(content)}</text>")

    def arrow_marker(self, color):
        """The id of an arrowhead marker in this colour (SVG 1.1 markers cannot take the line's colour)."""
        if color not in self.markers:
            self.markers[color] = f"arrow{len(self.markers)}"
            self.defs.append(f'<marker id="{self.markers[color]}" viewBox="0 0 10 10" refX="9" refY="5" '
                             f'markerWidth="7" markerHeight="7" orient="auto"><path d="M0,1 L10,5 L0,9 z" '
                             f'fill="{color}"/></marker>')
        return self.markers[color]

    def __str__(self):
        w, h = fmt(self.width), fmt(self.height)
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img">',
                 f"<title>{escape(self.title)}</title>", f"<desc>{escape(self.description)}</desc>"]
        if self.defs:
            parts.append("<defs>" + "".join(self.defs) + "</defs>")
        parts += ['<rect width="100%" height="100%" fill="#ffffff"/>', *self.body, "</svg>"]
        return "\n".join(parts) + "\n"

    def write(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(self))
