"""A report as Markdown: what `woundlog report` prints and `-o report.md` writes, to paste
into a campaign journal. Names, never ids, except where the log names someone who is no
character of the fight (a trap, a troll): then as the log wrote it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..report.spool import SpooledChapter
from ..report.values import (
    Blow,
    Chance,
    Chapter,
    CharacterLuck,
    Length,
    Line,
    Moment,
    Report,
    Tally,
)

if TYPE_CHECKING:
    from ..report.campaign import CampaignReport

STATE_WORDS = {
    "upright": "up",
    "knocked_down": "knocked down",
    "stunned": "stunned",
    "downed": "down",
    "stabilised": "stabilised",
    "out_of_action": "out of action",
    "dead": "dead",
}


def names(report: Report) -> dict[str, str]:
    return {one.character: one.name for one in report.characters}


def _blows(blows: list[Blow], named: dict[str, str], who: str) -> str:
    def one(blow: Blow) -> str:
        other = blow.by if who == "by" else blow.character
        shown = "no one" if other is None else named.get(other, other)
        return f"{shown} ({STATE_WORDS.get(blow.state, blow.state)}, #{blow.seq})"

    return "; ".join(one(blow) for blow in blows) or "-"


def length_line(report: Report) -> str:
    return f"{report.ruleset}, {length_words(report.length)}."


def length_words(length: Length) -> str:
    undo = (
        f"{length.undo_events} undo event{'s' * (length.undo_events != 1)} took back "
        f"{length.undone} event{'s' * (length.undone != 1)}, left out of the numbers"
    )
    void = f"; {length.void} set aside by the rules" if length.void else ""
    return (
        f"{length.rounds} round{'s' * (length.rounds != 1)}, {length.events} events ({undo}{void})"
    )


def moment_line(label: str, moment: Moment | None) -> str:
    if moment is None:
        return f"- {label}: none (no die could have changed anyone's lot)"
    odds = "as well" if moment.kind == "lucky" else "as badly"
    return (
        f"- {label}: {moment.name} at #{moment.seq}, a chance of {moment.chance} of going at "
        f"least {odds}: {moment.explanation}"
    )


def percent(chance: Chance) -> str:
    """An interval's end, already rounded to thousandths, as a percentage."""
    tenths = chance.num * 1000 // chance.den
    return f"{tenths // 10}.{tenths % 10}%"


def luck_row(one: CharacterLuck) -> str:
    def shown(which: str) -> str:
        value = getattr(one, which)
        low, high = getattr(one, f"{which}_low"), getattr(one, f"{which}_high")
        if low is None or one.samples is None:
            return str(value)
        # A sampled share as its count: 121/125 of 250 samples would read as an exact chance.
        count = value.fraction() * one.samples
        return f"{count} of {one.samples} ({percent(low)} to {percent(high)})"

    how = "exact" if one.method == "exact" else f"{one.samples} samples, 95% interval"
    ended = STATE_WORDS.get(one.state, one.state)
    return f"| {one.name} | {ended} | {shown('as_bad')} | {shown('as_good')} | {how} |"


TALLY_HEAD = (
    "Hits dealt (damage) | Hits taken (damage) | Heals given (amount) | Heals taken (amount) | "
    "Knocked down | Stunned | Downed | Stabilised | Rounds down"
)


def withheld_line(report: Report) -> str:
    """What a viewer's copy leaves out (application/redaction.py), said under its tables."""
    named = names(report)
    who = ", ".join(named.get(c, c) for c in report.withheld)
    return f"Damage and healing taken by {who} (and their sides) are the GM's to see: 0 here."


def tally_cells(t: Tally) -> str:
    return (
        f"{t.hits_dealt} ({t.damage_dealt}) | {t.hits_taken} ({t.damage_taken}) | "
        f"{t.heals_given} ({t.healing_given}) | {t.heals_taken} ({t.healing_taken}) | "
        f"{t.knocked_down} | {t.stunned} | {t.downed} | {t.stabilised} | {t.rounds_down}"
    )


def report_markdown(report: Report) -> str:
    """The report whole, its chronicle the report's own."""
    return "".join(markdown_pieces(report, chapters_of(report)))


def chapters_of(report: Report) -> Iterator[tuple[int, Iterable[Line]]]:
    """The chapters a report holds, as a renderer reads a spooled chronicle's."""
    return ((chapter.round, chapter.lines) for chapter in report.chronicle)


def trimmed(pieces: Iterable[str]) -> Iterator[str]:
    """`pieces` but the whitespace at the end of the last, held back until more comes: what
    `str.rstrip` of the whole would leave, given as it comes."""
    held = ""
    for text in pieces:
        kept = text.rstrip()
        if kept:
            yield held + kept
            held = text[len(kept) :]
        else:
            held += text


def markdown_pieces(
    report: Report, chapters: Iterable[tuple[int, Iterable[Line]]]
) -> Iterator[str]:
    """The report as Markdown, piece by piece: its numbers and luck, then the chronicle's
    `chapters` (each a round and its lines) as they are read, so a chronicle spooled aside
    (`report.ChronicleSpool`) is written out without being held."""
    named = names(report)
    out = [f"# {report.name or report.fight}", "", length_line(report), "", "## Characters", ""]
    out += [
        "| Character | Side | Ends | " + TALLY_HEAD + " | Put out by | Put out |",
        "|" + "---|" * 14,
    ]
    for one in report.characters:
        out.append(
            f"| {one.name} | {one.side} | {STATE_WORDS.get(one.state, one.state)} | "
            f"{tally_cells(one.tally)} | "
            f"{_blows(one.put_out_by, named, 'by')} | {_blows(one.put_out, named, 'put')} |"
        )
    out += ["", withheld_line(report)] if report.withheld else []
    out += ["", "## Sides", "", "| Side | Standing | Hits dealt (damage) | Hits taken (damage) "
            "| Heals (amount) | Downed | Rounds down |", "|" + "---|" * 7]  # fmt: skip
    for side in report.sides:
        t = side.tally
        out.append(
            f"| {side.side} | {side.standing} of {len(side.characters)} | {t.hits_dealt} "
            f"({t.damage_dealt}) | {t.hits_taken} ({t.damage_taken}) | {t.heals_taken} "
            f"({t.healing_taken}) | {t.downed} | {t.rounds_down} |"
        )
    luck = report.luck
    out += ["", "## Luck", ""]
    out.append(moment_line("Luckiest moment", luck.luckiest))
    out.append(moment_line("Unluckiest moment", luck.unluckiest))
    if luck.why_left_out:
        out += ["", f"(Not every moment was weighed: {luck.why_left_out}.)"]
    out += ["", f"{luck.dice_read} dice readings in all.", ""]
    if luck.characters:
        out += [
            "Every event as played, the dice free: the chance of ending at least as badly, "
            "or at least as well, as each character did.",
            "",
            "| Character | Ends | At least as bad | At least as good | How |",
            "|---|---|---|---|---|",
            *(luck_row(one) for one in luck.characters),
        ]
    if luck.why_sampled:
        out += ["", f"({luck.why_sampled}.)"]
    yield "\n".join(out) + "\n\n"
    # the chronicle as `chronicle_markdown` writes it, less its trailing whitespace
    yield from trimmed(_chronicle_pieces(report.name, chapters))
    yield "\n"


def _chronicle_pieces(title: str, chapters: Iterable[tuple[int, Iterable[Line]]]) -> Iterator[str]:
    yield f"## {title}" if title else "## The fight"
    for round_, lines in chapters:
        yield "\n\n" + (f"### Round {round_}" if round_ else "### Before the first round")
        yield "\n\n"
        if isinstance(lines, SpooledChapter):  # its text as written: no work a line
            yield from lines.text()
            continue
        for index, line in enumerate(lines):
            yield line.text if index == 0 else " " + line.text


def campaign_markdown(report: CampaignReport) -> str:
    """`woundlog campaign report`: each member's numbers over the campaign's fights, then the
    fights; luck and chronicle are each fight's own (`woundlog report FIGHT`)."""
    fights = len(report.fights)
    out = [
        f"# {report.name or report.campaign}",
        "",
        f"{report.ruleset}, {fights} fight{'s' * (fights != 1)}: {length_words(report.length)}.",
        "",
        "## Members",
        "",
        "| Member | Side | Fights | " + TALLY_HEAD + " | Put out | Put others out |",
        "|" + "---|" * 14,
    ]
    for one in report.members:
        out.append(
            f"| {one.name} | {one.side} | {len(one.fights)} | {tally_cells(one.tally)} | "
            f"{len(one.put_out_by)} | {len(one.put_out)} |"
        )
    out.append(f"| All | | {fights} | {tally_cells(report.total)} | "
               f"{sum(len(m.put_out_by) for m in report.members)} | "
               f"{sum(len(m.put_out) for m in report.members)} |")  # fmt: skip
    out += ["", "## Fights", ""]
    for fight in report.fights:
        out.append(f"- {fight.name or fight.fight} (`{fight.fight}`): {length_words(fight.length)}")
    out += ["", "Luck and the chronicle are each fight's own: `woundlog report FIGHT`."]
    return "\n".join(out) + "\n"


def chronicle_markdown(title: str, chapters: list[Chapter]) -> str:
    """The chronicle as Markdown, ready to paste into a campaign journal."""
    parts = [f"## {title}" if title else "## The fight"]
    for chapter in chapters:
        parts.append(
            f"### Round {chapter.round}" if chapter.round else "### Before the first round"
        )
        parts.append(" ".join(line.text for line in chapter.lines))
    return "\n\n".join(parts) + "\n"
