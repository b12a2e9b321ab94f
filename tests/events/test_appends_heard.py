"""Which stores tell a server the appends other processes commit (`appends_heard`): PostgreSQL,
which several processes write to at once, and no store of one machine. What is heard, and a
lost connection heard again, are proved against a real server in
tests/replays/service/test_postgres.py (a stream on one process woken by an append through
the other, and after the database drops every connection)."""

from __future__ import annotations

import pytest

from woundlog.events.stores import appends_heard


@pytest.mark.parametrize("url", ["fights.db", "sqlite:///tmp/fights.db", "jsonl:///tmp/fights"])
def test_a_store_of_one_machine_tells_no_appends(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WOUNDLOG_DB", raising=False)
    assert appends_heard(url) is None


def test_postgresql_tells_them_named_by_the_url_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("WOUNDLOG_DB", raising=False)
    assert appends_heard(None) is None
    assert appends_heard("postgresql://localhost/woundlog") is not None
    monkeypatch.setenv("WOUNDLOG_DB", "postgres://localhost/woundlog")
    assert appends_heard(None) is not None
    assert appends_heard("fights.db") is None  # the URL given wins over the environment
