"""A fold's events that give no dice draw them through one `Draws` (issue 42: a die in one
call), named and emptied for each event in turn: every die is the one `Dice` draws for the same
event, purpose, character and draw version, and the event's name (`#N`) is put into words only
when a die reads it (`Context.event_id`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.core.dice import LEGACY_DRAW, SCOPED_DRAW, Dice, Draws
from woundlog.core.ruleset import Context
from woundlog.core.rulesets import get_ruleset

SIDES = {"injury": 6, "death_save": 20, "d66": 66}

rolls = st.lists(
    st.tuples(st.sampled_from(sorted(SIDES)), st.sampled_from([None, "brakk", "magnus"])),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    named=st.sampled_from([None, "blow-1", "x:y"]),
    seq=st.integers(1, 10_000),
    version=st.sampled_from([LEGACY_DRAW, SCOPED_DRAW]),
    events=st.lists(rolls, min_size=1, max_size=4),
)
def test_draws_draw_what_dice_draw_event_after_event(
    seed: int, named: str | None, seq: int, version: int, events: list[list[tuple[str, str | None]]]
) -> None:
    draws = Draws(seed, SIDES, version=version)
    for n, asked in enumerate(events):
        event_id = named if named is not None else f"#{seq + n}"
        draws.named, draws.seq, draws.drawn = named, seq + n, None
        dice = Dice(seed, event_id, {}, SIDES, version=version, records=False)
        assert [draws.roll(p, c) for p, c in asked] == [dice.roll(p, c) for p, c in asked]


def test_an_event_is_named_by_its_position_only_when_read() -> None:
    rules = get_ruleset("mordheim")
    ctx = Context("blow", lambda: None, rules.graph, {})  # type: ignore[arg-type, return-value]
    assert ctx.event_id == "blow"
    ctx.named, ctx.seq = None, 12
    assert ctx.event_id == "#12"
    ctx.event_id = "again"
    assert (ctx.named, ctx.event_id) == ("again", "again")
