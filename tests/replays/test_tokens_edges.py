"""Revoking a fight's named token at its edge (issue 39, found missing by the mutation run): a
name the fight no longer has is refused and changes nothing, not even what a token of the pair
passes on (the stream tickets the other tokens were issued)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from woundlog.events import FightStarted
from woundlog.events.stores import open_store
from woundlog.events.stores.side import StreamTicket
from woundlog.replays.application.tokens import Tokens, digest
from woundlog.replays.application.values import NoSuchToken


def test_revoking_a_pairs_name_no_longer_held_is_refused_and_keeps_the_tickets(
    tmp_path: Path,
) -> None:
    with open_store(str(tmp_path / "tokens.db")) as store:
        store.append("f", [FightStarted(ruleset="mordheim")])
        tokens = Tokens(lambda: store)
        gm, _ = tokens.issue("f")
        tokens.revoke_named("f", "viewer")
        now = time.time()
        ticket = StreamTicket(digest("ticket"), "f", now + 60, digest(gm))
        with store.transaction():
            store.side.tickets.put(ticket, now)
        with pytest.raises(NoSuchToken, match="fight `f` has no token named `viewer`"):
            tokens.revoke_named("f", "viewer")
        assert store.side.tickets.find(digest("ticket"), now) == ticket  # the gm's stream
        assert [held.name for held in tokens.named("f")] == ["gm"]
