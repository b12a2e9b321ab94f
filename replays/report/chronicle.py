"""The fight told round by round, in the sentences the rules already make, as it happened:
an event later taken back is told where it was played, and the undo where the GM made it
("the GM took back ...").

Decisions where the issue is silent:
- The round is the log's `round` of a tick when it gives one; else a tick of the whole round
  (no side, no character) that starts a turn begins the next round. Events before the first
  tick are chapter 0, the set-up.
- Ticks that changed nobody and rolled nothing are left out ("start of the turn: no injury
  acts" tells a reader nothing), and so is `fight_started`: its name is the title.
- An undo is told by what it took back, as that event read when it was played, never by its
  id; an amend adds what its replacement changed ("Grim: out_of_action -> knocked_down").
- An event the rules voided is told as set aside, with the rules' reason.
- A hit or a heal says who dealt it first ("Grishnak hits Elwen the Ranger for 9: ..."), as
  the log names them: a character by name, anyone else (a trap, a troll) as written.

Each line is handed on as it is told (`Written.chapter` when a round's first line comes,
then `Written.line`), so a report can write the chronicle as the fight is read and hold none
of it (`Spool`); what an undo later tells again is kept only of the events an undo names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from woundlog.core import Changes
from woundlog.events import (
    Amend,
    Event,
    FightStarted,
    Heal,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
)
from woundlog.events.stores import Stored

from ..undo import Undo, names_of
from .values import Chapter, Line


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def words(state: str | None) -> str:
    return "not in the fight" if state is None else state.replace("_", " ")


class Written(Protocol):
    """Where the chronicle goes as it is told: a chapter begins (its round) when its first
    line is told, then each of its lines."""

    def chapter(self, round: int) -> None: ...

    def line(self, line: Line) -> None: ...


class Chapters:
    """The chronicle kept whole, chapter by chapter (`Report.chronicle`)."""

    def __init__(self) -> None:
        self.chapters: list[Chapter] = []

    def chapter(self, round: int) -> None:
        self.chapters.append(Chapter(round=round, lines=[]))

    def line(self, line: Line) -> None:
        self.chapters[-1].lines.append(line)


Named = Callable[[int, Event], bool]
"""Whether a later undo event names the event at this seq (by `#N` or by its id)."""


class Chronicle:
    """Tells a fight event by event (`add`) into `written`. `named`, when given, says which
    events an undo event names: only their sentences are kept to be told again (else every
    event's, as a chronicle read without knowing its undo events must)."""

    def __init__(self, written: Written | None = None, named: Named | None = None) -> None:
        self.written: Written = Chapters() if written is None else written
        self.named = named
        self.round = 0
        self.opened = False  # whether the round's chapter has begun (a line was told in it)
        self.told: dict[str, str] = {}  # a named event's names -> what it did, as played
        self.seen: dict[str, Stored[Event]] = {}  # a named event's names -> the event
        self.names: dict[str, str] = {}  # character id -> display name, as they join
        self.undo = Undo()  # the undo events so far, resolved as each was made

    def add(self, stored: Stored[Event], changes: Changes) -> None:
        event = stored.event
        kept = self.named is None or self.named(stored.seq, event)
        if kept:
            for name in names_of(stored.seq, event):
                self.seen[name] = stored
        # an event's type asked, not `isinstance` (core.reducer._effect says why)
        if type(event) is Retract or type(event) is Amend:
            self.undo.add(Stored(stored.seq, event))
        if type(event) is TurnStarted or type(event) is TurnEnded:
            self._tick(event)
            if not changes.characters and not changes.dice and changes.void is None:
                return
        for change in changes.characters:
            self.names.setdefault(change.character, change.name)
        told = self._tell(event, changes)
        if kept:
            for name in names_of(stored.seq, event):
                self.told[name] = told[:-1]  # its own sentence, told again
        if told:
            if not self.opened:
                self.written.chapter(self.round)
                self.opened = True
            self.written.line(Line(seq=stored.seq, text=told))

    def _in_effect(self, name: str) -> bool:
        """Whether the event `name` names is played now, as the undo events so far leave it."""
        stored = self.seen.get(name)
        return stored is not None and self.undo.as_played(stored.seq, stored.event)[0] is not None

    def _tick(self, event: TurnStarted | TurnEnded) -> None:
        if event.round is not None:
            round_now = event.round
        elif type(event) is TurnStarted and event.side is None and event.character is None:
            round_now = self.round + 1
        else:
            round_now = max(self.round, 1)
        if round_now != self.round:
            self.round = round_now
            self.opened = False

    def _tell(self, event: Event, changes: Changes) -> str:
        if type(event) is FightStarted:
            return ""
        if changes.void is not None:
            return sentence(
                f"the rules set a {changes.type.replace('_', ' ')} aside: {changes.void}"
            )
        if type(event) is Retract or type(event) is Amend:
            # a retract of a retract gives back what that one took (`Undo.ends_on`), and a
            # retract of that takes it back again: told by whether it is in effect now
            concerns = self.undo.ends_on(event.event)
            gave = type(event) is Retract and self._in_effect(concerns)
            verb = "gave back" if gave else "took back"
            took = self.told.get(concerns)
            what = sentence(f"the GM {verb}: {took}" if took else f"the GM {verb} an event")
            if event.reason:
                what = what[:-1] + f" ({event.reason})."
            if type(event) is Amend and changes.consequences:
                now = ", ".join(
                    f"{c.name} {words(c.after)} rather than {words(c.before)}"
                    for c in changes.consequences
                )
                what += " " + sentence(f"played as amended, it left {now}")
            return what
        return sentence(self._who(event) + changes.explanation)

    def _who(self, event: Event) -> str:
        names = self.names
        if type(event) is Hit:
            attacker, target = event.attacker, event.target
            if attacker is None:
                return ""
            hits = f"{names.get(attacker, attacker)} hits {names.get(target, target)}"
            return f"{hits} for {event.damage}: "
        if type(event) is Heal and event.healer is not None:
            healer, target = event.healer, event.target
            means = f" ({event.means})" if event.means else ""
            return f"{names.get(healer, healer)} heals {names.get(target, target)}{means}: "
        return ""


def chronicle(history: Iterable[tuple[Stored[Event], Changes]]) -> list[Chapter]:
    """The chapters of a fight from its events with what each did as it happened."""
    kept = Chapters()
    told = Chronicle(kept)
    for stored, changes in history:
        told.add(stored, changes)
    return kept.chapters
