"""Handing out a fight's token at its edges (issue 39, found missing by the mutation run): with
no name, the next free default name; a bad name refused as such, before the fight is looked for; a
link's base, an http(s) URL with a host and no ? or # part."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from woundlog.events import FightStarted, UsageError
from woundlog.replays.application import Application
from woundlog.replays.application.sharing import base_url
from woundlog.replays.application.values import Role


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "share.db")) as opened:
        opened.create("f1", FightStarted(ruleset="mordheim"))
        yield opened


def test_a_token_handed_out_with_no_name_gets_the_next_free_default_name(
    app: Application,
) -> None:
    with app.kept_tokens() as keeper:
        first = app.hand_out("f1", keeper, Role.VIEWER, None, Role.ADMIN)
        second = app.hand_out("f1", keeper, Role.VIEWER, None, Role.GM)
        assert (first.name, second.name) == ("viewer-2", "viewer-3")
        assert [t.name for t in app.tokens_of("f1", keeper)] == ["viewer-2", "viewer-3"]


def test_a_bad_name_is_refused_as_such_before_the_fight_is_looked_for(app: Application) -> None:
    with app.kept_tokens() as keeper, pytest.raises(UsageError) as refused:
        app.hand_out("no-such-fight", keeper, Role.VIEWER, "bad\x1bname", Role.ADMIN)
    assert "token name" in refused.value.message and "no-such-fight" not in refused.value.message


def test_a_links_base_is_an_http_or_https_url_with_a_host_and_nothing_after_its_path() -> None:
    assert base_url("https://table.example:8443/woundlog/") == "https://table.example:8443/woundlog"
    for bad in ("ftp://table.example", "http://", "table.example:8000"):
        with pytest.raises(UsageError, match="give the service's base"):
            base_url(bad)
    for bad in ("http://table.example/?a=1", "http://table.example/#top"):
        with pytest.raises(UsageError, match="takes no \\? or # part"):
            base_url(bad)


def test_sharing_hands_out_a_viewer_token_alone_unless_a_gm_token_is_asked(
    app: Application,
) -> None:
    with app.kept_tokens() as keeper:
        shared = app.share("f1", keeper)
        assert shared.gm is None and "#viewer=" in shared.table
        assert [t.role for t in app.tokens_of("f1", keeper)] == [Role.VIEWER]
        assert app.share("f1", keeper, gm=True, name="phones").gm is not None
