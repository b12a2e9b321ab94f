"""Sharing across fights and campaigns with similar names (issue 39): a token opens its own
fight or campaign and no other, a name revoked in one leaves the same name in the others, and
Idempotency-Keys that share their first characters never share a kept answer.

Fights and campaigns are named alike (`f1`, `f10`, `f1-x`, `F1`, `f1.x`, a campaign `f1` beside
the fight `f1`); each gets its pair (`gm`, `viewer`), then tokens are handed out under names
alike (`viewer-2`, `viewer-20`, `Viewer-2`, ...) and revoked, in any order. What the README
and `application/tokens.py` promise, worked out here from a list of who was handed what:

- a name is unique in its fight (a second one refused), free in every other;
- a token opens exactly one fight or campaign, in its role, until revoked by its name there;
  revoking a name takes out that one token: the same name elsewhere, and the other tokens of
  its fight, keep working (and a name that is not there is refused, naming the ones that are);
- a kept answer is found by its own key alone: no other key, however alike, gets it.

Defects this catches (each checked by breaking the code, then restoring it):
- a name revoked in every fight that has it (`remove` in the stores' token table matching the
  name alone);
- a token that opens a fight whose id begins with its fight's (`Grant.covers` comparing
  prefixes)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted
from woundlog.events.fight_ids import campaign_stream
from woundlog.replays.application import Application
from woundlog.replays.application.tokens import Tokens, digest
from woundlog.replays.application.values import NoSuchToken, Role, TokenNameTaken
from woundlog.replays.service.idempotency import Answers, AnswerTaken, KeyReused

ADMIN = "an-admin-token-of-enough-characters"
FIGHTS = ["f1", "f10", "f1-x", "F1", "f1.x", "f"]
CAMPAIGNS = ["f1", "f10"]
NAMES = ["viewer-2", "viewer-20", "Viewer-2", "viewer", "gm-2", "v", "alice", "alice-gm"]
KEYS = ["k1", "k10", "k1-x", "K1", "k1 ", "k", "k11", " k1"]

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))


@contextmanager
def opened() -> Iterator[Application]:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "t.db")) as app,
    ):
        yield app


def made(app: Application) -> tuple[Tokens, list[str], dict[tuple[str, str], tuple[str, Role]]]:
    """Every fight and campaign with its pair: the tokens, the streams, who holds what."""
    for fight in FIGHTS:
        app.create(fight, FightStarted(ruleset="mordheim"))
    for campaign in CAMPAIGNS:
        app.campaign_new(campaign, "mordheim")
    tokens = Tokens(lambda: app.store, ADMIN)
    streams = [*FIGHTS, *(campaign_stream(c) for c in CAMPAIGNS)]
    held: dict[tuple[str, str], tuple[str, Role]] = {}
    for stream in streams:
        gm, viewer = tokens.issue(stream)
        held[stream, "gm"] = gm, Role.GM
        held[stream, "viewer"] = viewer, Role.VIEWER
    return tokens, streams, held


operations = st.lists(
    st.tuples(
        st.sampled_from(["add", "add", "revoke"]),
        st.sampled_from([*FIGHTS, *(campaign_stream(c) for c in CAMPAIGNS)]),
        st.sampled_from([*NAMES, "gm"]),
        st.sampled_from([Role.VIEWER, Role.GM]),
    ),
    max_size=12,
)


@SETTINGS
@given(done=operations)
def test_a_token_opens_its_own_fight_alone_and_a_name_revoked_is_revoked_there_alone(
    done: list[tuple[str, str, str, Role]],
) -> None:
    with opened() as app:
        tokens_opened(app, done)


def tokens_opened(app: Application, done: list[tuple[str, str, str, Role]]) -> None:
    tokens, streams, held = made(app)
    revoked: list[str] = []
    for what, stream, name, role in done:
        if what == "add":
            if (stream, name) in held:
                with pytest.raises(TokenNameTaken):
                    tokens.add(stream, role, name)
            else:
                issued = tokens.add(stream, role, name)
                assert (issued.fight, issued.name, issued.role) == (stream, name, role)
                held[stream, name] = issued.token, role
        elif (stream, name) in held:
            tokens.revoke_named(stream, name)
            revoked.append(held.pop((stream, name))[0])
        else:
            with pytest.raises(NoSuchToken):
                tokens.revoke_named(stream, name)

    for stream in streams:
        mine = {name for s, name in held if s == stream}
        assert {t.name for t in tokens.named(stream)} == mine, stream
    for (stream, name), (token, role) in held.items():
        grant = tokens.grant(token)
        assert grant is not None, (stream, name)
        assert grant.role is role
        assert [s for s in streams if grant.covers(s)] == [stream], (stream, name)
        assert [s for s in streams if tokens.still_valid(digest(token), s)] == [stream]
        if role is Role.VIEWER:
            assert not grant.allows(Role.GM)
    for token in revoked:
        assert tokens.grant(token) is None
        assert not any(tokens.still_valid(digest(token), s) for s in streams)
    admin = tokens.grant(ADMIN)
    assert admin is not None and all(admin.covers(s) for s in streams)


@SETTINGS
@given(
    kept=st.lists(st.sampled_from(KEYS), unique=True, max_size=len(KEYS)),
    fights=st.lists(st.sampled_from(FIGHTS), min_size=len(KEYS), max_size=len(KEYS)),
)
def test_keys_that_share_their_first_characters_never_share_a_kept_answer(
    kept: list[str], fights: list[str]
) -> None:
    with opened() as app:
        answers_kept(app, kept, fights)


def answers_kept(app: Application, kept: list[str], fights: list[str]) -> None:
    answers = Answers(lambda: app.store, b"s" * 32)
    store = app.store
    for n, key in enumerate(kept):
        with store.transaction():
            answers.keep_in(key, f"request {key}", fights[n], 201, f"answer {key}".encode())
    for key in KEYS:
        if key in kept:
            assert answers.recall(key, f"request {key}", lambda: True) == (
                201,
                f"answer {key}".encode(),
            )
            with pytest.raises(KeyReused):  # a key stands for its own request alone
                answers.recall(key, f"request {key}x", lambda: True)
            with pytest.raises(AnswerTaken), store.transaction():
                answers.keep_in(key, f"request {key}", "f", 201, b"another")
        else:  # alike to a kept one, maybe, but never kept itself
            for other in kept:
                assert answers.recall(key, f"request {other}", lambda: True) is None
            assert answers.recall(key, f"request {key}", lambda: True) is None
