"""The reference of issue 16's table: a minimal Python fold of the benchmark's Mordheim fight.

Not woundlog and not a test: what a hand-written loop for this one ruleset costs, to put the
engine's replay beside it. It gives the same answer as `replay_file_state` on the fights
generate.py writes (run.py checks it): the same undo (woundlog's own first pass finds the undo
events, `replays.files.scan_undo`), the same dice (`core.draw`, keyed as the engine keys them),
the same injury table and recovery phase. What it leaves out is everything the engine does for
every ruleset and every log: no checks that an event may apply (facts, who may act, an ended
fight, the Machine's moves), no explanation, no refusal, mutable per-fighter lists instead of
frozen Structs. It knows nothing of the events generate.py never writes (heals, choices,
checks, a turn of one character), and version 1 draws only: it is a yardstick, not a replay.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from woundlog.core import draw
from woundlog.core.states import KNOCKED_DOWN, OUT_OF_ACTION, STUNNED, UPRIGHT
from woundlog.events import CharacterJoined, Event, FightStarted, Hit, TurnEnded, TurnStarted
from woundlog.replays.files import scan_undo

SEVERITY = {UPRIGHT: 0, KNOCKED_DOWN: 1, STUNNED: 2, OUT_OF_ACTION: 3}
INJURY = [None, KNOCKED_DOWN, KNOCKED_DOWN, STUNNED, STUNNED, OUT_OF_ACTION, OUT_OF_ACTION]
STATE, WOUNDS, HALF_RATE = 0, 1, 2  # a fighter: [state, wounds, half rate]


def minimal_fold(path: str | Path) -> dict[str, Any]:
    """`measure.summary` of the fight in `path`: its last seq and each fighter's state and
    wounds."""
    undo = scan_undo(Path(path), None)
    seqs, ids = undo.named_seqs, undo.named_ids
    decode = msgspec.json.Decoder(Event).decode
    fighters: dict[str, list[Any]] = {}
    sides: dict[str, list[list[Any]]] = {}
    seed = 0
    seq = 0
    with open(path, "rb") as lines:
        for raw in lines:
            seq += 1
            event: Event | None = decode(raw)
            assert event is not None
            if seq in seqs or event.id in ids:
                fate = undo.fate(seq, event)
                if fate is not None:
                    event = fate.replacement
                    if event is None:
                        continue
            if isinstance(event, Hit):
                given = event.rolls.get("injury", []) if event.rolls else []
                name = event.id or f"#{seq}"
                hit(fighters, seed, name, event.target, event.damage, event.attacker, given)
            elif isinstance(event, TurnStarted):
                if event.side is not None:
                    for fighter in sides[event.side]:
                        recovery_phase(fighter)
            elif isinstance(event, TurnEnded):
                for fighter in sides[event.side] if event.side else fighters.values():
                    fighter[HALF_RATE] = False
            elif isinstance(event, CharacterJoined):
                fighter = [UPRIGHT, event.stats.get("wounds", 1), False]
                fighters[event.character] = fighter
                sides.setdefault(event.side or "", []).append(fighter)
            elif isinstance(event, FightStarted):
                seed = event.seed
    return {
        "seq": seq,
        "characters": {cid: [f[STATE], f[WOUNDS]] for cid, f in fighters.items()},
    }


def hit(
    fighters: dict[str, list[Any]],
    seed: int,
    name: str,
    target: str,
    damage: int,
    attacker: str | None,
    given: list[int],
) -> None:
    """The injury roll for every wound from the one that takes him to zero, the worst kept.
    Plain values, not the `Hit`: es_own_fold.py's aggregate folds its own events with it."""
    hurt = fighters[target]
    if attacker is not None:
        by = fighters.get(attacker)
        if by is not None and by[STATE] != UPRIGHT:
            return  # void, as the engine voids it
    if hurt[STATE] == OUT_OF_ACTION or damage == 0:
        return
    past = max(0, damage - max(hurt[WOUNDS] - 1, 0))
    worst = hurt[STATE]
    for i in range(past):
        roll = given[i] if i < len(given) else draw(seed, name, "injury", i, 6)
        result = INJURY[roll]
        if SEVERITY[result] > SEVERITY[worst]:
            worst = result
        if result == OUT_OF_ACTION:
            break
    hurt[WOUNDS] = max(hurt[WOUNDS] - damage, 0)
    hurt[STATE] = worst


def recovery_phase(fighter: list[Any]) -> None:
    if fighter[STATE] == KNOCKED_DOWN:
        fighter[STATE], fighter[HALF_RATE] = UPRIGHT, True
    elif fighter[STATE] == STUNNED:
        fighter[STATE], fighter[HALF_RATE] = KNOCKED_DOWN, False
    else:
        fighter[HALF_RATE] = False
