"""Sharing a fight and its tokens at their edges, in one process over a real SQLite file, each
test written against a plausible slip no test noticed (issue 39, `tests/mutation/handwritten.py`):
who may do what with which token, the names a token gets, the links `share` makes, what revoking
or reissuing takes with it, and the side tables' rows of one fight, one format, one moment.
What is expected is the README's (`woundlog share`, the service's tokens) and the modules' own
documentation (replays/application/tokens.py, sharing.py, events/stores/side.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from woundlog.events import CharacterJoined, FightStarted, UsageError
from woundlog.events.stores.side import KeptAnswer, KeptContribution, StreamTicket
from woundlog.replays.application import Application
from woundlog.replays.application import tokens as tokens_module
from woundlog.replays.application.sharing import base_url
from woundlog.replays.application.tokens import Tokens, digest
from woundlog.replays.application.values import Role, TokenNameTaken, TokenNotYours


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "fights.db")) as opened:
        for fight in ("yard", "yard2"):
            opened.create(fight, FightStarted(ruleset="mordheim"))
            opened.record(
                fight, [CharacterJoined(character="grim", side="reavers", stats={"wounds": 1})]
            )
        yield opened


@pytest.fixture
def tokens(app: Application) -> Tokens:
    return Tokens(lambda: app.store, admin_token="the-admin")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each token issued a second after the one before (no two alike)."""
    seconds = itertools.count(1_000_000)
    monkeypatch.setattr(tokens_module.time, "time", lambda: float(next(seconds)))
    yield


def fragment(link: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(link).fragment)


# --- who may do what ---------------------------------------------------------------------------


def test_each_role_allows_what_the_readme_says_and_no_more(tokens: Tokens) -> None:
    gm, viewer = tokens.issue("yard")
    allowed = {
        who: [need for need in Role if tokens.grant(token).allows(need)]  # type: ignore[union-attr]
        for who, token in (("admin", "the-admin"), ("gm", gm), ("viewer", viewer))
    }
    assert allowed == {
        "admin": [Role.VIEWER, Role.GM, Role.ADMIN],
        "gm": [Role.VIEWER, Role.GM],
        "viewer": [Role.VIEWER],
    }


def test_a_gm_hands_out_and_revokes_viewer_tokens_only(app: Application, tokens: Tokens) -> None:
    app.hand_out("yard", tokens, Role.VIEWER, "phones", Role.GM)
    with pytest.raises(TokenNotYours, match="a gm token cannot issue a gm token"):
        app.hand_out("yard", tokens, Role.GM, "cogm", Role.GM)
    app.hand_out("yard", tokens, Role.GM, "cogm", Role.ADMIN)
    with pytest.raises(TokenNotYours, match="a gm token cannot revoke a gm token"):
        app.revoke_token("yard", tokens, "cogm", Role.GM)
    assert app.revoke_token("yard", tokens, "phones", Role.GM) is Role.VIEWER
    assert [t.name for t in app.tokens_of("yard", tokens)] == ["cogm"]


# --- names ---------------------------------------------------------------------------------------


def test_unnamed_tokens_are_named_role_2_then_3_in_their_own_fight(
    app: Application, tokens: Tokens
) -> None:
    tokens.issue("yard2")
    assert tokens.add("yard2", Role.VIEWER).name == "viewer-2"
    tokens.issue("yard")
    assert [tokens.add("yard", Role.VIEWER).name for _ in range(2)] == ["viewer-2", "viewer-3"]
    assert tokens.add("yard", Role.GM).name == "gm-2"
    assert [t.name for t in app.tokens_of("yard2", tokens)] == ["gm", "viewer", "viewer-2"]


def test_tokens_are_listed_oldest_first_not_by_name(
    app: Application, tokens: Tokens, clock: None
) -> None:
    for name in ("zed", "amy", "mid"):
        tokens.add("yard", Role.VIEWER, name)
    assert [t.name for t in app.tokens_of("yard", tokens)] == ["zed", "amy", "mid"]


def test_a_name_the_fight_holds_is_refused_and_its_token_keeps_working(tokens: Tokens) -> None:
    first = tokens.add("yard", Role.VIEWER, "phones")
    with pytest.raises(TokenNameTaken, match="already has a token named `phones`"):
        tokens.add("yard", Role.GM, "phones")
    still = tokens.grant(first.token)
    assert still is not None and still.role is Role.VIEWER
    tokens.add("yard2", Role.VIEWER, "phones")  # another fight's name is its own


# --- the links share makes -----------------------------------------------------------------------


def test_share_with_gm_opens_the_timeline_as_gm_and_the_table_as_viewer(
    app: Application, tokens: Tokens
) -> None:
    shared = app.share("yard", tokens, base="http://table.lan:8000/", gm=True, name="phones")
    assert shared.gm is not None and shared.gm.name == "phones-gm"
    assert shared.viewer.name == "phones"
    assert shared.timeline == f"http://table.lan:8000/fights/yard/#gm={shared.gm.token}"
    assert shared.table == f"http://table.lan:8000/fights/yard/table#viewer={shared.viewer.token}"
    assert shared.gm.token not in shared.table  # the QR code players scan never writes
    alone = app.share("yard", tokens)
    assert fragment(alone.timeline) == {"viewer": [alone.viewer.token]}


@pytest.mark.parametrize(
    ("given", "base"),
    [
        ("http://table.lan:8000/", "http://table.lan:8000"),
        ("https://woundlog.example/under/", "https://woundlog.example/under"),
    ],
)
def test_a_base_url_loses_its_trailing_slash(given: str, base: str) -> None:
    assert base_url(given) == base


@pytest.mark.parametrize("given", ["http://table.lan:8000/?x=1", "http://table.lan#top"])
def test_a_base_url_with_a_query_or_a_fragment_is_refused(given: str) -> None:
    with pytest.raises(UsageError, match="takes no \\? or # part"):
        base_url(given)


# --- what revoking or reissuing takes with it ---------------------------------------------------


def kept(app: Application, key: str, fight: str = "yard") -> None:
    answer = KeptAnswer(key, fight, "request", 201, b"sealed", expires=4e9)
    app.store.side.answers.put(answer, now=1.0)
    app.store.side.tickets.put(StreamTicket(digest(key), fight, 4e9), now=1.0)


def left(app: Application, key: str) -> tuple[bool, bool]:
    side = app.store.side
    return side.answers.find(key, 2.0) is not None, side.tickets.fight_of(
        digest(key), 2.0
    ) is not None


@pytest.mark.parametrize("name", ["gm", "viewer"])
def test_revoking_either_token_of_the_pair_forgets_the_answers_that_hold_it(
    app: Application, tokens: Tokens, name: str
) -> None:
    tokens.issue("yard")
    kept(app, "k1")
    kept(app, "k2", fight="yard2")
    tokens.revoke_named("yard", name)
    assert left(app, "k1") == (False, False)
    assert left(app, "k2") == (True, True)  # another fight's


def test_revoking_a_named_token_ends_the_tickets_but_keeps_the_pairs_answers(
    app: Application, tokens: Tokens
) -> None:
    tokens.issue("yard")
    tokens.add("yard", Role.VIEWER, "phones")
    kept(app, "k1")
    tokens.revoke_named("yard", "phones")
    assert left(app, "k1") == (True, False)


def test_reissuing_the_pair_ends_the_old_pair_its_answers_and_tickets(
    app: Application, tokens: Tokens
) -> None:
    old_gm, old_viewer = tokens.issue("yard")
    kept(app, "k1")
    new_gm, new_viewer = tokens.issue("yard")  # the admin's reissue
    assert tokens.grant(old_gm) is None and tokens.grant(old_viewer) is None
    assert tokens.grant(new_gm).role is Role.GM  # type: ignore[union-attr]
    assert tokens.grant(new_viewer).role is Role.VIEWER  # type: ignore[union-attr]
    assert left(app, "k1") == (False, False)


# --- the side tables: one fight's rows, one format's cursor, one moment ------------------------


def test_a_kept_answer_is_found_until_it_expires_and_dropped_by_a_later_put(
    app: Application,
) -> None:
    answers = app.store.side.answers
    answers.put(KeptAnswer("k1", "yard", "r", 201, b"a", expires=100.0), now=1.0)
    assert answers.find("k1", 99.5) is not None
    assert answers.find("k1", 100.0) is None  # expired at its time
    answers.put(KeptAnswer("k2", "yard", "r", 201, b"b", expires=300.0), now=200.0)
    assert answers.find("k1", 50.0) is None  # dropped from the table by the put after it
    assert answers.find("k2", 250.0) is not None


def test_a_ticket_opens_its_fight_until_it_expires_and_keeps_its_token(app: Application) -> None:
    tickets = app.store.side.tickets
    tickets.put(StreamTicket("t1", "yard", 100.0, token="hash-of-the-token"), now=1.0)
    assert tickets.fight_of("t1", 99.5) == "yard"
    assert tickets.fight_of("t1", 100.0) is None
    found = tickets.find("t1", 50.0)
    assert found is not None and found.token == "hash-of-the-token"


def test_a_fights_tokens_are_its_own(app: Application, tokens: Tokens) -> None:
    tokens.issue("yard")
    tokens.add("yard2", Role.VIEWER, "phones")
    assert sorted(k.name for k in app.store.side.tokens.of("yard")) == ["gm", "viewer"]
    assert [t.name for t in app.tokens_of("yard2", tokens)] == ["phones"]


def test_an_import_cursor_is_kept_per_format(app: Application) -> None:
    cursors = app.store.side.cursors
    cursors.put("yard", "avrae", {"round": 3})
    assert cursors.get("yard", "foundry") is None
    assert cursors.get("yard", "avrae") == {"round": 3}


def test_a_contribution_row_is_replaced_whole_by_the_fights_next_version(
    app: Application,
) -> None:
    rows = app.store.side.contributions
    rows.put(KeptContribution("yard", 2, "d2", b"two"))
    rows.put(KeptContribution("yard", 5, "d5", b"five"))
    assert rows.of(["yard"]) == {"yard": KeptContribution("yard", 5, "d5", b"five")}
