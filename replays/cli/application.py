"""The application a command runs on (over the store of the app's `--db`), and what the CLI
adds to it: a fight not there named with the fights that are, and one event's place in its
batch left unsaid. A `woundlog play` session keeps one open (`kept_open`) for all its commands."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from woundlog.core import RULESETS
from woundlog.events import Heal, Hit, UsageError, WoundlogError

from ..application import Application, FightNotFound, FightOrFile
from ..foldcache import FoldCache
from . import inputs as given
from .output import print_appended


@contextmanager
def application(db: str | None, *, create: bool = True) -> Iterator[Application]:
    """The application over the store `db` names; a command that only reads (or needs a fight
    already there) passes `create=False`, and a store not there yet is an error, never made.

    A fight not there is said with the fights that are, and how to find or start one. Inside
    `kept_open(db)`, it is the application kept open there."""
    kept = KEPT.get()
    source: AbstractContextManager[Application] = (
        nullcontext(kept[1])
        if kept is not None and kept[0] == db
        else Application.opened(db, create=create)
    )
    with source as app:
        try:
            yield app
        except FightNotFound as error:
            known = ", ".join(app.store.fights()) or "none yet"
            missing = FightNotFound(f"{error.message} (fights: {known})")
            missing.add_note(
                "'woundlog fights' lists the fights of this store (--db, $WOUNDLOG_DB); "
                "'woundlog new FIGHT --ruleset NAME' starts one"
            )
            raise missing from None


@contextmanager
def reading(source: str, db: str | None) -> Iterator[tuple[Application, FightOrFile]]:
    """The application to read `source` with, and `source` as it takes it: a fight log file (a
    path ending `.jsonl`) is read alone, no store opened; else the fight of that id in the store
    `db` names."""
    if source.endswith(".jsonl"):
        path = Path(source)
        if not path.is_file():
            raise UsageError(f"no file {source}")
        yield Application.without_store(), path
        return
    with application(db, create=False) as app:
        yield app, source


KEPT: ContextVar[tuple[str | None, Application] | None] = ContextVar("kept", default=None)
"""The store URL and the application `kept_open` holds open, while it does."""


@contextmanager
def kept_open(db: str | None) -> Iterator[Application]:
    """One application over the store `db` (already there) for many commands, as a `woundlog
    play` session runs them: each command's `application(db)` is this one, so a command after
    the first opens no store and, its fight's folded state kept (`FoldCache`), folds only what
    it appends."""
    with Application.opened(db, create=False, cache=FoldCache(size=16)) as app:
        token = KEPT.set((db, app))
        try:
            yield app
        finally:
            KEPT.reset(token)


def known_ruleset(name: str, option: str = "") -> str:
    """A ruleset named on the command line: an unknown one is a usage error naming the nearest."""
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


def record(db: str | None, fight: str, fields: Mapping[str, Any], as_json: bool) -> None:
    """Record the one event `fields` describe, and print what it did. A fight not there is said
    before anything wrong with the event; a character may be named by its display name."""
    with application(db, create=False) as app, one_event():
        app.fight(fight)
        print_appended(app.record_named(fight, [given.present(fields)]), as_json=as_json)


def record_hit(
    db: str | None,
    fight: str,
    target: str,
    damage: int,
    attacker: str | None = None,
    roll: list[str] | None = None,
    fact: list[str] | None = None,
    event_id: str | None = None,
    note: str | None = None,
    as_json: bool = False,
) -> None:
    """`woundlog hit`, its words read (by typer in fight.py, or by quick.py)."""
    what = {"target": target, "damage": damage, "attacker": attacker}
    record_given(db, fight, Hit, what, roll, fact, event_id, note, as_json)


def record_heal(
    db: str | None,
    fight: str,
    target: str,
    amount: int,
    means: str | None = None,
    healer: str | None = None,
    roll: list[str] | None = None,
    fact: list[str] | None = None,
    event_id: str | None = None,
    note: str | None = None,
    as_json: bool = False,
) -> None:
    """`woundlog heal`, its words read (by typer in fight.py, or by quick.py)."""
    what = {"target": target, "amount": amount, "means": means, "healer": healer}
    record_given(db, fight, Heal, what, roll, fact, event_id, note, as_json)


def record_given(
    db: str | None,
    fight: str,
    kind: type[Hit] | type[Heal],
    what: dict[str, Any],
    roll: list[str] | None,
    fact: list[str] | None,
    event_id: str | None,
    note: str | None,
    as_json: bool,
) -> None:
    """Record a hit or a heal: `what` it did, with the dice, facts, id and note the shared
    options give."""
    fields = {
        "type": str(kind.__struct_config__.tag),
        **what,
        "rolls": given.rolls(roll or []),
        "id": event_id,
        "note": note,
    }
    record(db, fight, given.with_facts(kind, fields, fact or []), as_json)
