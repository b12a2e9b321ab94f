"""A decoded block's ids are cleared together (`all_cleared`: the hits', heals' and ticks' ids
gathered and tested as one string, issue 42): exactly when each event's own quick test
(`KNOWN_IDS`) clears it, whatever the ids hold, so a block of events with one id off its
pattern still takes the line-by-line way and its refusal."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.events import (
    CharacterJoined,
    Heal,
    Hit,
    Retract,
    StructuralError,
    TurnEnded,
    TurnOrder,
    TurnStarted,
    iter_jsonl,
)
from woundlog.events.model import KNOWN_IDS, all_cleared

# the characters that decide a quick test: a space, `#`, a control, an invisible one, a
# non-breaking space, letters
NAMES = st.one_of(
    st.none(),
    st.sampled_from(["grim", "a-1", "é"]),  # most often, so one bad id decides a whole block
    st.sampled_from(["grim", "a-1", "é"]),
    st.text(alphabet=["a", "-", "#", " ", "\t", "\x00", "\u200b", "\u00a0"], max_size=3),
)


@st.composite
def events(draw: st.DrawFn) -> Any:
    eid = draw(NAMES)
    kind = draw(st.sampled_from(["hit", "heal", "started", "ended", "joined", "retract", "order"]))
    if kind == "hit":
        return Hit(id=eid, target=draw(NAMES) or "", damage=1)
    if kind == "heal":
        return Heal(id=eid, target=draw(NAMES) or "", amount=1)
    if kind in ("started", "ended"):
        tick = TurnStarted if kind == "started" else TurnEnded
        return tick(id=eid, character=draw(NAMES))
    if kind == "joined":
        return CharacterJoined(id=eid, character=draw(NAMES) or "", side="x")
    if kind == "order":
        return TurnOrder(id=eid, order=[draw(NAMES) or "" for _ in range(draw(st.integers(0, 2)))])
    return Retract(id=eid, event=draw(NAMES) or "#1")


@settings(max_examples=400)
@given(st.lists(events(), max_size=4))
def test_a_block_is_cleared_exactly_when_each_of_its_events_is(block: list[Any]) -> None:
    assert all_cleared(block) == all(KNOWN_IDS[type(event)](event) for event in block)


def test_one_target_off_its_pattern_among_plain_lines_is_refused_with_its_line() -> None:
    lines = [b'{"type":"hit","target":"grim","damage":1}\n'] * 5
    assert [number for number, _ in iter_jsonl(lines)] == [1, 2, 3, 4, 5]
    lines[3] = b'{"type":"hit","target":"gr im","damage":1}\n'
    with pytest.raises(StructuralError, match="matching regex") as refused:
        list(iter_jsonl(lines))
    assert (refused.value.line, refused.value.field) == (4, "$.target")
