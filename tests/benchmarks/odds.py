"""The odds benchmark of issue 17: a 3-tick what-if on a 6-character Warhammer Quest fight.

    .venv/bin/python tests/benchmarks/odds.py

Four warriors and two monsters; two warriors are Down (one of them bleeding), so each end of
turn rolls the Downed table for each, and Internal Injury's d3. The what-if is three turns
(start and end of each); the answer is every outcome's exact chance. Prints the wall time of
the enumeration (best of 5) beside a plain replay of the same events with drawn dice, and the
number of outcomes. Not a test: pytest never collects this folder.
"""

from __future__ import annotations

import time
from typing import Any

from woundlog.core import FightState
from woundlog.core.odds import exact, per_character, states_of
from woundlog.core.reducer import advance
from woundlog.events import CharacterJoined, Event, FightStarted, Hit, TurnEnded, TurnStarted


def fight() -> FightState[Any]:
    state: FightState[Any] | None = None
    for event in (
        FightStarted(ruleset="warhammer_quest", seed=17, version=2),
        *(
            CharacterJoined(character=c, kind="warrior", stats={"wounds": 8})
            for c in ("grundi", "elwen", "magnus", "brakk")
        ),
        CharacterJoined(character="orc", kind="monster", stats={"wounds": 6}),
        CharacterJoined(character="gorbag", kind="healer_monster", stats={"wounds": 5}),
        Hit(target="magnus", damage=8, attacker="orc", rolls={"serious_injury": [3, 3]}),
        Hit(target="brakk", damage=8, attacker="orc", rolls={"serious_injury": [1, 6]}),
    ):
        state = advance(state, event)
    assert state is not None
    return state


def best(run: Any, times: int = 5) -> float:
    seconds = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return min(seconds)


def main() -> None:
    state = fight()
    whatif: list[Event] = [e for _ in range(3) for e in (TurnStarted(), TurnEnded())]
    found = exact(state, whatif)
    enumerate_s = best(lambda: exact(state, whatif))

    def replay() -> None:
        now = state
        for event in whatif:
            now = advance(now, event)

    replay_s = best(replay)
    print(f"outcomes: {len(found)}")
    for who in ("magnus", "brakk"):
        chances = states_of(per_character(found, [who])[who])
        print(f"  {who}: " + ", ".join(f"{s} {float(c):.4f}" for s, c in chances.items()))
    print(f"enumeration {enumerate_s * 1000:.1f} ms, one drawn replay {replay_s * 1000:.2f} ms")


if __name__ == "__main__":
    main()
