"""The application a command runs on (over the store of the app's `--db`), and what the CLI
adds to it: a fight not there named with the fights that are, and one event's place in its
batch left unsaid."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from woundlog.core import RULESETS
from woundlog.events import UsageError, WoundlogError

from ..application import Application, FightNotFound
from . import inputs as given
from .output import print_appended


@contextmanager
def application(db: str | None, *, create: bool = True) -> Iterator[Application]:
    """The application over the store `db` names; a command that only reads (or needs a fight
    already there) passes `create=False`, and a store not there yet is an error, never made.

    A fight not there is said with the fights that are, and how to find or start one."""
    with Application.opened(db, create=create) as app:
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
