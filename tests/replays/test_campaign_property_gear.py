"""A campaign's record is its fights folded in order with their joins, gear included, for any
undo in any fight (issue 38): DragonQuest armour, "the Protection Rating of that suit of armor
reduced by 2 until repaired", carried from fight to fight, with repairs between fights.

A figure with Protection 5 takes Grievous Injuries in several fights, each fight joined from the
record as it then stood; between fights the GM may repair the armour; then any of those blows
are retracted, in any fight, after all were played. Worked out here from the text alone: each
Grievous Injury takes 2 off the armour it meets (never below 0); a fight's result is what it did
to the Protection it began with (a fight's log is history: it began from the record of its day);
a repair gives back the Protection he joined the campaign with, and one with nothing to repair
is refused (so, on the record as it stands after an undo, it does nothing)."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted, RuleError
from woundlog.replays.application import Application

ARMOUR = 5
STATS = {"fatigue": 20, "endurance": 30, "willpower": 12, "protection": ARMOUR, "shield": 0}

fights = st.lists(
    st.tuples(st.integers(0, 3), st.booleans()),  # Grievous Injuries, a repair after the fight
    min_size=1,
    max_size=4,
)


def grievous(hit_id: str) -> dict[str, Any]:
    return {"type": "hit", "id": hit_id, "target": "hugo", "damage": 1, "band": "grievous",
            "weapon": "A", "rolls": {"grievous": [1]}}  # fmt: skip


def after_blows(protection: int, blows: int) -> int:
    for _ in range(blows):
        protection = max(0, protection - 2)
    return protection


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played=fights, data=st.data())
def test_the_armour_on_the_record_is_the_fights_folded_in_order_after_any_undo(
    played: list[tuple[int, bool]], data: st.DataObject
) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", "dragonquest")
        app.campaign_join("c", "hugo", stats=STATS)
        hits: list[tuple[int, str]] = []
        joined_at: list[int] = []
        for n, (blows, repair) in enumerate(played, start=1):
            app.create(f"f{n}", FightStarted(ruleset="dragonquest"))
            app.join_from_campaign(f"f{n}", "hugo", "c")
            joined_at.append(app.state(f"f{n}").characters["hugo"].protection)
            for k in range(blows):
                app.record_named(f"f{n}", [grievous(f"g{n}x{k}")])
                hits.append((n, f"g{n}x{k}"))
            app.campaign_record("c", f"f{n}")
            if repair:
                with contextlib.suppress(RuleError):  # whole already: refused, nothing written
                    app.campaign_repair("c", "hugo", "armour")
        undone = data.draw(st.sets(st.sampled_from([h for _, h in hits]))) if hits else set()
        for n, hit in hits:
            if hit in undone:
                app.campaign_undo("c", hit, fight=f"f{n}")

        # the joins, as they happened (before any undo)
        record = ARMOUR
        for n, (blows, repair) in enumerate(played, start=1):
            assert joined_at[n - 1] == record, n
            record = after_blows(record, blows)
            if repair:
                record = ARMOUR
        # the record now: each fight's live blows on what that fight began with
        record = ARMOUR
        for n, (_, repair) in enumerate(played, start=1):
            live = sum(1 for m, hit in hits if m == n and hit not in undone)
            began = joined_at[n - 1]
            record += after_blows(began, live) - began
            if (
                repair and record != ARMOUR
            ) or repair:  # a repair of armour that was whole did nothing
                record = ARMOUR
        [hugo] = app.campaign_show("c").members
        assert hugo.current["protection"] == record
