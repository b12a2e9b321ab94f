"""A campaign's record is its fights folded in order with their joins, conditions included, for
any undo in any fight (issue 38): d26's Fatigued, which "stays even if they are later healed
... and lasts until removed (for example by rest)".

A 12-HP character is, in each of several fights, maybe brought to exactly 0 HP (Fatigued, no
injury: nothing is left over), maybe rested in the fight (a heal of means `rest`), and between
fights the party maybe rests; each fight joins them from the record as it then stood. Then any
of the blows and rests in the fights are retracted, after all were played. Worked out here from
the text alone: a fight begins Fatigued as the record it joined from said; the blow makes them
Fatigued, a rest in the fight or between fights removes it; the record says what the fight's
end says."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from woundlog.events import FightStarted
from woundlog.replays.application import Application

FATIGUED = "Fatigued"

fights = st.lists(
    st.tuples(st.booleans(), st.booleans(), st.booleans()),  # blow, rest in it, rest after it
    min_size=1,
    max_size=4,
)


def fatigued_after(began: bool, blow: bool, rest: bool) -> bool:
    """The blow comes first, then the rest."""
    now = began or blow
    return False if rest else now


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played=fights, data=st.data())
def test_fatigue_on_the_record_is_the_fights_folded_in_order_after_any_undo(
    played: list[tuple[bool, bool, bool]], data: st.DataObject
) -> None:
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(str(Path(folder) / "c.db")) as app,
    ):
        app.campaign_new("c", "d26")
        app.campaign_join("c", "mira", stats={"hp": 12})
        events: list[tuple[int, str]] = []
        began: list[bool] = []
        for n, (blow, rest, rest_after) in enumerate(played, start=1):
            app.create(f"f{n}", FightStarted(ruleset="d26"))
            app.join_from_campaign(f"f{n}", "mira", "c")
            began.append(app.state(f"f{n}").characters["mira"].fatigued)
            lines: list[dict[str, Any]] = []
            if blow:  # 12 on 12 HP: exactly 0, Fatigued, no injury
                lines.append({"type": "hit", "id": f"b{n}", "target": "mira", "damage": 12})
            if rest:
                lines.append({"type": "heal", "id": f"r{n}", "target": "mira", "amount": 1,
                              "means": "rest"})  # fmt: skip
            for line in lines:
                app.record_named(f"f{n}", [line])
                events.append((n, line["id"]))
            app.campaign_record("c", f"f{n}")
            if rest_after:
                app.campaign_rest("c")
        undone = data.draw(st.sets(st.sampled_from([e for _, e in events]))) if events else set()
        for n, event in events:
            if event in undone:
                app.campaign_undo("c", event, fight=f"f{n}")

        record = False
        for n, (blow, rest, rest_after) in enumerate(played, start=1):  # the joins, as they were
            assert began[n - 1] == record, n
            record = fatigued_after(record, blow, rest) and not rest_after
        record = False
        for n, (blow, rest, rest_after) in enumerate(played, start=1):  # the record now
            live_blow = blow and f"b{n}" not in undone
            live_rest = rest and f"r{n}" not in undone
            record = fatigued_after(began[n - 1], live_blow, live_rest) and not rest_after
        [mira] = app.campaign_show("c").members
        assert mira.conditions == ((FATIGUED,) if record else ())
