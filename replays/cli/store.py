"""The store a command names, the fight in it, and the one event a command records."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from woundlog.core import RULESETS
from woundlog.events import UsageError, WoundlogError
from woundlog.events.stores import Store, open_store

from ..fight import Fight
from . import inputs as given
from .output import print_appended


@contextmanager
def opened(db: str | None, *, create: bool = True) -> Iterator[Store]:
    """The store `db` names; a command that only reads (or needs a fight already there) passes
    `create=False`, and a store not there yet is an error, never made."""
    store = open_store(db, create=create)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def existing_fight(db: str | None, fight: str) -> Iterator[Fight]:
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
    """Append the one event `fields` describe, and print what it did."""
    with existing_fight(db, fight) as opened_fight, one_event():
        print_appended(opened_fight.append([given.event(fields)]), as_json=as_json)
