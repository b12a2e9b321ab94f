"""A campaign's record is its fights folded in order with their joins, injuries included, for any
undo in any fight (issue 38): Warhammer Quest's Serious Injuries, carried from fight to fight.

A 10-wound warrior with Toughness 4 is hit for 10 in each of several fights, each hit a Serious
Injury roll (a hit on a warrior on 0 wounds rolls again); each fight joins him from the record as
it then stood. Then any of those hits are retracted, in any fight, after all were played. The
record is worked out here from the text's table alone:

- 44 Chest Wound*: -1 Toughness; 42 Weakened Shield Arm* and 53 Deadened Nerve Endings: Chest*
  (Ignore Pain, which he has not, so no stat); 16 Internal Injury (unstarred: taken each time;
  it bleeds only at the end of a turn, and these fights have none); 61 Nothing Too Serious.
- "Any injury so marked will only be obtained once. Treat any further results of the same type
  as Nothing Too Serious": a starred result he already has, in what the fight began with (the
  record it joined from, an undo since notwithstanding: a fight's log is history) or gained
  earlier in the same fight, is nothing.
- A retracted hit rolled nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted, Hit
from woundlog.replays.application import Application

RESULTS = {
    44: ("Chest Wound", True, -1),
    42: ("Weakened Shield Arm", True, 0),
    16: ("Internal Injury", False, 0),
    53: ("Deadened Nerve Endings: Chest", True, 0),
    61: ("Nothing Too Serious", False, 0),
}
"""D66 result: the injury's name, starred, its change to Toughness (from the rule text)."""
TOUGHNESS = 4

fights = st.lists(
    st.lists(st.sampled_from(sorted(RESULTS)), min_size=1, max_size=3), min_size=1, max_size=4
)


def gained(rolls: list[int], brought: list[str]) -> list[str]:
    """The injuries a fight's rolls add, starting from those the fight began with."""
    has = list(brought)
    new = []
    for roll in rolls:
        name, starred, _ = RESULTS[roll]
        if roll == 61 or (starred and name in has):
            continue
        has.append(name)
        new.append(name)
    return new


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played=fights, data=st.data())
def test_the_record_is_the_fights_injuries_folded_in_order_after_any_undo(played, data) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("q", "warhammer_quest")
        app.campaign_join("q", "grundi", stats={"wounds": 10, "toughness": TOUGHNESS})
        hits: list[tuple[int, str, int]] = []  # (fight number, hit id, D66)
        for n, rolls in enumerate(played, start=1):
            app.create(f"f{n}", FightStarted(ruleset="warhammer_quest"))
            app.join_from_campaign(f"f{n}", "grundi", "q")
            for k, roll in enumerate(rolls):
                hit = Hit(
                    id=f"h{n}x{k}",
                    target="grundi",
                    damage=10,
                    rolls={"serious_injury": [roll // 10, roll % 10]},
                )
                app.record(f"f{n}", [hit])
                hits.append((n, f"h{n}x{k}", roll))
            app.campaign_record("q", f"f{n}")
        undone = data.draw(st.sets(st.sampled_from([hit for _, hit, _ in hits])))
        for n, hit, _ in hits:
            if hit in undone:
                app.campaign_undo("q", hit, fight=f"f{n}")

        # each fight began from the record as it stood before any undo (all came after)
        brought: list[str] = []
        joined_with = []
        for rolls in played:
            joined_with.append(list(brought))
            brought += gained(rolls, brought)
        # the record: each fight's live rolls, from what that fight began with
        expected: list[tuple[str, str]] = []
        for n in range(1, len(played) + 1):
            live = [roll for m, hit, roll in hits if m == n and hit not in undone]
            expected += [(name, f"f{n}") for name in gained(live, joined_with[n - 1])]
        [grundi] = app.campaign_show("q").members
        assert [(i.name, i.fight) for i in grundi.injuries] == expected
        chest = sum(1 for name, _ in expected if name == "Chest Wound")
        assert grundi.current["toughness"] == TOUGHNESS - chest
        for n in range(1, len(played) + 1):  # what each fight's log says he joined with
            joined = app.state(f"f{n}").characters["grundi"]
            assert list(joined.injuries[: len(joined_with[n - 1])]) == joined_with[n - 1]
