"""A campaign's record equals folding its fights in order, for any undo in any fight.

dnd5e hit points (SRD 5.1: damage lowers them; between fights nothing restores them without a
rest): a member on 100 hp takes a few small hits in each of several fights, each fight joined
from the record as it then stood; then any of those hits are retracted, in any fight, after all
were played. The record is computed here independently: 100 less every hit still live."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted, Hit
from woundlog.replays.application import Application

HP = 100

fights = st.lists(st.lists(st.integers(1, 5), min_size=1, max_size=3), min_size=1, max_size=4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damages=fights, data=st.data())
def test_the_record_is_the_fights_folded_in_order_after_any_undo(damages, data) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("west", "dnd5e")
        app.campaign_join("west", "mira", name="Mira", stats={"hp": HP})
        hits: list[tuple[str, str, int]] = []
        for n, fight_damages in enumerate(damages, start=1):
            fight = f"f{n}"
            app.create(fight, FightStarted(ruleset="dnd5e"))
            app.join_from_campaign(fight, "mira", "west")
            for k, damage in enumerate(fight_damages):
                hits.append((fight, f"h{n}x{k}", damage))
                app.record(fight, [Hit(id=f"h{n}x{k}", target="mira", damage=damage)])
            app.campaign_record("west", fight)
        undone = data.draw(st.sets(st.sampled_from([hit for _, hit, _ in hits])))
        for fight, hit, _ in hits:
            if hit in undone:
                app.campaign_undo("west", hit, fight=fight)
        live = sum(damage for _, hit, damage in hits if hit not in undone)
        [mira] = app.campaign_show("west").members
        assert mira.current["current_hp"] == HP - live
        # each fight after the first began from the record as it stood before any undo: it is
        # stale exactly when an undone hit came in an earlier fight
        stale = {p.fight for p in app.campaign_show("west").stale}
        first_undo = min((int(f[1:]) for f, h, _ in hits if h in undone), default=None)
        expected = {
            f"f{n}" for n in range(1, len(damages) + 1) if first_undo is not None and n > first_undo
        }
        assert stale == expected
