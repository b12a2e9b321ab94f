"""The `woundlog` command: a game master's tools on a fight log in a store, or on a `.jsonl` file.

Every command that records something builds one event and appends it through `Fight`, so the CLI
refuses exactly what the library refuses. Errors print as `error: <message>` on stderr, without
a traceback, and exit with the error's code: 2 usage, 3 refused event, 4 conflict (DESIGN.md
section 8).
"""

from __future__ import annotations

import enum
import functools
import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn, ParamSpec

import msgspec
import typer

from woundlog.core import RULESETS
from woundlog.events import (
    WIRE_VERSION,
    BatchRefused,
    ConflictError,
    Event,
    FightStarted,
    Heal,
    Hit,
    UsageError,
    WoundlogError,
    encode_json,
    iter_jsonl,
)
from woundlog.events.fight_ids import BadFightId, check_fight_id
from woundlog.events.importers import IMPORTERS, convert_records, foundry
from woundlog.events.importers.base import DEFAULT_RULESET
from woundlog.events.stores import Store, open_store
from woundlog.events.stores.locate import STORE_ERRORS, unusable
from woundlog.events.stores.postgres import database_gone

from . import cli_input as given
from .branch import branch, compare
from .cli_output import (
    console,
    fights_table,
    print_appended,
    print_changes,
    print_error,
    print_json,
    print_odds,
    print_raw,
    print_state,
    report_voids,
    rules_list,
    rules_summary,
    say,
    who_may_act_table,
)
from .fight import Appended, Fight
from .files import Void, replay_file, replay_file_state
from .pictures import timeline as timeline_picture
from .reference import event_schema
from .whatif import hit_shorthand, rounds, then_events
from .whatif import odds as compute_odds

app = typer.Typer(
    name="woundlog",
    help="Track what happens to tabletop characters once they get hurt.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def version_of_woundlog() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("woundlog")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


@app.callback(invoke_without_command=True)
def options(
    ctx: typer.Context,
    show_version: Annotated[
        bool | None,
        typer.Option("--version", help="Print woundlog's version and exit.", is_eager=True),
    ] = None,
) -> None:
    """Track what happens to tabletop characters once they get hurt."""
    if show_version:
        print_raw(f"woundlog {version_of_woundlog()}")
        raise typer.Exit()
    if ctx.invoked_subcommand is None:
        print_raw(ctx.get_help())
        raise typer.Exit(2)


P = ParamSpec("P")

# --- options shared by several commands ----------------------------------------------------------

Db = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        envvar="WOUNDLOG_DB",
        show_envvar=True,
        help="Store: a .db path, sqlite:PATH, jsonl:DIR or postgresql://... Default: the "
        "user data directory.",
    ),
]


def valid_fight_id(fight: str) -> str:
    """A FIGHT argument, checked by the one rule of fight ids (events/fight_ids.py)."""
    try:
        return check_fight_id(fight)
    except BadFightId as error:
        raise typer.BadParameter(error.message) from None


FightId = Annotated[
    str,
    typer.Argument(metavar="FIGHT", help="The fight's id in the store.", callback=valid_fight_id),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
At = Annotated[
    int | None, typer.Option("--at", min=1, metavar="N", help="As the fight stood at event N.")
]
Rolls = Annotated[
    list[str] | None,
    typer.Option(
        "--roll",
        metavar="PURPOSE[@CHARACTER]=V[,V...]",
        help="Dice already rolled, in order (repeatable); `downed@brakk=1` is one character's "
        "die in a turn that rolls for several.",
    ),
]
Facts = Annotated[
    list[str] | None,
    typer.Option("--fact", metavar="KEY=VALUE", help="An optional fact of the ruleset."),
]
EventId = Annotated[
    str | None, typer.Option("--id", help="The event's id (makes a resend harmless).")
]
Note = Annotated[str | None, typer.Option("--note", help="Free text kept with the event.")]
Reason = Annotated[str, typer.Option("--reason", help="Why, kept in the log.")]


def command(name: str | None = None) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Register a command whose WoundlogErrors become `error: ...` and the error's exit code.

    Done per command rather than in `main()`, so that a test driving `app` directly sees exactly
    what a person at the terminal sees.
    """

    def register(run: Callable[P, None]) -> Callable[P, None]:
        @functools.wraps(run)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> None:
            try:
                run(*args, **kwargs)
            except WoundlogError as error:
                fail(error)
            except STORE_ERRORS as error:  # the --db file went bad under a running command
                fail(unusable(kwargs.get("db"), error))  # type: ignore[arg-type]
            except OSError as error:  # a file named on the command line: a usage error
                where = f": {error.filename}" if error.filename else ""
                fail(UsageError(f"{error.strerror or error}{where}"))
            except Exception as error:  # the PostgreSQL server went away under the command
                gone = database_gone(kwargs.get("db"), error)  # type: ignore[arg-type]
                if gone is None:
                    raise
                fail(gone)

        app.command(name)(guarded)
        return run

    return register


def fail(error: WoundlogError) -> NoReturn:
    print_error(error)
    raise typer.Exit(error.exit_code)


@contextmanager
def opened(db: str | None) -> Iterator[Store]:
    store = open_store(db)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def existing_fight(db: str | None, fight: str) -> Iterator[Fight]:
    with opened(db) as store:
        yield Fight.open(store, fight)


@contextmanager
def one_event() -> Iterator[None]:
    """Around appending a single event: its place in the batch ("batch item 0") is only noise."""
    try:
        yield
    except WoundlogError as error:
        error.index = None
        raise


def record(db: str | None, fight: str, fields: dict[str, Any], as_json: bool) -> None:
    """Append the one event `fields` describe, and print what it did."""
    with existing_fight(db, fight) as opened_fight, one_event():
        print_appended(opened_fight.append([given.event(fields)]), as_json=as_json)


# --- setting up ------------------------------------------------------------------------------


@command()
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
    # A seed chosen here is written into fight_started, so every replay still draws the same dice;
    # without it every fight would draw the same dice as every other.
    chosen = secrets.randbelow(2**31) if seed is None else seed
    started = given.event(
        {
            "type": "fight_started",
            "ruleset": ruleset,
            "seed": chosen,
            "options": given.mapping(option or [], "--option"),
            "tables": given.toml_file(tables) if tables else None,
            "name": name,
            "version": WIRE_VERSION,
        }
    )
    assert isinstance(started, FightStarted)
    with opened(db) as store, one_event():
        created = Fight.create(store, fight, started)
        print_appended(Appended(created.version, list(created.history())), as_json=as_json)
    if not as_json:
        say(f"fight `{fight}` created, seed {chosen}")


@command()
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
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A character joins the fight."""
    fields = {
        "type": "character_joined",
        "character": character,
        "name": name,
        "side": side,
        "kind": kind,
        "stats": given.mapping(stat or [], "--stat"),
        "gear": given.mapping(gear or [], "--gear", typed=False),
    }
    record(db, fight, fields, as_json)


# --- what happens in the fight -------------------------------------------------------------------


@command()
def hit(
    fight: FightId,
    target: Annotated[str, typer.Argument(metavar="TARGET", help="The character hit.")],
    damage: Annotated[
        int, typer.Argument(metavar="DAMAGE", help="Damage (wounds, hit points...).")
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
    fields = {
        "type": "hit",
        "target": target,
        "damage": damage,
        "attacker": attacker,
        "rolls": given.rolls(roll or []),
        "id": event_id,
        "note": note,
    }
    record(db, fight, given.with_facts(Hit, fields, fact or []), as_json)


@command()
def heal(
    fight: FightId,
    target: Annotated[str, typer.Argument(metavar="TARGET", help="The character healed.")],
    amount: Annotated[int, typer.Argument(metavar="AMOUNT", help="How much is healed.")],
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
    fields = {
        "type": "heal",
        "target": target,
        "amount": amount,
        "means": means,
        "healer": healer,
        "rolls": given.rolls(roll or []),
        "id": event_id,
        "note": note,
    }
    record(db, fight, given.with_facts(Heal, fields, fact or []), as_json)


class Tick(enum.StrEnum):
    start = "start"
    end = "end"


@command()
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


@command()
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


@command()
def check(
    fight: FightId,
    character: Annotated[str, typer.Argument(metavar="CHARACTER", help="Who rolls.")],
    name: Annotated[
        str, typer.Argument(metavar="CHECK", help="The check the rules ask for: death_save.")
    ],
    roll: Rolls = None,
    event_id: EventId = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A character makes a roll the rules ask for, at the table (a D&D death save)."""
    by_character(db, fight, "check", character, {"check": name}, roll, event_id, as_json)


def by_character(
    db: str | None,
    fight: str,
    kind: str,
    character: str,
    what: dict[str, str],
    roll: list[str] | None,
    event_id: str | None,
    as_json: bool,
) -> None:
    """Record an event one character makes (a choice, a check), with its given dice."""
    fields = {"type": kind, "character": character, **what, "rolls": given.rolls(roll or [])}
    record(db, fight, {**fields, "id": event_id}, as_json)


@command()
def end(fight: FightId, as_json: AsJson = False, db: Db = None) -> None:
    """The fight ends."""
    record(db, fight, {"type": "fight_ended"}, as_json)


# --- correcting mistakes -------------------------------------------------------------------------


@command()
def undo(
    fight: FightId,
    event: Annotated[
        str | None,
        typer.Argument(
            metavar="EVENT",
            help="The event's id, or its number N (also @N, or '#N' quoted). Default: the "
            "newest still live.",
        ),
    ] = None,
    reason: Reason = "",
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Retract an event (history is kept) and print what that changed."""
    name = None if event is None else given.event_name(event)
    with existing_fight(db, fight) as opened_fight, one_event():
        print_appended(opened_fight.undo(name, reason=reason), as_json=as_json)


@command()
def amend(
    fight: FightId,
    event: Annotated[
        str,
        typer.Argument(
            metavar="EVENT", help="The event's id, or its number N (also @N, or '#N' quoted)."
        ),
    ],
    replacement: Annotated[
        str,
        typer.Option(
            "--replacement", "--with", metavar="EVENT_JSON", help="The whole replacement event."
        ),
    ],
    reason: Reason = "",
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Replay an event as another one, in its place, and print what that changed."""
    fields = {
        "type": "amend",
        "event": given.event_name(event),
        "replacement": given.json_object(replacement, "--replacement"),
        "reason": reason,
    }
    record(db, fight, fields, as_json=as_json)


# --- reading ---------------------------------------------------------------------------------


class FightSummary(msgspec.Struct, frozen=True):
    """A fight as `woundlog fights` lists it."""

    fight: str
    ruleset: str
    name: str
    events: int
    last_change: str | None  # the newest event's `at`, when its recorder gave one


@command()
def fights(as_json: AsJson = False, db: Db = None) -> None:
    """The fights in the store: ruleset, name, events, and when the last one was recorded."""
    with opened(db) as store:
        found = [summary_of(store, fight) for fight in store.fights()]
    if as_json:
        print_json(found)
    elif not found:
        say("no fights yet: `woundlog new FIGHT --ruleset NAME` starts one")
    else:
        console().print(fights_table(found))


def summary_of(store: Any, fight: str) -> FightSummary:
    version = store.version(fight)
    first = next(iter(store.read(fight, 1, 1))).event
    last = next(iter(store.read(fight, version, version))).event
    return FightSummary(
        fight=fight,
        ruleset=getattr(first, "ruleset", "?"),
        name=getattr(first, "name", ""),
        events=version,
        last_change=None if last.at is None else last.at.isoformat(),
    )


@command()
def state(fight: FightId, at: At = None, as_json: AsJson = False, db: Db = None) -> None:
    """Every character's state, now or at event N."""
    with existing_fight(db, fight) as opened_fight:
        print_state(opened_fight.state(at), fight, as_json=as_json)


@command()
def log(fight: FightId, as_json: AsJson = False, db: Db = None) -> None:
    """Every event as it happened: what it changed and every die used.

    With --json: one changes object per line, then the state, as `replay --trace --json`."""
    with existing_fight(db, fight) as opened_fight:
        if as_json:  # the shape of `replay --trace --json`: JSON Lines, the state last
            for changes in opened_fight.history():
                print_json(changes)
            print_json(opened_fight.state())
            return
        for changes in opened_fight.history():
            print_changes(changes, moves=True)


# --- files -----------------------------------------------------------------------------------


@command()
def export(
    fight: FightId,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", metavar="FILE.jsonl", help="Default: stdout.")
    ] = None,
    db: Db = None,
) -> None:
    """Write the fight's log as JSON Lines, the format `import` and `replay` read."""
    with existing_fight(db, fight) as opened_fight:
        if output is None:
            sys.stdout.flush()
            write_events(sys.stdout.buffer, opened_fight)
            return
        with open(output, "wb") as out:
            count = write_events(out, opened_fight)
        say(f"exported {count} events of fight `{fight}` to {output}")


def write_events(out: Any, fight: Fight) -> int:
    count = 0
    for stored in fight.events():
        out.write(encode_json(stored.event) + b"\n")
        count += 1
    out.flush()
    return count


@command("import")
def import_(
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE", help="A fight log (.jsonl), or with --from another program's records."
        ),
    ],
    as_: Annotated[
        str | None, typer.Option("--as", metavar="FIGHT", help="Default: the file's stem.")
    ] = None,
    from_: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="FORMAT",
            help=f"FILE holds records of another program ({', '.join(IMPORTERS)}): a JSON "
            "array or JSON Lines.",
        ),
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            help="With --from: the rules of the fight, if this creates it. "
            f"Default: {DEFAULT_RULESET}.",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help="With --from: the seed of a fight this creates. Default: a random one."),
    ] = None,
    db: Db = None,
) -> None:
    """Store a fight log, checking every event; all of it is stored or none.

    With --from, convert another program's records into events and append them to the fight in
    one batch (creating it with --ruleset if it is new); importing the same records again adds
    nothing.
    """
    fight = check_fight_id(as_ or file.stem)
    if from_ is not None:
        import_records(file, fight, from_, ruleset, seed, db)
        return
    if ruleset is not None or seed is not None:
        raise UsageError("--ruleset and --seed go with --from")
    items, lines = given.jsonl_file(file)
    if not items:
        raise UsageError(f"{file} holds no events")
    events = [item for item in items if not isinstance(item, WoundlogError)]
    with opened(db) as store:
        before = store.version(fight)
        try:
            if len(events) < len(items):  # name every refused line, the rule errors too
                Fight(store, fight).refuse(items)
            appended = Fight(store, fight).append(events, expected_version=0, report=False)
        except ConflictError as error:
            if error.event is None and before:
                raise ConflictError(
                    f"fight `{fight}` already has {before} events; import under another id "
                    "with --as",
                    current_version=before,
                ) from None
            raise on_lines(error, lines) from None
        except WoundlogError as error:
            raise on_lines(error, lines) from None
    skipped = f" ({len(appended.skipped)} already there)" if appended.skipped else ""
    say(f"imported {appended.version - before} events into fight `{fight}`{skipped}")


def import_records(
    file: Path, fight: str, fmt: str, ruleset: str | None, seed: int | None, db: str | None
) -> None:
    """Convert another program's records and append them atomically; a new fight's
    `fight_started` goes in the same batch, so a refused record leaves no empty fight behind."""
    records, lines = given.records_file(file)
    with opened(db) as store:
        version = store.version(fight)
        started: list[Event] = []
        joined: list[str] = []
        if version:
            current = Fight(store, fight).state()
            if ruleset is not None and ruleset != current.ruleset:
                raise UsageError(
                    f"fight `{fight}` is played with `{current.ruleset}`, not `{ruleset}`"
                )
            ruleset, joined = current.ruleset, list(current.characters)
        else:  # a seed chosen here is kept in fight_started, as `new` does
            ruleset = ruleset or DEFAULT_RULESET
            chosen = secrets.randbelow(2**31) if seed is None else seed
            options = foundry.fight_options(ruleset) if fmt == "foundry" else {}
            started.append(
                FightStarted(ruleset=ruleset, seed=chosen, options=options, version=WIRE_VERSION)
            )
        try:
            converted = convert_records(fmt, records, ruleset=ruleset, joined=joined)
        except WoundlogError as error:
            raise on_records(error, lines) from None
        appended = Fight(store, fight).append([*started, *converted.events], version)
    skipped = f" ({len(appended.skipped)} already there)" if appended.skipped else ""
    say(f"imported {len(appended.changes)} events into fight `{fight}`{skipped}")
    for warning in converted.warnings:  # what the importer left out, and why
        say(f"warning: {warning}", out=console(stderr=True))


def on_records(error: WoundlogError, lines: list[int | None]) -> WoundlogError:
    """Name the file's line of a record an importer refused, when the file is JSON Lines."""
    if error.index is not None and error.line is None and error.index < len(lines):
        error.line = lines[error.index]
    return error


def on_lines(error: WoundlogError, lines: list[int]) -> WoundlogError:
    """Name the file's line for an error that names its place in the appended batch."""
    each = error.errors if isinstance(error, BatchRefused) else [error]
    for refused in each:
        if refused.index is not None and refused.line is None:
            refused.line = lines[refused.index]
    # a batch's message is made from its errors' when it is built: build it again
    return BatchRefused(error.errors) if isinstance(error, BatchRefused) else error


@command()
def replay(
    file: Annotated[Path, typer.Argument(metavar="FILE.jsonl", help="A fight log.")],
    at: At = None,
    as_json: AsJson = False,
    trace: Annotated[
        bool,
        typer.Option(
            "--trace",
            help="Print every event's changes as the fight stands (undone events marked); "
            "with --json, one JSON object per line, the state last.",
        ),
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at an event the rules refuse, not void it.")
    ] = False,
) -> None:
    """Fold a `.jsonl` fight log into state; no store involved.

    Each event the rules refuse is void (it does nothing) and named on standard error, with
    its line and why, so a typo never silently changes the fight; `--strict` stops there."""
    voids: list[Void] = []
    if trace:
        last = None
        for now, changes in replay_file(file, at=at, strict=strict, on_void=voids.append):
            last = now  # only the final state is kept: memory stays flat however long the file
            if as_json:
                print_json(changes)
            else:
                print_changes(changes)
    else:  # nobody reads the changes: fold to the state alone, which is faster
        last = replay_file_state(file, at=at, strict=strict, on_void=voids.append)
    report_voids(voids)
    if last is None:
        raise UsageError(f"{file} holds no events")
    if at is not None and last.seq < at:
        raise UsageError(f"--at {at}: {file} has events 1 to {last.seq}")
    print_state(last, file.stem, as_json=as_json)


# --- what if --------------------------------------------------------------------------------


@command()
def odds(
    source: Annotated[
        str,
        typer.Argument(metavar="FIGHT|FILE.jsonl", help="A fight in the store, or a fight log."),
    ],
    then: Annotated[
        list[str] | None,
        typer.Option("--then", metavar="EVENT_JSON", help="An event of the what-if (repeatable)."),
    ] = None,
    then_file: Annotated[
        Path | None,
        typer.Option("--then-file", metavar="WHATIF.jsonl", help="The what-if's events, a file."),
    ] = None,
    hit_: Annotated[
        list[str] | None,
        typer.Option(
            "--hit", metavar="TARGET:DAMAGE[:ATTACKER]", help="A hit of the what-if (repeatable)."
        ),
    ] = None,
    ticks: Annotated[
        int, typer.Option("--ticks", metavar="N", help="Then N rounds of turns, every side's.")
    ] = 0,
    character: Annotated[
        list[str] | None,
        typer.Option("--character", metavar="C", help="Only this character (repeatable)."),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples", metavar="N", help="Estimate from N sampled replays instead of exactly."
        ),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", metavar="FILE.svg|png", help="Also draw the odds as a bar chart."),
    ] = None,
    at: At = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """The exact chance of every outcome of a what-if: these events, from now (or event N).

    The what-if is `--then` events, a `--then-file`, `--hit` shorthands and `--ticks` rounds,
    in that order. Dice the what-if gives are fixed; every other die is enumerated."""
    state = source_state(source, at, db)
    whatif = [*then_events(then or [])]
    if then_file is not None:
        with open(then_file, "rb") as lines:
            whatif += [event for _, event in iter_jsonl(lines)]
    whatif += [hit_shorthand(text) for text in hit_ or []]
    whatif += rounds(state, ticks)
    if not whatif:
        raise UsageError("say what happens: --then, --then-file, --hit or --ticks")
    answer = compute_odds(state, whatif, characters=character or [], samples=samples)
    if plot is not None:
        from .odds_plot import write_odds_plot  # the picture code loads only when asked

        write_odds_plot(answer, Path(source).stem, plot)
    if as_json:
        print_json(answer)
    else:
        print_odds(answer)


@command("branch")
def branch_fight(
    fight: FightId,
    new: Annotated[str, typer.Option("--as", metavar="NEW", help="The new fight's id.")],
    then: Annotated[
        list[str] | None,
        typer.Option("--then", metavar="EVENT_JSON", help="An event after the copy (repeatable)."),
    ] = None,
    hit_: Annotated[
        list[str] | None,
        typer.Option("--hit", metavar="TARGET:DAMAGE[:ATTACKER]", help="A hit after the copy."),
    ] = None,
    at: At = None,
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """A new fight that copies FIGHT's log up to event N, then what might have happened."""
    whatif = [*then_events(then or []), *(hit_shorthand(text) for text in hit_ or [])]
    with opened(db) as store:
        made = branch(store, fight, new, at=at, then=whatif)
    if as_json:
        print_appended(made, as_json=True)
        return
    say(f"fight `{new}` branches from `{fight}` at #{made.version - len(whatif)}")
    for changes in made.changes[-len(whatif) :] if whatif else []:
        print_changes(changes)


@command("diff")
def diff_fights(
    first: Annotated[str, typer.Argument(metavar="FIGHT", help="A fight in the store.")],
    second: Annotated[str, typer.Argument(metavar="OTHER", help="Another, say its branch.")],
    as_json: AsJson = False,
    db: Db = None,
) -> None:
    """Per character, what differs between two fights as they stand (a fight and its branch)."""
    with opened(db) as store:
        differences = compare(Fight.open(store, first).state(), Fight.open(store, second).state())
    if as_json:
        print_json(differences)
    elif not differences:
        say(f"`{first}` and `{second}` stand the same")
    else:
        for change in differences:
            say(change.summary())


def source_state(source: str, at: int | None, db: str | None) -> Any:
    """The state of a fight log file (a path ending `.jsonl`), else of a fight in the store."""
    if source.endswith(".jsonl"):
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"no file {source}")
        state = replay_file_state(path, at=at)
        if state is None:
            raise UsageError(f"{source} holds no events")
        return state
    with existing_fight(db, source) as opened_fight:
        return opened_fight.state(at)


command("timeline")(timeline_picture)


# --- reference -------------------------------------------------------------------------------


@command()
def rules(
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="A ruleset. Default: list them.")
    ] = None,
    diagram: Annotated[
        bool, typer.Option("--diagram", help="Print the state graph as a mermaid diagram.")
    ] = False,
) -> None:
    """The rulesets: their decisions, states, dice, stats and facts."""
    if name is None:
        if diagram:
            raise UsageError("--diagram draws one ruleset: give its NAME")
        console().print(rules_list(RULESETS))
        return
    ruleset = RULESETS.get(name)
    if ruleset is None:
        raise UsageError(f"no ruleset `{name}` (known: {', '.join(RULESETS)})")
    if diagram:
        print_raw(ruleset.graph.mermaid())
        return
    say(ruleset.documentation())
    say("")
    console().print(rules_summary(ruleset))
    console().print(who_may_act_table(ruleset))


@command()
def schema() -> None:
    """The JSON Schema of the events: every fact with its type and the rulesets that read it."""
    print_json(event_schema(), indent=2)


@command()
def demo() -> None:
    """Replay a bundled Mordheim skirmish event by event, undo included."""
    from .demo import run_demo

    run_demo(console())


@command()
def serve(
    db: Db = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    max_connections: Annotated[
        int, typer.Option(min=1, help="Connections at once; past them, 503.")
    ] = 1000,
    header_timeout: Annotated[
        float, typer.Option(min=0.1, metavar="SECONDS", help="To send a request's head.")
    ] = 10.0,
    body_timeout: Annotated[
        float, typer.Option(min=0.1, metavar="SECONDS", help="To send a request's body.")
    ] = 30.0,
    keep_alive: Annotated[
        int, typer.Option(min=1, metavar="SECONDS", help="Idle time between requests.")
    ] = 5,
    max_header_bytes: Annotated[
        int,
        typer.Option(min=1024, metavar="BYTES", help="Of a head held unfinished; past it, 400."),
    ] = 16 * 1024,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            metavar="HOST", help="Also answer this Host header (repeatable; default: loopback)."
        ),
    ] = None,
) -> None:
    """Serve the fights over HTTP for other software (admin token: $WOUNDLOG_ADMIN_TOKEN)."""
    from .service import serve as run_service  # the web stack loads only for this command
    from .service.limits import Limits

    limits = Limits(max_connections, header_timeout, body_timeout, keep_alive, max_header_bytes)
    run_service(db, host, port, limits, allowed_host or [])


def main() -> None:
    app(prog_name="woundlog")
