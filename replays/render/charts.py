"""The report's small charts, drawn as SVG text (no library, no CDN): damage by character,
health over the fight as a line per character, and the luck of the dice as a histogram.
Each chart carries a <title> and an aria-label, and its numbers are in the tables beside it."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ..report.spool import TrackPoints
from ..report.values import Report, Track

WIDTH = 560
BAR = 18
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


def _svg(label: str, height: int, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{escape(label)}" '
        f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        f'font-family="sans-serif" font-size="12"><title>{escape(label)}</title>'
        + "".join(body)
        + "</svg>"
    )


def damage_chart(report: Report) -> str:
    """Per character two bars: damage dealt (dark) and taken (light)."""
    most = max([1] + [max(c.tally.damage_dealt, c.tally.damage_taken) for c in report.characters])
    left, span = 180, WIDTH - 180 - 40
    body: list[str] = []
    for row, one in enumerate(report.characters):
        y = 10 + row * (2 * BAR + 8)
        body.append(
            f'<text x="{left - 6}" y="{y + BAR + 4}" text-anchor="end">{escape(one.name)}</text>'
        )
        for offset, (value, colour, what) in enumerate(
            (
                (one.tally.damage_dealt, "#1f4e79", "dealt"),
                (one.tally.damage_taken, "#9dc3e6", "taken"),
            )
        ):
            width = span * value // most
            top = y + offset * BAR
            body.append(
                f'<rect class="bar" x="{left}" y="{top}" width="{width}" height="{BAR - 2}" '
                f'fill="{colour}"><title>{escape(one.name)}: {value} {what}</title></rect>'
                f'<text x="{left + width + 4}" y="{top + BAR - 5}">{value}</text>'
            )
    height = 20 + len(report.characters) * (2 * BAR + 8)
    return _svg("Damage dealt and taken by character", height, body)


def health_chart(report: Report, tracks: Sequence[Track | TrackPoints] | None = None) -> str:
    """Per character a line: the health counter after each event that changed it (the
    report's tracks, or `tracks` where the report wrote them aside: `report.spool`)."""
    events = max(report.length.events, 2)
    tracks = report.tracks if tracks is None else tracks
    most = max([1] + [v for track in tracks for _, v in track.points])
    left, top, plot_w, plot_h = 40, 10, WIDTH - 216, 200
    body = [
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'stroke="#555"/>',
        f'<text x="{left - 4}" y="{top + 10}" text-anchor="end">{most}</text>',
        f'<text x="{left - 4}" y="{top + plot_h}" text-anchor="end">0</text>',
    ]
    named = {one.character: one.name for one in report.characters}
    for index, track in enumerate(tracks):
        colour = COLOURS[index % len(COLOURS)]
        points, last = [], None
        for seq, value in track.points:
            x = left + plot_w * (seq - 1) // (events - 1)
            y = top + plot_h - plot_h * value // most
            if last is not None:
                points.append(f"{x},{last}")  # a step: health holds until the next change
            points.append(f"{x},{y}")
            last = y
        points.append(f"{left + plot_w},{last}")
        name = escape(named.get(track.character, track.character))
        body.append(
            f'<polyline class="track" points="{" ".join(points)}" fill="none" stroke="{colour}" '
            f'stroke-width="2"><title>{name} ({track.counter})</title></polyline>'
            # the name in the text's colour, its line's colour in a swatch before it: a name
            # drawn in the line's colour was 2.5:1 on white (orange) and less on a dark page
            f'<line x1="{left + plot_w + 8}" y1="{top + 8 + 14 * index}" '
            f'x2="{left + plot_w + 22}" y2="{top + 8 + 14 * index}" stroke="{colour}" '
            f'stroke-width="3"/>'
            f'<text x="{left + plot_w + 26}" y="{top + 12 + 14 * index}">{name}</text>'
        )
    return _svg("Health over the fight, a line per character", top + plot_h + 20, body)


def luck_chart(report: Report) -> str:
    """The readings of the fight's dice by how high they stood: ten columns, from readings
    only 0-10% of rolls reach (the highest) to those 90-100% reach."""
    counts = [0] * 10
    for die in report.luck.dice:
        share = die.at_least.num * 10 // die.at_least.den
        counts[min(share, 9)] += 1
    most = max([1, *counts])
    left, plot_h, column = 40, 140, (WIDTH - 60) // 10
    body = []
    for index, count in enumerate(counts):
        height = plot_h * count // most
        x = left + index * column
        body.append(
            f'<rect class="column" x="{x}" y="{10 + plot_h - height}" width="{column - 4}" '
            f'height="{height}" fill="#7f6000"><title>{count} readings that '
            f"{index * 10}-{index * 10 + 10}% of rolls reach</title></rect>"
            f'<text x="{x + column // 2}" y="{plot_h + 26}" '
            f'text-anchor="middle">{index * 10}%</text>'
        )
    body.append(
        f'<text x="{left}" y="{plot_h + 44}">'
        "share of rolls at least as high (left: high rolls)</text>"
    )
    return _svg(
        "How high the dice stood: readings by the share of rolls at least as high",
        plot_h + 52,
        body,
    )
