"""The application layer: every use case of woundlog, written once, for every front end.

`Application` is one object over a store, with one method per use case, composed from the
groups of use cases, each a class in a module of its own. Each takes and returns typed values
(the Structs of `values.py`, the events, `Appended`, `Odds`, `Report`), raises the
`WoundlogError` family of the contract, and knows nothing of typer, Litestar or terminals: the
CLI, the service and the pages call it, and add only what is theirs (wording, printing and
drawing through replays/render/; tokens, idempotency, streams and threads).

    Application(store_of, *, cache=None, cursors=..., cursor_lost=..., max_batch=None)
    Application.over(store) / Application.opened(url, *, create=True)   (a context manager)
    Application.without_store()                          for fight log files alone

    base.py       store, fight(fight), exists, version, check_batch_size, reading(fight_or_file)
    fights.py     started, create, read, record, record_json, record_named, import_log, state,
                  log, events, changes_from, replay, replay_state, summary, fights, delete,
                  rename
    undoing.py    undo, amend
    turns.py      next_turn, turn_order
    imports.py    import_records (recorded in a campaign when one is named)
    whatifs.py    whatif_events, branch_log, branch, whatif, odds, diff
    reports.py    report, history, timeline, replayed
    campaigns.py  campaign_new / _join / _record / _rest / _treat / _time / _retire / _died /
                  _undo, join_from_campaign, campaign_ruleset_for, campaign_record_imported
    campaign_views.py  campaign_show / _history / _consequences / _report
    sharing.py    share, share_campaign, hand_out, tokens_of, revoke_token, kept_tokens
    dice.py       dice_asked (the next die the rules need for an event, for a table's dice)
    redaction.py  players_view, set_players_view, redaction, seen_by_viewer, viewer_report,
                  may_viewer_ask_odds: what a viewer token is shown
    following.py  following (each event with the fight before and after it, for a live page)

A use case that reads a fight takes a stored fight (its id) or a `.jsonl` file (its `Path`)
alike (`FightOrFile`, base.py). A group that calls another's use cases inherits that group, so
each module's bases say what it stands on. A new use case is one method in its group's module;
a new group, one module and its name in `Application`'s bases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from woundlog.events.stores import Store, open_store

from ..fight import FoldCache
from .base import FightOrFile, no_store
from .campaign_views import CampaignViews
from .campaigns import CampaignCases
from .dice import DiceCases
from .fights import FightCases
from .following import FollowingCases
from .imports import CursorLost, Cursors, ImportCases, cursor_not_kept, cursors_of_store
from .reports import TIMELINE_MAX, ReportCases
from .sharing import SharingCases
from .turns import TurnCases
from .undoing import UndoCases
from .values import (
    EventsPage,
    FightHistory,
    FightId,
    FightNotFound,
    FightsPage,
    FightSummary,
    LastChange,
    MemberRecord,
    Moment,
    NewFight,
    NothingAsked,
    OptionValue,
    TimelinePage,
    TooLarge,
    UnknownFormat,
)
from .whatifs import WhatIfCases

__all__ = [
    "TIMELINE_MAX",
    "Application",
    "EventsPage",
    "FightHistory",
    "FightId",
    "FightNotFound",
    "FightOrFile",
    "FightSummary",
    "FightsPage",
    "LastChange",
    "MemberRecord",
    "Moment",
    "NewFight",
    "NothingAsked",
    "OptionValue",
    "TimelinePage",
    "TooLarge",
    "UnknownFormat",
]


class Application(
    FollowingCases,
    ImportCases,
    CampaignCases,
    CampaignViews,
    WhatIfCases,
    ReportCases,
    TurnCases,
    FightCases,
    UndoCases,
    SharingCases,
    DiceCases,
):
    """Every use case over one store (`store_of` gives the calling thread's)."""

    def __init__(
        self,
        store_of: Callable[[], Store],
        *,
        cache: FoldCache | None = None,
        cursors: Cursors = cursors_of_store,
        cursor_lost: CursorLost = cursor_not_kept,
        max_batch: int | None = None,
    ) -> None:
        super().__init__(
            store_of, cache=cache, cursors=cursors, cursor_lost=cursor_lost, max_batch=max_batch
        )

    @classmethod
    def over(cls, store: Store, **options: Any) -> Application:
        return cls(lambda: store, **options)

    @classmethod
    @contextmanager
    def opened(
        cls, url: str | None, *, create: bool = True, **options: Any
    ) -> Iterator[Application]:
        """The application over the store `url` names (None: the default), closed after. A use
        that only reads passes `create=False`: a store not there yet is an error, never made."""
        store = open_store(url, create=create)
        try:
            yield cls.over(store, **options)
        finally:
            store.close()

    @classmethod
    def without_store(cls) -> Application:
        """The application of a front end that reads fight log files alone (`woundlog replay
        FILE.jsonl`): no store is opened, and a use case that asks for one is a bug."""
        return cls(no_store)
