"""A fight deleted while its stream reads it: the stream ends with `deleted`, whatever step of
its read the deletion falls between. On PostgreSQL, with the delete in another process, it fell
between the opening of the fight and the fold that redacts it for a viewer (CI, 7 December
2026): the fold met no events, its error was not the fight's absence, and the stream was cut
mid-chunk instead."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from litestar.response import ServerSentEventMessage

from woundlog.events import CharacterJoined, FightStarted, Hit
from woundlog.replays.application import Application
from woundlog.replays.application.redaction import PlayersView
from woundlog.replays.application.values import FightNotFound
from woundlog.replays.fight import Fight
from woundlog.replays.service.fights import Fights
from woundlog.replays.service.stream import Notifier, changes_stream


def _all(stream: AsyncIterator[ServerSentEventMessage]) -> list[ServerSentEventMessage]:
    """Every message of `stream`, on an event loop of its own in a thread of its own: a test
    run beside others may find one running in this thread."""

    async def read() -> list[ServerSentEventMessage]:
        return [message async for message in stream]

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, read()).result(timeout=60)


def test_a_fight_deleted_while_a_viewers_stream_redacts_it_ends_the_stream_as_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = Fights(str(tmp_path / "doomed.db"), "a" * 32, max_batch=10).app  # a store a thread
    app.create("doomed", FightStarted(ruleset="mordheim"))
    app.record("doomed", [CharacterJoined(character="grim", side="gm")])
    read_setting, open_fight = app.players_view, app.fight
    redacting: list[str] = []

    def setting_read(fight: str) -> PlayersView:
        setting = read_setting(fight)
        redacting.append(fight)
        return setting

    def opened_then_deleted(fight: str, *, cached: bool = True) -> Fight:
        opened = open_fight(fight, cached=cached)
        if redacting:  # another process's delete, between the open and the fold that redacts
            app.delete(fight)
        return opened

    monkeypatch.setattr(app, "players_view", setting_read)
    monkeypatch.setattr(app, "fight", opened_then_deleted)
    messages = _all(changes_stream(app, Notifier(), "doomed", 3, viewer=True))
    assert [message.event for message in messages] == ["deleted"]
    assert messages[0].data == '{"fight":"doomed"}'


def test_a_fight_deleted_after_it_was_opened_is_not_found_when_it_is_folded(
    tmp_path: Path,
) -> None:
    with Application.opened(str(tmp_path / "doomed.db")) as app:
        app.create("doomed", FightStarted(ruleset="mordheim"))
        app.record(
            "doomed", [CharacterJoined(character="grim", side="a"), Hit(target="grim", damage=0)]
        )
        opened = app.fight("doomed")
        assert app.delete("doomed")
        with pytest.raises(FightNotFound, match="no fight `doomed`"):
            opened.state()
