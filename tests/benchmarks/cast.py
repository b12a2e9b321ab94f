"""Per-event cost against the number of characters (issue 16; not a test).

    .venv/bin/python tests/benchmarks/cast.py [--hits N]

A Mordheim fight of 40, then 1,000 fighters on two sides, then N hits (default 100,000) spread
over all of them, folded state-only (`fold_state`, as `replay_file_state` and `Fight.state`
fold). Prints the CPU time per hit for each cast: it should not grow with the cast. Events are
built in memory, so decoding is left out.
"""

from __future__ import annotations

import argparse
import time

from woundlog.events import CharacterJoined, Event, FightStarted, Hit
from woundlog.events.stores import Stored
from woundlog.replays.fold import fold_state
from woundlog.replays.undo import resolve


def per_hit(cast: int, hits: int) -> float:
    """CPU seconds per hit of a state-only fold of `hits` harmless hits among `cast` fighters."""
    log: list[Event] = [FightStarted(ruleset="mordheim")]
    log += [
        CharacterJoined(character=f"c{i}", side="ab"[i % 2], stats={"wounds": 3})
        for i in range(cast)
    ]
    log += [Hit(target=f"c{i % cast}", damage=0) for i in range(hits)]
    stream = [Stored(seq, event) for seq, event in enumerate(log, start=1)]
    undo = resolve((seq, None, event) for seq, event in enumerate(log, start=1))
    started = time.process_time()
    fold_state(stream, undo)
    return (time.process_time() - started) / hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hits", type=int, default=100_000)
    args = parser.parse_args()
    for cast in (40, 1000):
        print(f"{cast:>5} fighters: {per_hit(cast, args.hits) * 1e6:.1f} us per hit")


if __name__ == "__main__":
    main()
