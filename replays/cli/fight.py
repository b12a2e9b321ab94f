"""The commands of a fight and its events: starting it, recording what happens, reading it back,
and deleting, renaming and exporting it."""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, BinaryIO

import typer

from woundlog.events import Event, UsageError
from woundlog.events.codec import encode_json
from woundlog.events.model import MAGNITUDE
from woundlog.events.stores import Stored

from ..application import NewFight
from . import inputs as given
from .application import (
    application,
    known_ruleset,
    one_event,
    record,
    record_heal,
    record_hit,
)
from .options import (
    AsJson,
    At,
    Db,
    EventId,
    Facts,
    FightId,
    Note,
    Rolls,
    Wide,
    valid_fight_id,
    whole_number,
)
from .output import (
    console,
    fights_table,
    print_appended,
    print_changes,
    print_json,
    print_state,
    say,
    stdout_filter,
)
from .written import to_stdout

# --- setting up ------------------------------------------------------------------------------


def new(
    fight: FightId,
    ruleset: Annotated[str, typer.Option("--ruleset", help="The game's rules (woundlog rules).")],
    seed: Annotated[
        int | None, typer.Option(help="Seed for dice nobody gives. Default: a random one.")
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", metavar="KEY=VALUE", help="A house rule.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="The fight's name.")] = None,
    tables: Annotated[
        Path | None, typer.Option(metavar="FILE.toml", help="Tables replacing the ruleset's.")
    ] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Start a fight."""
    known_ruleset(ruleset, "--ruleset:")
    asked = NewFight(
        fight=fight,
        ruleset=ruleset,
        seed=seed,
        options=given.mapping(option or [], "--option"),
        tables=given.toml_file(tables) if tables else {},
        name=name or "",
    )
    with application(db) as app, one_event():
        started = app.started(asked)
        print_appended(app.create(fight, started), as_json=as_json)
    if not as_json:
        say(f"fight `{fight}` created, seed {started.seed}")


def join(
    fight: FightId,
    character: Annotated[
        str, typer.Argument(metavar="CHARACTER", help="The character's id in this fight.")
    ],
    name: Annotated[str | None, typer.Option(help="Display name (default: the id).")] = None,
    side: Annotated[str | None, typer.Option(help="Warband, party or team.")] = None,
    kind: Annotated[str | None, typer.Option(help="Ruleset-defined kind.")] = None,
    stat: Annotated[
        list[str] | None, typer.Option("--stat", metavar="KEY=VALUE", help="A stat (repeatable).")
    ] = None,
    gear: Annotated[
        list[str] | None, typer.Option("--gear", metavar="SLOT=ITEM", help="Gear (repeatable).")
    ] = None,
    campaign: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="CAMPAIGN",
            help="Join a campaign member with their record now: name, side, kind, gear and "
            "current stats (a dead or retired member is refused with the reason).",
        ),
    ] = None,
    member: Annotated[
        str | None, typer.Option(help="With --from: the member's id (default: CHARACTER).")
    ] = None,
    initiative: Annotated[
        int | None,
        typer.Option(
            min=-MAGNITUDE,
            max=MAGNITUDE,
            help="Turn order: higher goes first, ties by join order (`woundlog order`).",
        ),
    ] = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A character joins the fight (with --from, as their campaign record stands)."""
    if campaign is not None:
        typed = [
            o
            for o, v in (
                ("--name", name),
                ("--side", side),
                ("--kind", kind),
                ("--stat", stat),
                ("--gear", gear),
            )
            if v
        ]
        if typed:
            raise UsageError(
                f"{', '.join(typed)} with --from: the campaign's record gives them; "
                "'woundlog campaign join' sets a member's, or join without --from"
            )
        with application(db, create=False) as app, one_event():
            app.fight(fight)
            joined = app.join_from_campaign(
                fight, character, campaign, member=member, initiative=initiative
            )
            print_appended(joined, as_json=as_json)
        return
    fields = {
        "type": "character_joined",
        "character": character,
        "name": name,
        "side": side,
        "kind": kind,
        "stats": given.mapping(stat or [], "--stat"),
        "gear": given.mapping(gear or [], "--gear", typed=False),
        "initiative": initiative,
    }
    record(db, fight, fields, as_json)


# --- what happens in the fight -------------------------------------------------------------------


def hit(
    fight: FightId,
    target: Annotated[str, typer.Argument(metavar="TARGET", help="The character hit.")],
    damage: Annotated[
        int,
        typer.Argument(
            metavar="DAMAGE", help="Damage (wounds, hit points...).", parser=whole_number
        ),
    ],
    attacker: Annotated[str | None, typer.Option(help="Who struck.")] = None,
    roll: Rolls = None,
    fact: Facts = None,
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A character is hit."""
    record_hit(db, fight, target, damage, attacker, roll, fact, event_id, note, as_json)


def heal(
    fight: FightId,
    target: Annotated[str, typer.Argument(metavar="TARGET", help="The character healed.")],
    amount: Annotated[
        int, typer.Argument(metavar="AMOUNT", help="How much is healed.", parser=whole_number)
    ],
    means: Annotated[str | None, typer.Option(help="Ruleset-defined: bandage, spell...")] = None,
    healer: Annotated[str | None, typer.Option(help="Who healed.")] = None,
    roll: Rolls = None,
    fact: Facts = None,
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A character is healed."""
    record_heal(db, fight, target, amount, means, healer, roll, fact, event_id, note, as_json)


class Tick(enum.StrEnum):
    start = "start"
    end = "end"


def tick(
    fight: FightId,
    when: Annotated[
        Tick | None,
        typer.Argument(
            metavar="start|end", help="A turn starts, or a turn ends.", show_default=False
        ),
    ] = None,
    start: Annotated[
        bool, typer.Option("--start", help="The same as `start`.", hidden=True)
    ] = False,
    end: Annotated[bool, typer.Option("--end", help="The same as `end`.", hidden=True)] = False,
    side: Annotated[str | None, typer.Option(help="Only this side's turn.")] = None,
    character: Annotated[str | None, typer.Option(help="Only this character's turn.")] = None,
    round_: Annotated[int | None, typer.Option("--round", min=0, help="The round.")] = None,
    roll: Rolls = None,
    event_id: EventId = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A turn starts or ends: the rules' start- and end-of-turn steps (recovery, bleeding...)."""
    said = [w for w, given_ in ((Tick.start, start), (Tick.end, end)) if given_]
    if when is not None:
        said.append(when)
    if len(set(said)) != 1:
        raise UsageError("say whether the turn starts or ends: `woundlog tick FIGHT start|end`")
    start = said[0] is Tick.start
    if side is not None and character is not None:
        raise UsageError("a turn is scoped to --side or --character, not both")
    fields = {
        "type": "turn_started" if start else "turn_ended",
        "round": round_,
        "side": side,
        "character": character,
        "rolls": given.rolls(roll or []),
        "id": event_id,
    }
    record(db, fight, fields, as_json)


def choose(
    fight: FightId,
    character: Annotated[str, typer.Argument(metavar="CHARACTER", help="Who decides.")],
    option: Annotated[str, typer.Argument(metavar="OPTION", help="What they choose.")],
    roll: Rolls = None,
    event_id: EventId = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A player makes a decision the rules leave to them."""
    by_character(db, fight, "choice", character, {"option": option}, roll, event_id, as_json)


def check(
    fight: FightId,
    character: Annotated[str, typer.Argument(metavar="CHARACTER", help="Who rolls.")],
    name: Annotated[
        str, typer.Argument(metavar="CHECK", help="The check the rules ask for: death_save.")
    ],
    roll: Rolls = None,
    bonus: Annotated[
        int, typer.Option("--bonus", help="What the table added to the die (Bless: the d4).")
    ] = 0,
    event_id: EventId = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A character makes a roll the rules ask for, at the table (a D&D death save)."""
    fields: dict[str, object] = {"check": name, **({"bonus": bonus} if bonus else {})}
    by_character(db, fight, "check", character, fields, roll, event_id, as_json)


def set_stat(
    fight: FightId,
    character: Annotated[str, typer.Argument(metavar="CHARACTER", help="Whose stat it is.")],
    name: Annotated[
        str,
        typer.Argument(
            metavar="STAT", help="A stat the rules let one set (dnd5e: hp, the hit point maximum)."
        ),
    ],
    value: Annotated[int, typer.Argument(metavar="VALUE", help="Its new value, not a difference.")],
    reason: Annotated[
        str | None, typer.Option(help="Why: Aid, Life Drain, the sheet edited...")
    ] = None,
    event_id: EventId = None,
    note: Note = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A stat the rules do not derive changes: a maximum raised by Aid, lowered by Life Drain."""
    fields = {"type": "stat_changed", "character": character, "stat": name, "value": value}
    record(db, fight, {**fields, "reason": reason, "id": event_id, "note": note}, as_json)


def by_character(
    db: str | None,
    fight: str,
    kind: str,
    character: str,
    what: dict[str, object],
    roll: list[str] | None,
    event_id: str | None,
    as_json: bool,
) -> None:
    """Record an event one character makes (a choice, a check), with its given dice."""
    fields = {"type": kind, "character": character, **what, "rolls": given.rolls(roll or [])}
    record(db, fight, {**fields, "id": event_id}, as_json)


def end(fight: FightId, as_json: AsJson = False, db: Db = None) -> None:
    """The fight ends."""
    record(db, fight, {"type": "fight_ended"}, as_json)


# --- reading ---------------------------------------------------------------------------------


def fights(as_json: AsJson = False, db: Db = None) -> None:
    """The fights in the store: ruleset, name, events, and the last change (its newest event)."""
    with application(db, create=False) as app:
        found = app.fights().fights
    if as_json:
        print_json(found)
    elif not found:
        say("no fights yet: `woundlog new FIGHT --ruleset NAME` starts one")
    else:
        console().print(fights_table(found))


def state(
    fight: FightId, at: At = None, as_json: AsJson = False, wide: Wide = False, db: Db = None
) -> None:
    """Every character's state, now or at event N."""
    with application(db, create=False) as app:
        # the fight's own `state`, which says an N past its end as `--at N`
        print_state(app.fight(fight).state(at), fight, as_json=as_json, wide=wide)


def log(fight: FightId, as_json: AsJson = False, db: Db = None) -> None:
    """Every event as it happened: what it changed and every die used.

    With --json: one changes object per line, then the state, as `replay --trace --json`."""
    with application(db, create=False) as app:
        if as_json:  # the shape of `replay --trace --json`: JSON Lines, the state last
            for changes in app.log(fight):
                print_json(changes)
            print_json(app.state(fight))
            return
        for changes in app.log(fight):
            print_changes(changes, moves=True)


# --- deleting and renaming ------------------------------------------------------------------


def delete(
    fight: FightId,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask: delete it.")] = False,
    db: Db = None,
) -> None:
    """Delete a fight: its whole log, and the service's tokens and cursors for it. Asks first."""
    with application(db, create=False) as app:
        count = app.version(fight)
        if not yes:
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                # a script piped into a deletion must say so: nobody is there to answer
                raise UsageError(
                    f"deleting fight `{fight}` ({count} events) needs a yes: run it at a "
                    "terminal, or add --yes"
                )
            if not typer.confirm(f"Delete fight {fight} ({count} events)?", default=False):
                say(f"fight `{fight}` kept")
                raise typer.Exit(1)
        app.delete(fight)
    say(f"fight `{fight}` deleted ({count} events)")


def rename(
    old: FightId,
    new: Annotated[
        str,
        typer.Argument(metavar="NEW", help="The fight's new id.", callback=valid_fight_id),
    ],
    db: Db = None,
) -> None:
    """Give a fight another id; its log, and the service's tokens and cursors, go with it."""
    with application(db, create=False) as app:
        count = app.rename(old, new)
    say(f"fight `{old}` is now `{new}` ({count} events)")


# --- files -----------------------------------------------------------------------------------


def export(
    fight: FightId,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o", "--output", metavar="FILE.jsonl|-", help="Default, and `-`: standard output."
        ),
    ] = None,
    db: Db = None,
) -> None:
    """Write the fight's log as JSON Lines, the format `import` and `replay` read."""
    with application(db, create=False) as app:
        events = app.fight(fight).events()  # read as written: a long log is never all in memory
        if output is None or to_stdout(output):
            sys.stdout.flush()
            write_events(sys.stdout.buffer, events, shown=stdout_filter("jsonl"))
            return
        with open(output, "wb") as out:
            count = write_events(out, events)
        say(f"exported {count} events of fight `{fight}` to {output}")


def write_events(
    out: BinaryIO, events: Iterable[Stored[Event]], *, shown: Callable[[bytes], bytes] = bytes
) -> int:
    """Each event as a line of JSON Lines, as the store holds it, passed through `shown` (to a
    terminal, control characters as JSON escapes, the same events: `output.stdout_filter`)."""
    count = 0
    for stored in events:
        out.write(shown(encode_json(stored.event) + b"\n"))
        count += 1
    out.flush()
    return count
