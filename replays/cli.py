"""The `woundlog` command: a game master's tools on a fight log in a store, or on a `.jsonl` file.

Every command that records something builds one event and appends it through `Fight`, so the CLI
refuses exactly what the library refuses. Errors print as `error: <message>` on stderr, without
a traceback, and exit with the error's code: 2 usage, 3 refused event, 4 conflict. A usage error
also says what to do (`hint: ...`), click's own included.
"""

# Annotations stay strings until typer builds a command (issue 16): a run builds one command,
# so it evaluates that command's parameters alone, once (`Registered`), not the hundred or so
# `Annotated[...]` of every command at every import.
from __future__ import annotations

import enum
import functools
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, ParamSpec, get_type_hints

import typer

# The CLI's import loads typer and what declaring the commands needs, no more (issue 16): each
# command imports the rest of woundlog (events, rules, stores, output) where it runs, so that
# `woundlog --version` and `woundlog -h` load no msgspec and no rules, and a command loads what it
# uses alone.
from woundlog.events.errors import BatchRefused, ConflictError, UsageError, WoundlogError
from woundlog.events.fight_ids import BadFightId, check_fight_id
from woundlog.events.importers import DEFAULT_RULESET, IMPORTERS, convert_records

if TYPE_CHECKING:
    from woundlog.events.model import Event
    from woundlog.events.stores import Store

    from .cli_output import FightSummary
    from .fight import Fight

DB_KEY = "woundlog.db"
"""Where the app's `--db` is kept, in click's `ctx.meta`, which every nested context shares."""


class WoundlogGroup(typer.core.TyperGroup):
    """The `woundlog` group, printing click's usage errors (unknown command, missing argument,
    bad value) as woundlog prints its own: `error: ...`, then `hint: ...`, exit 2."""

    def main(self, args: Any = None, prog_name: str | None = None, *more: Any, **extra: Any) -> Any:
        if extra.get("standalone_mode", True) is False:
            return super().main(args, prog_name, *more, **extra)
        extra["standalone_mode"] = False  # errors come back here rather than being printed
        try:
            code = super().main(args, prog_name, *more, **extra)
        except typer.TyperException as error:  # click's errors (typer ships its own click)
            from .cli_output import print_error, print_raw

            if type(error).__name__ == "NoArgsIsHelpError":  # a bare `woundlog`: the help
                print_raw(str(error))
            else:
                print_error(click_message(error), hint=click_hint(error))
            sys.exit(getattr(error, "exit_code", 1))
        except typer.Abort:
            from .cli_output import print_error

            print_error("aborted")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def list_commands(self, ctx: Any) -> list[str]:
        """The commands as `-h` lists them: `import`, a group of its own that typer would list
        last, beside `export`."""
        names = [name for name in super().list_commands(ctx) if name != "import"]
        at = names.index("export") + 1 if "export" in names else len(names)
        return [*names[:at], "import", *names[at:]] if "import" in self.commands else names

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except typer.TyperException as error:  # no such command: suggest the nearest
            if args:
                error.message = f"no such command {args[0]!r}"
                import difflib  # only for a mistyped command

                near = difflib.get_close_matches(args[0], self.list_commands(ctx), n=3)
                error.hint = (  # type: ignore[attr-defined]
                    (f"did you mean {' or '.join(map(repr, near))}? " if near else "")
                    + f"'{ctx.command_path} -h' lists every command"
                )
            raise


def click_message(error: Exception) -> str:
    """Click's message in woundlog's style: lower case first, no final full stop, and the
    options it would suggest left to the hint."""
    message = getattr(error, "message", str(error))
    if type(error).__name__ != "NoSuchOption":
        format_message = getattr(error, "format_message", None)
        message = format_message() if format_message else message
    message = message.strip().rstrip(".")
    return message[:1].lower() + message[1:]


def click_hint(error: Exception) -> str:
    """What to do about a usage error: its own hint, the options click found near a mistyped
    one, else the command's help."""
    if hint := getattr(error, "hint", None):
        return str(hint)
    ctx = getattr(error, "ctx", None)
    help_ = f"try '{ctx.command_path} -h' for help" if ctx is not None else "try 'woundlog -h'"
    near = sorted(getattr(error, "possibilities", None) or [])
    return f"did you mean {' or '.join(near)}? {help_}" if near else help_


app = typer.Typer(
    cls=WoundlogGroup,
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


P = ParamSpec("P")


def evaluated(function: Callable[P, None]) -> Callable[P, None]:
    """`function` with its annotations evaluated once, here: typer reads the app's options on
    every run, several times, and would evaluate each annotation's string at each reading."""
    function.__annotations__ = get_type_hints(function, include_extras=True)
    return function


AppDb = Annotated[
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
ShowVersion = Annotated[
    bool | None,
    typer.Option("--version", help="Print woundlog's version and exit.", is_eager=True),
]


@app.callback(invoke_without_command=True)
@evaluated  # at every start: names, not expressions, are quick to evaluate
def options(ctx: typer.Context, db: AppDb = None, show_version: ShowVersion = None) -> None:
    """Track what happens to tabletop characters once they get hurt."""
    if show_version:  # one plain line, as print_raw writes it, without loading the output module
        sys.stdout.write(f"woundlog {version_of_woundlog()}\n")
        raise typer.Exit()
    ctx.meta[DB_KEY] = db
    if ctx.invoked_subcommand is None:
        from .cli_output import print_raw

        print_raw(ctx.get_help())
        raise typer.Exit(2)


Context = typer.Context

# --- options shared by several commands ----------------------------------------------------------

Db = str | None
"""A command's parameter `db: Db = None` is not an option of its own: `command()` gives it the store
of the app's `--db`, so `--db` is given once, before the command."""

OldDb = Annotated[str | None, typer.Option("--db", metavar="URL", hidden=True)]
"""`COMMAND --db URL`, where --db went before it moved to the app: kept, hidden, so that scripts
written then keep working; a warning says where it goes now."""


def app_store(ctx: typer.Context, old: str | None) -> str | None:
    """The store a command opens: the app's `--db` (or `$WOUNDLOG_DB`), or an old `COMMAND --db`."""
    root = ctx.find_root()
    given: str | None = ctx.meta.get(DB_KEY)
    if old is None:
        return given
    source = root.get_parameter_source("db")
    if source is not None and source.name == "COMMANDLINE" and given != old:
        raise UsageError(f"--db is given twice ({given} and {old}): give it once, first")
    from .cli_output import console, say

    say(
        f"warning: `--db` goes before the command now: `woundlog --db URL {ctx.info_name} ...`",
        out=console(stderr=True),
    )
    return old


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
Wide = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="Every column in one table, unabridged, however wide (else it is fitted to the "
        "terminal: names abbreviated with a legend, long values under the table).",
    ),
]
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


def command(
    name: str | None = None, *, on: typer.Typer | None = None, hidden: bool = False
) -> Callable[[Callable[P, None]], Callable[P, None]]:
    """Register a command whose WoundlogErrors become `error: ...` and the error's exit code.

    Done per command rather than in `main()`, so that a test driving `app` directly sees exactly
    what a person at the terminal sees. A parameter named `db` is no option of the command: it is
    given the app's `--db` (see `Db`).
    """

    def register(run: Callable[P, None]) -> Callable[P, None]:
        (on or app).command(name, hidden=hidden)(Registered(run))
        return run

    return register


class Registered:
    """A command's function as typer sees it: `run`, guarded (see `command`), with the signature
    typer makes the options from: its context, and `db` the old `COMMAND --db`.

    That signature, and the annotations behind it, are worked out the first time typer asks,
    which it does only for the commands it builds: a run builds one (`main`)."""

    def __init__(self, run: Callable[..., None]) -> None:
        self.run = run
        self.__name__ = run.__name__  # typer names the command after it
        self.__qualname__ = run.__qualname__
        self.__module__ = run.__module__
        self.__doc__ = run.__doc__  # the command's help
        self.__wrapped__ = run  # typing.get_type_hints finds the module's names through it

    @functools.cached_property
    def own_signature(self) -> inspect.Signature:
        """`run`'s own signature, its annotations evaluated."""
        return inspect.signature(self.run, eval_str=True)

    @functools.cached_property
    def own_context(self) -> str | None:
        """The parameter by which a command that asks for its context gets it, as typer does."""
        parameters = self.own_signature.parameters.items()
        return next((name for name, each in parameters if each.annotation is Context), None)

    @functools.cached_property
    def __signature__(self) -> inspect.Signature:
        keyword = inspect.Parameter.KEYWORD_ONLY
        own = self.own_signature
        parameters = [each for each in own.parameters.values() if each.name != "db"]
        if self.own_context is None:
            parameters.append(inspect.Parameter(CONTEXT, keyword, annotation=Context))
        if "db" in own.parameters:
            parameters.append(inspect.Parameter("db", keyword, default=None, annotation=OldDb))
        return own.replace(parameters=parameters)

    @functools.cached_property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        """The signature's annotations, evaluated: typer's `get_type_hints` reads them, and a
        string there would be compiled again."""
        return {
            each.name: each.annotation
            for each in self.__signature__.parameters.values()
            if each.annotation is not inspect.Parameter.empty
        }

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        from woundlog.events.stores.locate import STORE_ERRORS, unusable

        own_context = self.own_context
        ctx: Context = kwargs[own_context] if own_context else kwargs.pop(CONTEXT)
        url = None
        try:
            if "db" in kwargs:
                url = app_store(ctx, kwargs["db"])
                kwargs["db"] = url
            self.run(*args, **kwargs)
        except WoundlogError as error:
            fail(error, ctx)
        except STORE_ERRORS as error:  # the --db file went bad under a running command
            fail(unusable(url, error), ctx)
        except OSError as error:  # a file named on the command line: a usage error
            where = f": {error.filename}" if error.filename else ""
            fail(UsageError(f"{error.strerror or error}{where}"), ctx)
        except Exception as error:  # the PostgreSQL server went away under the command
            from woundlog.events.stores.postgres import database_gone

            gone = database_gone(url, error)
            if gone is None:
                raise
            fail(gone, ctx)


class Deferred(Registered):
    """A command defined in a module of its own (`woundlog timeline`, in pictures.py), which is
    imported only when typer builds the command: its function, help and signature are the
    module's, read then."""

    def __init__(self, name: str, module: str) -> None:  # no super(): `run` is not loaded yet
        self.__name__ = self.__qualname__ = name
        self.module = module

    @functools.cached_property
    def run(self) -> Callable[..., None]:  # type: ignore[override]
        run: Callable[..., None] = getattr(importlib.import_module(self.module), self.__name__)
        return run

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.run.__doc__


CONTEXT = "woundlog_context"
"""The name under which typer hands a command its context (the app's --db, its name for hints)."""


def fail(error: WoundlogError, ctx: Context) -> NoReturn:
    """Print `error: ...` and its hints, and exit with the error's code. A usage error with no
    hint of its own is pointed at the command's help."""
    from .cli_output import print_error

    hints = list(getattr(error, "__notes__", []))
    if not hints and isinstance(error, UsageError):  # the log form's help is `import`'s
        hints.append(f"try '{ctx.command_path.removesuffix(' ' + LOG_FORM)} -h' for help")
    print_error(error, hint="\n".join(hints) or None)
    raise typer.Exit(error.exit_code)


@contextmanager
def opened(db: str | None, *, create: bool = True) -> Iterator[Store]:
    """The store `db` names; a command that only reads (or needs a fight already there) passes
    `create=False`, and a store not there yet is an error, never made (issue 24)."""
    from woundlog.events.stores import open_store

    store = open_store(db, create=create)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def existing_fight(db: str | None, fight: str) -> Iterator[Fight]:
    from .fight import Fight

    with opened(db, create=False) as store:
        try:
            found = Fight.open(store, fight)
        except UsageError as error:
            if not store.version(fight):  # no such fight: say how to find or make one
                error.add_note(
                    "'woundlog fights' lists the fights of this store (--db, $WOUNDLOG_DB); "
                    "'woundlog new FIGHT --ruleset NAME' starts one"
                )
            raise
        yield found


def known_ruleset(name: str, option: str = "") -> str:
    """A ruleset named on the command line: an unknown one is a usage error naming the nearest."""
    from woundlog.core import RULESETS

    if name in RULESETS:
        return name
    error = UsageError(f"{option}{' ' if option else ''}no ruleset `{name}`")
    import difflib  # only for an unknown ruleset

    near = difflib.get_close_matches(name, list(RULESETS), n=1)
    error.add_note(
        (f"did you mean `{near[0]}`? " if near else "")
        + f"the rulesets: {', '.join(RULESETS)} ('woundlog rules' describes each)"
    )
    raise error


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
    from . import cli_input as given
    from .cli_output import print_appended

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
    import secrets  # here: it loads base64, which no other command needs

    from woundlog.events.model import WIRE_VERSION, FightStarted

    from . import cli_input as given
    from .cli_output import print_appended, say
    from .fight import Appended, Fight

    chosen = secrets.randbelow(2**31) if seed is None else seed
    known_ruleset(ruleset, "--ruleset:")
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
    from . import cli_input as given

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


def whole_number(text: str) -> int:
    """DAMAGE and AMOUNT as written in a log: digits 0-9 only. click's INT is Python's `int`,
    which takes `1_000`, `+5`, ` 7 ` and other scripts' digits as numbers (issue 24)."""
    if not (text.isascii() and text.isdigit()):
        raise typer.BadParameter(f"{text!r} is not a whole number (digits 0-9 only)")
    return int(text)


@command()
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
    from woundlog.events.model import Hit

    from . import cli_input as given

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
    from woundlog.events.model import Heal

    from . import cli_input as given

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
    from . import cli_input as given

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
    from . import cli_input as given

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
    from . import cli_input as given
    from .cli_output import print_appended

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
    from . import cli_input as given

    fields = {
        "type": "amend",
        "event": given.event_name(event),
        "replacement": given.json_object(replacement, "--replacement"),
        "reason": reason,
    }
    record(db, fight, fields, as_json=as_json)


# --- reading ---------------------------------------------------------------------------------


@command()
def fights(as_json: AsJson = False, db: Db = None) -> None:
    """The fights in the store: ruleset, name, events, and when the last one was recorded."""
    from .cli_output import console, fights_table, print_json, say

    with opened(db, create=False) as store:
        found = [summary_of(store, fight) for fight in store.fights()]
    if as_json:
        print_json(found)
    elif not found:
        say("no fights yet: `woundlog new FIGHT --ruleset NAME` starts one")
    else:
        console().print(fights_table(found))


def summary_of(store: Any, fight: str) -> FightSummary:
    from .cli_output import FightSummary

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
def state(
    fight: FightId, at: At = None, as_json: AsJson = False, wide: Wide = False, db: Db = None
) -> None:
    """Every character's state, now or at event N."""
    from .cli_output import print_state

    with existing_fight(db, fight) as opened_fight:
        print_state(opened_fight.state(at), fight, as_json=as_json, wide=wide)


@command()
def log(fight: FightId, as_json: AsJson = False, db: Db = None) -> None:
    """Every event as it happened: what it changed and every die used.

    With --json: one changes object per line, then the state, as `replay --trace --json`."""
    from .cli_output import print_changes, print_json

    with existing_fight(db, fight) as opened_fight:
        if as_json:  # the shape of `replay --trace --json`: JSON Lines, the state last
            for changes in opened_fight.history():
                print_json(changes)
            print_json(opened_fight.state())
            return
        for changes in opened_fight.history():
            print_changes(changes, moves=True)


# --- deleting and renaming ------------------------------------------------------------------


@command()
def delete(
    fight: FightId,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask: delete it.")] = False,
    db: Db = None,
) -> None:
    """Delete a fight: its whole log, and the service's tokens and cursors for it. Asks first."""
    from .cli_output import say

    with existing_fight(db, fight) as opened_fight:
        count = opened_fight.version
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
        opened_fight.store.delete_fight(fight)
    say(f"fight `{fight}` deleted ({count} events)")


@command()
def rename(
    old: FightId,
    new: Annotated[
        str,
        typer.Argument(metavar="NEW", help="The fight's new id.", callback=valid_fight_id),
    ],
    db: Db = None,
) -> None:
    """Give a fight another id; its log, and the service's tokens and cursors, go with it."""
    from .cli_output import say

    with existing_fight(db, old) as opened_fight:
        count = opened_fight.store.rename_fight(old, new)
    say(f"fight `{old}` is now `{new}` ({count} events)")


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
    from .cli_output import say

    with existing_fight(db, fight) as opened_fight:
        if output is None:
            sys.stdout.flush()
            write_events(sys.stdout.buffer, opened_fight)
            return
        with open(output, "wb") as out:
            count = write_events(out, opened_fight)
        say(f"exported {count} events of fight `{fight}` to {output}")


def write_events(out: Any, fight: Fight) -> int:
    from woundlog.events.codec import encode_json

    count = 0
    for stored in fight.events():
        out.write(encode_json(stored.event) + b"\n")
        count += 1
    out.flush()
    return count


class ImportGroup(typer.core.TyperGroup):
    """`woundlog import`: a first word that names no format is the file of the log form, so
    `woundlog import FILE.jsonl` and `woundlog import FORMAT FILE` are both one command line."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            if any(mark in args[0] for mark in "./\\") or Path(args[0]).exists():
                return LOG_FORM, self.commands[LOG_FORM], args  # the file is the log's argument
            error = typer.BadParameter(f"`{args[0]}` is no format, nor a file", param_hint="FORMAT")
            import difflib  # only for an unknown format

            near = difflib.get_close_matches(args[0], list(IMPORTERS), n=1)
            error.hint = (  # type: ignore[attr-defined]
                (f"did you mean `{near[0]}`? " if near else "")
                + f"'{ctx.command_path} FILE.jsonl' stores a woundlog log; "
                f"'{ctx.command_path} FORMAT FILE --into FIGHT' another program's records "
                f"({', '.join(IMPORTERS)})"
            )
            raise error
        return super().resolve_command(ctx, args)


LOG_FORM = "jsonl"
import_app = typer.Typer(
    cls=ImportGroup,
    name="import",
    help="Store a fight log (`woundlog import FILE.jsonl [--as FIGHT]`), or convert another "
    "program's records into a fight (`woundlog import FORMAT FILE --into FIGHT`).",
    no_args_is_help=True,
    subcommand_metavar="FILE.jsonl | FORMAT FILE",
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(import_app)
OldImport = Annotated[str | None, typer.Option(hidden=True)]  # the old --from form, refused


@command(LOG_FORM, on=import_app, hidden=True)
def import_(
    file: Annotated[Path, typer.Argument(metavar="FILE.jsonl", help="A woundlog fight log.")],
    as_: Annotated[
        str | None, typer.Option("--as", metavar="FIGHT", help="Default: the file's stem.")
    ] = None,
    from_: Annotated[str | None, typer.Option("--from", hidden=True)] = None,
    ruleset: OldImport = None,
    seed: OldImport = None,
    db: Db = None,
) -> None:
    """Store a fight log, checking every event; all of it is stored or none."""
    from . import cli_input as given
    from .cli_output import say
    from .fight import Fight

    if from_ is not None or ruleset is not None or seed is not None:
        raise old_import_form(file, as_, from_, ruleset, seed)
    fight = check_fight_id(as_ or file.stem)
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


def old_import_form(
    file: Path, as_: str | None, fmt: str | None, ruleset: str | None, seed: str | None
) -> UsageError:
    """`woundlog import FILE --from FORMAT`, the form before the split: refused, naming the new."""
    if fmt is None:
        error = UsageError("--ruleset and --seed go with another program's records")
        error.add_note("write 'woundlog import FORMAT FILE --into FIGHT --ruleset NAME'")
        return error
    new = f"woundlog import {fmt} {file} --into {as_ or file.stem}"
    new += "".join(f" {option} {value}" for option, value in (("--ruleset", ruleset),
                   ("--seed", seed)) if value is not None)  # fmt: skip
    error = UsageError("`woundlog import FILE --from FORMAT` is now `woundlog import FORMAT FILE`")
    error.add_note(f"write '{new}'")
    return error


def import_format(fmt: str) -> None:
    """`woundlog import FORMAT FILE --into FIGHT`: a command per importer, with its options."""

    def records(
        file: Annotated[
            Path,
            typer.Argument(
                metavar="FILE", help="The program's records: a JSON array or JSON Lines."
            ),
        ],
        into: Annotated[
            str,
            typer.Option(
                "--into",
                metavar="FIGHT",
                help="The fight they go into; a new one is created.",
                callback=valid_fight_id,
            ),
        ],
        ruleset: Annotated[
            str | None,
            typer.Option(
                "--ruleset", help=f"The rules of a fight this creates. Default: {DEFAULT_RULESET}."
            ),
        ] = None,
        seed: Annotated[
            int | None,
            typer.Option(help="The seed of a fight this creates. Default: a random one."),
        ] = None,
        db: Db = None,
    ) -> None:
        if ruleset is not None:
            known_ruleset(ruleset, "--ruleset:")
        import_records(file, into, fmt, ruleset, seed, db)

    records.__doc__ = (
        f"{IMPORTERS[fmt].summary}.\n\nConverted into events and appended to FIGHT in one "
        "batch (created if new); importing the same records again adds nothing."
    )
    command(fmt, on=import_app)(records)


for each_format in IMPORTERS:
    import_format(each_format)


def import_records(
    file: Path, fight: str, fmt: str, ruleset: str | None, seed: int | None, db: str | None
) -> None:
    """Convert another program's records and append them atomically; a new fight's
    `fight_started` goes in the same batch, so a refused record leaves no empty fight behind.

    The importer's cursor is the service's (import_cursors.py): records compared with the last
    ones taken in (Improved Initiative's autosaves) continue from where the previous import of
    this fight and format left off, whether the CLI or the service made it."""
    from woundlog.events.model import WIRE_VERSION, FightStarted

    from . import cli_input as given
    from .cli_output import console, say
    from .fight import Fight
    from .import_cursors import cursors_beside, import_lock

    records, lines = given.records_file(file)
    with opened(db) as store, cursors_beside(store) as cursors, import_lock(store, fight, fmt):
        version = store.version(fight)
        started: list[Event] = []
        joined: list[str] = []
        previous = None
        if version:
            current = Fight(store, fight).state()
            if ruleset is not None and ruleset != current.ruleset:
                raise UsageError(
                    f"fight `{fight}` is played with `{current.ruleset}`, not `{ruleset}`"
                )
            ruleset, joined = current.ruleset, list(current.characters)
            previous = cursors.get(fight, fmt)
        else:  # a seed chosen here is kept in fight_started, as `new` does
            import secrets

            ruleset = ruleset or DEFAULT_RULESET
            chosen = secrets.randbelow(2**31) if seed is None else seed
            options = IMPORTERS[fmt].fight_options(ruleset)  # no die the table did not roll
            started.append(
                FightStarted(ruleset=ruleset, seed=chosen, options=options, version=WIRE_VERSION)
            )
        try:
            converted = convert_records(
                fmt, records, ruleset=ruleset, joined=joined, previous=previous
            )
        except WoundlogError as error:
            raise on_records(error, lines) from None
        from woundlog.events.importers import append_importing

        appended, refusals = append_importing(  # a record the rules refuse is left out, named
            converted,
            lambda events: Fight(store, fight).append(events, version),
            before=started,
            known=lambda ids: store.lookup(fight, ids),
        )
        unsaved: list[str] = []
        try:
            cursors.put(fight, fmt, converted.previous)
        except Exception as error:
            # The events are committed: that must not be told as a failure (the service does
            # the same). The next import compares with an older cursor; ids make it harmless.
            unsaved.append(
                f"the events are in, but where this import stopped was not kept: {error}"
            )
    skipped = f" ({len(appended.skipped)} already there)" if appended.skipped else ""
    say(f"imported {len(appended.changes)} events into fight `{fight}`{skipped}")
    for warning in [*converted.warnings, *(r.said() for r in refusals), *unsaved]:
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
    wide: Wide = False,
) -> None:
    """Fold a `.jsonl` fight log into state; no store involved.

    Each event the rules refuse is void (it does nothing) and named on standard error, with
    its line and why, so a typo never silently changes the fight; `--strict` stops there."""
    from .cli_output import print_changes, print_json, print_state, report_voids
    from .files import Void, replay_file, replay_file_state

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
    print_state(last, file.stem, as_json=as_json, wide=wide)


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
    from woundlog.events import bounded
    from woundlog.events.codec import iter_jsonl

    from .cli_output import print_json, print_odds
    from .whatif import hit_shorthand, rounds, then_events  # the odds load with their command
    from .whatif import odds as compute_odds

    state = source_state(source, at, db)
    whatif = [*then_events(then or [])]
    if then_file is not None:
        with open(then_file, "rb") as lines:
            whatif += [event for _, event in iter_jsonl(bounded.lines(lines, then_file))]
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
    from .branch import branch
    from .cli_output import print_appended, print_changes, say
    from .whatif import hit_shorthand, then_events

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
    from .branch import compare
    from .cli_output import print_json, say
    from .fight import Fight

    with opened(db, create=False) as store:
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
        from .files import replay_file_state

        path = Path(source)
        if not path.is_file():
            raise UsageError(f"no file {source}")
        state = replay_file_state(path, at=at)
        if state is None:
            raise UsageError(f"{source} holds no events")
        return state
    with existing_fight(db, source) as opened_fight:
        return opened_fight.state(at)


app.command("timeline")(Deferred("timeline", "woundlog.replays.pictures"))


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
    from woundlog.core import RULESETS

    from .cli_output import console, print_raw, rules_list, rules_summary, say, who_may_act_table

    if name is None:
        if diagram:
            raise UsageError("--diagram draws one ruleset: give its NAME")
        console().print(rules_list(RULESETS))
        return
    ruleset = RULESETS[known_ruleset(name)]
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
    from .cli_output import print_json
    from .reference import event_schema

    print_json(event_schema(), indent=2)


@command()
def demo() -> None:
    """Replay a bundled Mordheim skirmish event by event, undo included."""
    from .cli_output import console
    from .demo import run_demo

    run_demo(console())


@command()
def serve(
    ctx: Context,
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
    admin_token: Annotated[
        str | None,
        typer.Option(
            "--admin-token",
            metavar="TOKEN",
            envvar="WOUNDLOG_ADMIN_TOKEN",
            show_envvar=True,
            show_default=False,
            help="The admin token (16 characters or more). Set the variable or use "
            "--admin-token-file: a command line is visible to others in `ps`. Default: a "
            "random one, written to a private file beside a SQLite store.",
        ),
    ] = None,
    admin_token_file: Annotated[
        Path | None,
        typer.Option("--admin-token-file", metavar="FILE", help="Read the admin token from FILE."),
    ] = None,
    cors_origin: Annotated[
        list[str] | None,
        typer.Option(
            "--cors-origin",
            metavar="ORIGIN",
            envvar="WOUNDLOG_CORS_ORIGINS",
            show_envvar=True,
            help="A page allowed to call the service from a browser, e.g. Foundry's "
            "http://localhost:30000 (repeatable; in the variable, comma-separated).",
        ),
    ] = None,
) -> None:
    """Serve the fights over HTTP for other software."""
    from .service import serve as run_service  # the web stack loads only for this command
    from .service.limits import Limits

    limits = Limits(max_connections, header_timeout, body_timeout, keep_alive, max_header_bytes)
    admin = given_admin_token(ctx, admin_token, admin_token_file)
    run_service(
        db, host, port, limits, allowed_host or [], admin=admin, cors_origins=cors_origin or []
    )


def given_admin_token(ctx: Context, typed: str | None, file: Path | None) -> str | None:
    """The admin token from `--admin-token` (or its variable) or from `--admin-token-file`.

    Never printed, not even in an error; a token typed on the command line is taken, with a
    warning, since every user of the machine can read it in `ps`."""
    from woundlog.events import bounded

    from .cli_output import console, say

    typed_here = getattr(ctx.get_parameter_source("admin_token"), "name", "") == "COMMANDLINE"
    if file is None:
        if typed and typed_here:
            say(
                "warning: --admin-token on the command line is visible to other users (`ps`): "
                "set $WOUNDLOG_ADMIN_TOKEN or use --admin-token-file",
                out=console(stderr=True),
            )
        return typed
    if typed and typed_here:  # the file wins over the variable, as any option does
        raise UsageError("give the admin token once: --admin-token or --admin-token-file")
    from .service.serve import private_token_file

    private_token_file(file)
    kept = bounded.read(file, limit=bounded.MAX_SECRET, what="a token file")
    try:
        token = kept.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise UsageError(f"--admin-token-file {file} is not text (UTF-8): a token is") from None
    if not token:
        raise UsageError(f"--admin-token-file {file} is empty")
    if not token.isascii() or not token.isprintable():
        raise UsageError(
            f"--admin-token-file {file} holds more than one line of printable ASCII: a token "
            "is sent in an HTTP header"
        )
    return token


def main() -> None:
    """The console script: `woundlog ARGS...`.

    Typer builds every command's parameters before it reads a word of the command line, which
    takes longer than a `hit` takes to run (issue 16). When the first word names a command (or
    the `import` group), only that one is built, and `--version` alone builds none: options,
    help and errors are the same. Anything else (no command, `--help`, a word that is no
    command, shell completion) sees them all.
    """
    everything = app.registered_commands, app.registered_groups
    needed = reachable(*everything, sys.argv[1:])
    if needed is not None:
        app.registered_commands, app.registered_groups = needed
    try:
        app(prog_name="woundlog")
    finally:
        app.registered_commands, app.registered_groups = everything


def reachable(
    commands: list[Any], groups: list[Any], args: list[str]
) -> tuple[list[Any], list[Any]] | None:
    """The registered commands and groups `woundlog ARGS...` can reach; None: all of them."""
    if "_WOUNDLOG_COMPLETE" in os.environ or not args:
        return None
    if args == ["--version"]:
        return [], []
    word = command_word(args)
    if word is None:
        return None
    named = [
        info
        for info in commands
        if (info.name or typer.main.get_command_name(info.callback.__name__)) == word
    ]
    named_groups = [info for info in groups if group_name(info) == word]
    return (named, named_groups) if named or named_groups else None


def command_word(args: list[str]) -> str | None:
    """The command `woundlog ARGS...` names, past the app's own `--db URL` (`woundlog --db
    URL hit ...`, as the README writes it); None when another option of the app comes first
    (`--help`, `--version` with more): typer then needs every command."""
    at = 0
    while at < len(args) and args[at].startswith("-"):
        if args[at] == "--db":
            at += 2
        elif args[at].startswith("--db="):
            at += 1
        else:
            return None
    return args[at] if at < len(args) else None


def group_name(info: Any) -> str | None:
    """The name a group added with `app.add_typer` goes by: its own, else its Typer's."""
    return info.name if isinstance(info.name, str) else info.typer_instance.info.name
