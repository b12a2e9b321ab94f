"""What the pictures share: the seven states' colours, the font, and a picture in the shape
asked for.

SVG is the one drawing; PNG is that same SVG rendered by CairoSVG, so the two cannot disagree.
CairoSVG is a small pure-Python package over the system cairo library (matplotlib would bring
numpy and tens of megabytes to draw rectangles); it is an optional extra,
`woundlog[pictures]`, loaded only when a PNG is asked for.
"""

from __future__ import annotations

from woundlog.events import UsageError

COLOURS = {  # the page's colours (web/style.css): dark text on light tints, dead the reverse
    "upright": "#d4edd4",
    "knocked_down": "#fff0b3",
    "stunned": "#ffd9a8",
    "downed": "#f7b9b9",
    "stabilised": "#cfe4ff",
    "out_of_action": "#d6d6d6",
    "dead": "#2b2b2b",
}
CHAR_W = 7  # a character's width at the font size used, near enough to size a name column
FONT = "DejaVu Sans, Verdana, sans-serif"


def svg_to_png(svg: str) -> bytes:
    try:
        import cairosvg  # type: ignore[import-untyped]  # only for PNG: an optional extra
    except ImportError as error:
        raise UsageError(
            "a PNG needs CairoSVG: pip install 'woundlog[pictures]' (or write .svg)"
        ) from error
    png: bytes = cairosvg.svg2png(bytestring=svg.encode())
    return png


def picture(svg: str, shape: str) -> bytes:
    """A picture drawn as SVG, in the shape asked: "svg" as it is, "png" rendered by CairoSVG."""
    return svg_to_png(svg) if shape == "png" else svg.encode()
