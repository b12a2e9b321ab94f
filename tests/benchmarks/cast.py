"""Per-event cost against the number of characters (issue 16; not a test).

    .venv/bin/python tests/benchmarks/cast.py [--events N] [--runs R]

Two Mordheim fights, each among 16, 40, 200 and 1,000 fighters on two sides, folded state-only
by `core.Fold` (as `replay_file_state` and `Fight.state` fold), events built in memory so that
decoding is left out:

  hits    N harmless hits spread over everyone (nothing moves: the cost of an event itself)
  turns   N events of turns: per side its recovery phase, three hits on the other side (their
          injury dice given: knocked down, stunned, or a blow that did not wound), the end of
          its turn; fighters fall and stand all the time, as in a battle

Each fight is folded three ways: as a fold does by default (the tick index kept once the fight
holds `INDEX_FROM` characters), with the index from the first character, and without one (every
tick walks its side). Prints the CPU microseconds per event, the best of R runs: the default
should stay flat as the cast grows, and below `INDEX_FROM` cost no more than walking.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Iterator

from woundlog.core.fight_state import INDEX_FROM
from woundlog.core.reducer import Fold
from woundlog.events import CharacterJoined, Event, FightStarted, Hit, TurnEnded, TurnStarted

CASTS = (16, 40, 200, 1000)
WAYS = {"default": INDEX_FROM, "index always": 0, "no index": None}
INJURIES = ([1], [3], None)  # knocked down, stunned, or (damage 0) no wound


def cast_of(size: int) -> list[Event]:
    log: list[Event] = [FightStarted(ruleset="mordheim", seed=16)]
    log += [
        CharacterJoined(character=f"c{i}", side="ab"[i % 2], stats={"wounds": 1})
        for i in range(size)
    ]
    return log


def harmless_hits(size: int, events: int) -> Iterator[Event]:
    for i in range(events):
        yield Hit(target=f"c{i % size}", damage=0)


def turns(size: int, events: int) -> Iterator[Event]:
    """Sides take turns; each hit lands on the next fighter of the other side in turn."""
    made, blow = 0, 0
    while made < events:
        for side, other in (("a", 1), ("b", 0)):
            yield TurnStarted(side=side)
            for _ in range(3):
                target = f"c{(2 * blow + other) % size}"
                injury = INJURIES[blow % len(INJURIES)]
                if injury is None:
                    yield Hit(target=target, damage=0)
                else:
                    yield Hit(target=target, damage=1, rolls={"injury": injury})
                blow += 1
            yield TurnEnded(side=side)
            made += 5


FIGHTS = {"hits": harmless_hits, "turns": turns}


def per_event(log: list[Event], index_from: int | None, runs: int) -> float:
    """CPU microseconds per event after the cast has joined, the best of `runs` folds."""
    joined = next(i for i, e in enumerate(log) if isinstance(e, Hit | TurnStarted))
    best = float("inf")
    for _ in range(runs):
        folding = Fold(index_from=index_from)
        for event in log[:joined]:
            folding.add(event)
        gc.collect()
        started = time.process_time()
        for event in log[joined:]:
            folding.add(event)
        best = min(best, time.process_time() - started)
    return best / (len(log) - joined) * 1e6


def table(events: int, runs: int) -> tuple[str, dict[str, dict[str, dict[int, float]]]]:
    """The table, and per fight, way of folding and cast size the CPU microseconds an event."""
    lines = [
        f"CPU us per event, best of {runs} folds of {events:,} events "
        f"(`INDEX_FROM` = {INDEX_FROM}: from that many characters on, a fold keeps the index)",
        "",
        "| fight | fold | " + " | ".join(f"{n:,} fighters" for n in CASTS) + " |",
        "|---|---|" + "---|" * len(CASTS),
    ]
    found: dict[str, dict[str, dict[int, float]]] = {}
    for fight, make in FIGHTS.items():
        logs = {size: cast_of(size) + list(make(size, events)) for size in CASTS}
        for way, index_from in WAYS.items():
            costs = {size: per_event(logs[size], index_from, runs) for size in CASTS}
            found.setdefault(fight, {})[way] = costs
            cells = [f"{costs[size]:.1f}" for size in CASTS]
            lines.append(f"| {fight} | {way} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n", found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(table(args.events, args.runs)[0])


if __name__ == "__main__":
    main()
