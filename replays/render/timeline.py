"""A fight's timeline as a picture (`woundlog timeline`), drawn offline, for a chat or a campaign
log, from the moments the application gives (`Application.history`: each event with what it
did as it happened).

The same timeline the page draws: one row per character, one column per event (grouped by round
where the log has rounds), each cell coloured by the character's state as the fight stood then,
marked where a die was rolled (◆) or a counter changed (±); undone events struck through.

SVG is written directly (ElementTree, so every name is escaped); PNG is that SVG rendered
(svg.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from woundlog.core import Changes, CharacterChange
from woundlog.events import Event, TurnEnded, TurnStarted

from .svg import CHAR_W, COLOURS, FONT

if TYPE_CHECKING:  # ElementTree is imported where a picture is drawn
    import xml.etree.ElementTree as ET

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


class Moment(Protocol):
    """One event of the fight with what it did (the application's `Moment`)."""

    @property
    def seq(self) -> int: ...

    @property
    def event(self) -> Event: ...

    @property
    def changes(self) -> Changes: ...


# --- what the picture shows (the page's states.js, in Python) --------------------------------


def moved(changes: Changes) -> list[CharacterChange]:
    """Every character an event moved: its own changes, then an undo's consequences."""
    return [*changes.characters, *changes.consequences]


def characters(moments: Sequence[Moment]) -> dict[str, str]:
    """Character id -> name, in join order."""
    seen: dict[str, str] = {}
    for moment in moments:
        for change in moved(moment.changes):
            seen.setdefault(change.character, change.name)
    return seen


def states_after(moments: Sequence[Moment]) -> list[dict[str, str]]:
    """Each character's state just after each event, as the fight stood then."""
    now: dict[str, str] = {}
    after = []
    for moment in moments:
        for change in moved(moment.changes):
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
    for moment in moments:
        if isinstance(moment.event, TurnStarted):
            begun = True
            current = moment.event.round if moment.event.round is not None else current
        found.append(round_label(current, begun=begun))
    return found


def round_label(current: int | None, *, begun: bool) -> str:
    if current is not None:
        return f"Round {current}"
    return "Turns" if begun else "Setup"


def whose_turn(event: Event, names: dict[str, str]) -> str | None:
    """Whose turn a side's or a character's tick starts or ends (a name, or the side); None for
    the whole round's and any other event."""
    if not isinstance(event, TurnStarted | TurnEnded):
        return None
    if event.character is not None:
        return names.get(event.character, event.character)
    return event.side


def marks(event: Event, changes: Changes, character: str) -> str:
    """` ◆` where a die was rolled for `character`, ` ±` where its counters changed."""
    subject = getattr(event, "target", None) or getattr(event, "character", None)
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
    for i, moment in enumerate(moments):
        x = left + i * CELL_W + CELL_W / 2
        label = _text(
            head, x, top - 30, f"#{moment.seq}", **{"text-anchor": "middle", "class": "event"}
        )
        label.set("data-seq", str(moment.seq))
        if moment.changes.undone:
            label.set("text-decoration", "line-through")
            ET.SubElement(head, "line", _strike(x, top - 34))
        kind = moment.changes.type.replace("character_", "").replace("_", " ")
        _text(head, x, top - 18, kind[:11], **{"text-anchor": "middle", "font-size": "8"})
        whose = whose_turn(moment.event, people)
        if whose is not None:
            attrs = {"text-anchor": "middle", "font-size": "8", "class": "whose"}
            _text(head, x, top - 6, whose[:11], **attrs).set("data-seq", str(moment.seq))
    for row, (character, name) in enumerate(people.items()):
        y = top + row * CELL_H
        group = ET.SubElement(svg, "g", {"class": "row", "data-character": character})
        _text(group, 8, y + CELL_H / 2 + 4, name)
        for i, moment in enumerate(moments):
            _draw_cell(group, left + i * CELL_W, y, moment, character, after[i].get(character))
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
    group: ET.Element, x: float, y: float, moment: Moment, character: str, state: str | None
) -> None:
    import xml.etree.ElementTree as ET  # here, not at the top: see the imports

    rect = {"x": str(x), "y": str(y), "width": str(CELL_W), "height": str(CELL_H), "class": "cell"}
    rect |= {"data-seq": str(moment.seq), "stroke": "#c8c8c8"}
    rect["fill"] = COLOURS[state] if state else "#fdfdfb"
    if state:
        rect["data-state"] = state
    ET.SubElement(group, "rect", rect)
    if moment.changes.undone:  # a diagonal through the cell: the event no longer counts
        ET.SubElement(group, "line", {"x1": str(x), "y1": str(y + CELL_H), "x2": str(x + CELL_W),
                                      "y2": str(y), "stroke": "#6b6b6b"})  # fmt: skip
    text = (SHORT[state] if state else "") + marks(moment.event, moment.changes, character)
    if text:
        ink = "#ffffff" if state == "dead" else "#1a1a1a"
        _text(
            group,
            x + CELL_W / 2,
            y + CELL_H / 2 + 4,
            text,
            **{"text-anchor": "middle", "fill": ink},
        )
