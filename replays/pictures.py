"""`woundlog timeline`: a picture of a fight, drawn offline, for a chat or a campaign log.

The same timeline the page draws: one row per character, one column per event (grouped by round
where the log has rounds), each cell coloured by the character's state as the fight stood then,
marked where a die was rolled (◆) or a counter changed (±); undone events struck through.

SVG is written directly (ElementTree, so every name is escaped). PNG is that same SVG rendered by
CairoSVG: the two pictures cannot disagree, and it is a small pure-Python package over the system
cairo library (matplotlib would bring numpy and tens of megabytes to draw rectangles). It is an
optional extra, `woundlog[pictures]`, loaded only when a PNG is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from woundlog.core import Changes, CharacterChange
from woundlog.events import Event, TurnEnded, TurnStarted, UsageError
from woundlog.events.codec import read_jsonl
from woundlog.events.stores import SQLiteStore, Store, Stored

from .fight import Fight

if TYPE_CHECKING:  # ElementTree is imported where a picture is drawn: `woundlog -h` imports
    import xml.etree.ElementTree as ET  # this module too, for the timeline command's help

COLOURS = {  # the page's colours (web/style.css): dark text on light tints, dead the reverse
    "upright": "#d4edd4",
    "knocked_down": "#fff0b3",
    "stunned": "#ffd9a8",
    "downed": "#f7b9b9",
    "stabilised": "#cfe4ff",
    "out_of_action": "#d6d6d6",
    "dead": "#2b2b2b",
}
SHORT = {
    "upright": "up",
    "knocked_down": "KD",
    "stunned": "stun",
    "downed": "down",
    "stabilised": "stab",
    "out_of_action": "OoA",
    "dead": "dead",
}
CELL_W, CELL_H, HEAD_H, ROUND_H, TITLE_H = 58, 26, 44, 20, 30
CHAR_W = 7  # a character's width at the font size used, near enough to size the name column
FONT = "DejaVu Sans, Verdana, sans-serif"

Moment = tuple[Stored[Event], Changes]


# --- what the picture shows (the page's states.js, in Python) --------------------------------


def moved(changes: Changes) -> list[CharacterChange]:
    """Every character an event moved: its own changes, then an undo's consequences."""
    return [*changes.characters, *changes.consequences]


def characters(moments: Sequence[Moment]) -> dict[str, str]:
    """Character id -> name, in join order."""
    seen: dict[str, str] = {}
    for _, changes in moments:
        for change in moved(changes):
            seen.setdefault(change.character, change.name)
    return seen


def states_after(moments: Sequence[Moment]) -> list[dict[str, str]]:
    """Each character's state just after each event, as the fight stood then."""
    now: dict[str, str] = {}
    after = []
    for _, changes in moments:
        for change in moved(changes):
            if change.after is None:
                now.pop(change.character, None)
            else:
                now[change.character] = change.after
        after.append(dict(now))
    return after


def rounds(moments: Sequence[Moment]) -> list[str]:
    """Each event's round, as its group is labelled: "Setup" before the first `turn_started`,
    then the round of the latest one that gives a round. A `turn_started` without a round (a
    side's or a character's tick from the CLI) carries the last round on; turns begun before any
    round was numbered are "Turns", not "Setup"."""
    current: int | None = None
    begun = False
    found = []
    for stored, _ in moments:
        if isinstance(stored.event, TurnStarted):
            begun = True
            current = stored.event.round if stored.event.round is not None else current
        found.append(round_label(current, begun=begun))
    return found


def round_label(current: int | None, *, begun: bool) -> str:
    if current is not None:
        return f"Round {current}"
    return "Turns" if begun else "Setup"


def whose_turn(stored: Stored[Event], names: dict[str, str]) -> str | None:
    """Whose turn a side's or a character's tick starts or ends (a name, or the side); None for
    the whole round's and any other event."""
    event = stored.event
    if not isinstance(event, TurnStarted | TurnEnded):
        return None
    if event.character is not None:
        return names.get(event.character, event.character)
    return event.side


def marks(stored: Stored[Event], changes: Changes, character: str) -> str:
    """` ◆` where a die was rolled for `character`, ` ±` where its counters changed."""
    subject = getattr(stored.event, "target", None) or getattr(stored.event, "character", None)
    rolled = any(
        die.character == character or (die.character is None and subject == character)
        for die in changes.dice
    )
    change = next((c for c in moved(changes) if c.character == character), None)
    counted = change is not None and bool(
        change.counters or change.injuries or change.injuries_removed
    )
    return (" ◆" if rolled else "") + (" ±" if counted else "")


# --- drawing ---------------------------------------------------------------------------------


def _text(parent: ET.Element, x: float, y: float, text: str, **attrs: str) -> ET.Element:
    import xml.etree.ElementTree as ET  # here, not at the top: see the imports

    node = ET.SubElement(parent, "text", {"x": str(x), "y": str(y), **attrs})
    node.text = text
    return node


def timeline_svg(moments: Sequence[Moment], title: str) -> str:
    """The timeline as an SVG document."""
    import xml.etree.ElementTree as ET  # here, not at the top: see the imports

    people = characters(moments)
    after = states_after(moments)
    round_of = rounds(moments)
    has_rounds = any(r != "Setup" for r in round_of)
    left = 16 + CHAR_W * max((len(name) for name in people.values()), default=8)
    top = TITLE_H + (ROUND_H if has_rounds else 0) + HEAD_H
    width = left + CELL_W * len(moments) + 10
    height = top + CELL_H * len(people) + 10
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": str(width),
            "height": str(height),
            "viewBox": f"0 0 {width} {height}",
            "font-family": FONT,
            "font-size": "11",
        },
    )
    ET.SubElement(svg, "title").text = title
    ET.SubElement(svg, "rect", {"width": str(width), "height": str(height), "fill": "#fdfdfb"})
    _text(svg, 8, 20, title, **{"font-size": "16", "font-weight": "bold"})
    if has_rounds:
        _draw_rounds(svg, round_of, left)
    head = ET.SubElement(svg, "g", {"class": "events"})
    for i, (stored, changes) in enumerate(moments):
        x = left + i * CELL_W + CELL_W / 2
        label = _text(
            head, x, top - 30, f"#{stored.seq}", **{"text-anchor": "middle", "class": "event"}
        )
        label.set("data-seq", str(stored.seq))
        if changes.undone:
            label.set("text-decoration", "line-through")
            ET.SubElement(head, "line", _strike(x, top - 34))
        kind = changes.type.replace("character_", "").replace("_", " ")
        _text(head, x, top - 18, kind[:11], **{"text-anchor": "middle", "font-size": "8"})
        whose = whose_turn(stored, people)
        if whose is not None:
            attrs = {"text-anchor": "middle", "font-size": "8", "class": "whose"}
            _text(head, x, top - 6, whose[:11], **attrs).set("data-seq", str(stored.seq))
    for row, (character, name) in enumerate(people.items()):
        y = top + row * CELL_H
        group = ET.SubElement(svg, "g", {"class": "row", "data-character": character})
        _text(group, 8, y + CELL_H / 2 + 4, name)
        for i, (stored, changes) in enumerate(moments):
            _draw_cell(
                group, left + i * CELL_W, y, stored, changes, character, after[i].get(character)
            )
    ET.indent(svg)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(svg, encoding="unicode") + "\n"


def _strike(x: float, y: float) -> dict[str, str]:
    return {"x1": str(x - 14), "x2": str(x + 14), "y1": str(y), "y2": str(y), "stroke": "#1a1a1a"}


def _draw_rounds(svg: ET.Element, round_of: list[str], left: int) -> None:
    import xml.etree.ElementTree as ET  # here, not at the top: see the imports

    start = 0
    for i in range(1, len(round_of) + 1):
        if i < len(round_of) and round_of[i] == round_of[start]:
            continue
        x = left + start * CELL_W
        span = {"x": str(x), "y": str(TITLE_H), "width": str((i - start) * CELL_W)}
        ET.SubElement(svg, "rect", span | {"height": str(ROUND_H - 2), "fill": "#ececec"})
        _text(svg, x + 4, TITLE_H + 13, round_of[start], **{"class": "round"})
        start = i


def _draw_cell(
    group: ET.Element,
    x: float,
    y: float,
    stored: Stored[Event],
    changes: Changes,
    character: str,
    state: str | None,
) -> None:
    import xml.etree.ElementTree as ET  # here, not at the top: see the imports

    rect = {"x": str(x), "y": str(y), "width": str(CELL_W), "height": str(CELL_H), "class": "cell"}
    rect |= {"data-seq": str(stored.seq), "stroke": "#c8c8c8"}
    rect["fill"] = COLOURS[state] if state else "#fdfdfb"
    if state:
        rect["data-state"] = state
    ET.SubElement(group, "rect", rect)
    if changes.undone:  # a diagonal through the cell: the event no longer counts
        ET.SubElement(group, "line", {"x1": str(x), "y1": str(y + CELL_H), "x2": str(x + CELL_W),
                                      "y2": str(y), "stroke": "#6b6b6b"})  # fmt: skip
    text = (SHORT[state] if state else "") + marks(stored, changes, character)
    if text:
        ink = "#ffffff" if state == "dead" else "#1a1a1a"
        _text(
            group,
            x + CELL_W / 2,
            y + CELL_H / 2 + 4,
            text,
            **{"text-anchor": "middle", "fill": ink},
        )


def svg_to_png(svg: str) -> bytes:
    try:
        import cairosvg  # type: ignore[import-untyped]  # only for PNG: an optional extra
    except ImportError as error:
        raise UsageError(
            "a PNG needs CairoSVG: pip install 'woundlog[pictures]' (or write .svg)"
        ) from error
    png: bytes = cairosvg.svg2png(bytestring=svg.encode())
    return png


# --- the command -----------------------------------------------------------------------------


def file_moments(path: Path) -> tuple[list[Moment], str]:
    """A `.jsonl` log's moments, folded in a private in-memory store (no rules on the way in: a
    file is replayed, so what the rules refuse becomes void, as `woundlog replay` does)."""
    events = [event for _, event in read_jsonl(path)]
    if not events:
        raise UsageError(f"{path} holds no events")
    with SQLiteStore(":memory:") as store:
        store.append(path.stem, events)
        return fight_moments(store, path.stem), getattr(events[0], "name", "") or path.stem


def fight_moments(store: Store, fight: str) -> list[Moment]:
    opened = Fight.open(store, fight)
    return list(zip(opened.events(), opened.history(), strict=True))


def picture(svg: str, shape: str) -> bytes:
    """A picture drawn as SVG, in the shape asked: "svg" as it is, "png" rendered by CairoSVG."""
    return svg_to_png(svg) if shape == "png" else svg.encode()
