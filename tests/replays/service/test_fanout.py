"""One change fanned out once (issue 42, service/fanout.py): a hundred streams of a fight
(GM's and viewers') read each event from the store once and make each view's message once, the
same bytes handed to all; a stream that opens on a fight made again under its id is never
answered with the old log's messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from woundlog.events import CharacterJoined, FightStarted, Hit
from woundlog.replays.application import Application
from woundlog.replays.service.fanout import GM, VIEWER, Fanout

FOLLOWERS = 100


def started(app: Application, seed: int = 0) -> None:
    app.create("f", FightStarted(ruleset="dnd5e", seed=seed))
    app.record(
        "f",
        [
            CharacterJoined(character="ann", side="party", kind="pc", stats={"hp": 10, "ac": 12}),
            CharacterJoined(character="orc", side="foes", kind="monster", stats={"hp": 15}),
        ],
    )


def test_a_hundred_followers_read_and_encode_each_event_once_per_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Application.opened(str(tmp_path / "f.db")) as app:
        started(app)
        reads: list[int] = []
        following = app.following

        def counted(fight: str, first: int, limit: int) -> Any:
            reads.append(first)
            return following(fight, first, limit)

        monkeypatch.setattr(app, "following", counted)
        fanout = Fanout()
        views = [GM if n % 2 else VIEWER for n in range(FOLLOWERS)]
        firsts = [4] * FOLLOWERS
        for heard, blow in enumerate((Hit(target="orc", damage=4), Hit(target="ann", damage=3))):
            app.record("f", [blow])
            batches = [
                fanout.read(app, "f", firsts[n], 200, view, heard=heard + 1, opening=heard == 0)
                for n, view in enumerate(views)
            ]
            assert not any(batch.more for batch in batches)  # none reads again till woken
            sent = [batch.messages for batch in batches]
            assert all(len(batch) == 1 for batch in sent)
            gm = {id(batch[0]) for batch, view in zip(sent, views, strict=True) if view == GM}
            viewer = {id(b[0]) for b, view in zip(sent, views, strict=True) if view == VIEWER}
            assert len(gm) == len(viewer) == 1 and gm != viewer  # one object per view
            # ... and a follower that asks again, before anything else is heard, reads nothing
            again = fanout.read(app, "f", 5 + heard, 200, GM, heard=heard + 1)
            assert again.messages == [] and not again.more
            firsts = [4 + heard + 1] * FOLLOWERS
        assert fanout.made == 4  # two events, two views each
        assert reads == [4, 5]  # the store read once per event, not once per follower
        assert b"15" not in sent[0][0].block and b'"hp":7' in sent[1][0].block  # viewer, GM


def test_a_viewers_message_is_the_gms_very_bytes_where_nothing_is_hidden(
    tmp_path: Path,
) -> None:
    with Application.opened(str(tmp_path / "f.db")) as app:
        app.create("f", FightStarted(ruleset="dnd5e"))
        app.record(
            "f", [CharacterJoined(character="ann", side="party", kind="pc", stats={"hp": 9})]
        )
        fanout = Fanout()
        gm = fanout.read(app, "f", 2, 200, GM, heard=0, opening=True).messages
        viewer = fanout.read(app, "f", 2, 200, VIEWER, heard=0, opening=True).messages
        assert gm[0] is viewer[0] and fanout.made == 1


def test_a_stream_opening_on_a_fight_made_again_is_not_sent_the_old_logs_messages(
    tmp_path: Path,
) -> None:
    with Application.opened(str(tmp_path / "f.db")) as app:
        started(app, seed=1)
        app.record("f", [Hit(target="orc", damage=4)])
        fanout = Fanout()
        old = fanout.read(app, "f", 4, 200, GM, heard=0, opening=True).messages
        app.delete("f")  # as another process would: this one hears nothing of it
        started(app, seed=2)
        app.record("f", [Hit(target="orc", damage=9)])
        new = fanout.read(app, "f", 4, 200, GM, heard=0, opening=True).messages
        assert b'"hp":11' in old[0].block and b'"hp":6' in new[0].block
