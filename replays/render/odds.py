"""`woundlog odds --plot FILE.svg|png`: the odds as a bar chart, one row per character, each bar
split by state in the timeline's colours, with the percentages written on it where they fit,
every state of the row named under its bar (a 1% sliver has no room for words), and a legend
of the colours.

SVG is written directly; PNG is the same SVG through CairoSVG, as `woundlog timeline` does, so
the two cannot disagree.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..whatif import Odds
from .svg import CHAR_W, COLOURS

ROW_H, BAR_W, NAME_W, TOP, PAD, LEGEND_H = 50, 560, 190, 40, 12, 30


def odds_svg(answer: Odds, title: str) -> str:
    """The chart as SVG text."""
    rows = list(answer.characters.items())
    width, height = NAME_W + BAR_W + 2 * PAD, TOP + ROW_H * len(rows) + LEGEND_H + PAD
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": str(width),
            "height": str(height),
            "font-family": "sans-serif",
            "font-size": "12",
        },
    )
    ET.SubElement(svg, "rect", {"width": str(width), "height": str(height), "fill": "#fdfdfb"})
    how = "exact" if answer.exact else f"estimated from {answer.samples:,} samples"
    heading = ET.SubElement(svg, "text", {"x": str(PAD), "y": "22", "font-size": "15"})
    heading.text = f"{title}: odds {answer.when()} ({how})"
    for row, (cid, character) in enumerate(rows):
        y = TOP + row * ROW_H
        name = ET.SubElement(svg, "text", {"x": str(PAD), "y": str(y + 20)})
        name.text = character.name if character.name == cid else f"{character.name} ({cid})"
        x = float(NAME_W)
        for state in character.states:
            share = BAR_W * state.percent / 100
            bar = {"x": f"{x:.1f}", "y": str(y + 4), "width": f"{share:.1f}", "height": "24"}
            ET.SubElement(
                svg, "rect", bar | {"fill": COLOURS[state.state], "data-state": state.state}
            )
            fuller = f"{words_of(state.state)} {state.percent:.1f}%"
            words = next(
                (w for w in (fuller, f"{state.percent:.0f}%") if len(w) * CHAR_W + 6 < share), None
            )
            if words is not None:  # the longest label that fits in the bar
                label = ET.SubElement(
                    svg,
                    "text",
                    {
                        "x": f"{x + share / 2:.1f}",
                        "y": str(y + 20),
                        "text-anchor": "middle",
                        "fill": "#ffffff" if state.state == "dead" else "#1a1a1a",
                    },
                )
                label.text = words
            x += share
        said = ET.SubElement(
            svg, "text", {"x": str(NAME_W), "y": str(y + 42), "font-size": "11", "class": "states"}
        )
        said.text = " · ".join(
            f"{words_of(state.state)} {state.percent:.1f}%" for state in character.states
        )
    legend(svg, [state.state for _, c in rows for state in c.states], TOP + ROW_H * len(rows))
    return ET.tostring(svg, encoding="unicode")


def words_of(state: str) -> str:
    return state.replace("_", " ")


def legend(svg: ET.Element, shown: list[str], y: int) -> None:
    """A swatch and the name of each state the chart shows, in the order of the seven."""
    group = ET.SubElement(svg, "g", {"class": "legend"})
    x = float(PAD)
    for state in (state for state in COLOURS if state in shown):
        ET.SubElement(
            group,
            "rect",
            {"x": f"{x:.1f}", "y": str(y + 8), "width": "14", "height": "14",
             "fill": COLOURS[state], "stroke": "#1a1a1a", "data-legend": state},
        )  # fmt: skip
        name = ET.SubElement(group, "text", {"x": f"{x + 19:.1f}", "y": str(y + 19)})
        name.text = words_of(state)
        x += 19 + CHAR_W * len(name.text) + 16
