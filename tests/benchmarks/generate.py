"""A long, realistic Mordheim fight as JSON Lines, for the benchmarks (not a test).

    python tests/benchmarks/generate.py OUT.jsonl [--events N] [--seed S]

The fight: 2-4 warbands of 20-50 fighters in all join, then round after round each side takes
its turn: its recovery phase (`turn_started` with the side), its fighters' hits on the enemy,
`turn_ended`. Most hits leave their injury dice to be drawn from the fight's seed; some carry
dice rolled by a virtual tabletop (`rolls`, now and then with a die the rules never use); many
are blows that did not wound (damage 0). A sprinkling of undo: the GM retracting or amending the
hit just recorded, retracting a harmless hit from a few turns back, and now and then retracting
such a retract. A few events come from other software with explicit ids, `by` and `at`.

A fight of a million events would, played straight, run out of fighters after a few hundred
hits. So the generator plays the rules alongside (Mordheim is simple enough to mirror in a few
lines, using woundlog's own `draw` for the dice the log leaves to the seed): it aims only at
fighters still in the fight, and lets an injury roll take a fighter out of action only at a
slow, steady rate that keeps every side above two fighters; a hit whose drawn die would take
a fighter out before then becomes a blow the armour held (damage 0) or one whose die the
recorder gives. Every event therefore applies (no void), and the
generator knows the state every fighter must end in: it writes it beside the log
(`OUT.expected.json`, also at the seqs passed as --checkpoint), and the benchmark checks the
library's replay against it.

Deterministic: one seeded `random.Random`, here only, never in the library.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from woundlog.core import draw
from woundlog.core.states import KNOCKED_DOWN, OUT_OF_ACTION, STUNNED, UPRIGHT

SIDES = {
    "reiklanders": ["Aldric", "Grim", "Brugo", "Lothar", "Ansel", "Dieter", "Kurt", "Jurgen"],
    "eshin": ["Snikkit", "Skrat", "Gnash", "Vrisk", "Tikk", "Quill", "Sleek", "Nibb"],
    "sisters": ["Hilde", "Agnete", "Brunhild", "Elsbeth", "Griselda", "Ilse", "Marta", "Ute"],
    "possessed": ["Vex", "Morgul", "Skarn", "Ulf", "Drago", "Karn", "Thrax", "Wulf"],
}
KINDS = ["hero", "henchman", "warrior"]
SEVERITY = {UPRIGHT: 0, KNOCKED_DOWN: 1, STUNNED: 2, OUT_OF_ACTION: 3}
INJURY = {roll: [KNOCKED_DOWN, STUNNED, OUT_OF_ACTION][(roll - 1) // 2] for roll in range(1, 7)}
UNDO_WINDOW = 1500
"""An undo of an older event names one at most this many events back (a few turns)."""
EPOCH = datetime.datetime(2024, 3, 9, 19, 0, tzinfo=datetime.UTC)


@dataclass
class Fighter:
    cid: str
    side: str
    wounds: int
    state: str = UPRIGHT


class Generator:
    def __init__(self, out: Any, events: int, seed: int, checkpoints: set[int]) -> None:
        self.rng = random.Random(seed)
        self.out = out
        self.total = events
        self.checkpoints = checkpoints
        self.expected: dict[str, Any] = {}
        self.seq = 0
        self.fight_seed = self.rng.randrange(2**32)
        self.fighters: dict[str, Fighter] = {}
        self.counts: dict[str, int] = {}
        self.explicit = 0
        self.harmless: deque[tuple[int, str]] = deque()  # recent damage-0 hits: (seq, name)
        self.far_retracts: deque[tuple[int, str]] = deque()  # recent retracts of those
        self.encoder = msgspec.json.Encoder()

    # --- writing ------------------------------------------------------------------------------

    def emit(self, event: dict[str, Any], *, explicit: bool = False) -> str:
        """Write one event; its name (`#N` or its id), by which dice and undo know it."""
        self.seq += 1
        name = f"#{self.seq}"
        if explicit:
            self.explicit += 1
            name = f"vtt-{self.explicit}"
            event = {
                "type": event.pop("type"),
                "id": name,
                "at": (EPOCH + datetime.timedelta(seconds=self.seq)).isoformat(),
                "by": "foundry",
                **event,
            }
        self.out.write(self.encoder.encode(event))
        self.out.write(b"\n")
        self.counts[event["type"]] = self.counts.get(event["type"], 0) + 1
        if self.seq in self.checkpoints:
            self.expected[str(self.seq)] = self.snapshot()
        return name

    def next_name(self, explicit: bool) -> str:
        """The name the next event will have (its dice are keyed by it)."""
        return f"vtt-{self.explicit + 1}" if explicit else f"#{self.seq + 1}"

    def snapshot(self) -> dict[str, list[Any]]:
        return {f.cid: [f.state, f.wounds] for f in self.fighters.values()}

    @property
    def room(self) -> int:
        return self.total - 1 - self.seq  # the last event is `fight_ended`

    # --- the fight ----------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        rng = self.rng
        self.emit(
            {
                "type": "fight_started",
                "ruleset": "mordheim",
                "seed": self.fight_seed,
                "name": "The long night at the Merchants' Quarter",
                "by": "gm",
                "note": "benchmark fight, generated",
            }
        )
        sides = rng.sample(sorted(SIDES), rng.randint(2, 4))
        cast = rng.randint(20, 50)
        # an out-of-action result is allowed at a steady rate: about a third of the cast by the end
        self.ooa_rate = cast / 3 / max(1, self.total * 0.12)
        self.floor = {side: 2 for side in sides}
        for i in range(cast):
            self.join(sides[i % len(sides)], i)
        round_ = 0
        while self.room > 0:
            round_ += 1
            if rng.random() < 0.5 and self.room > 0:
                self.emit({"type": "turn_started", "round": round_})
            for side in sides:
                self.side_turn(side, round_)
                if self.room <= 0:
                    break
        self.emit({"type": "fight_ended", "by": "gm"})
        return {
            "events": self.seq,
            "fight_seed": self.fight_seed,
            "sides": sides,
            "cast": cast,
            "counts": self.counts,
            "final": self.snapshot(),
            "at": self.expected,
        }

    def join(self, side: str, i: int) -> None:
        rng = self.rng
        base = SIDES[side][i // len(SIDES) % len(SIDES[side])]
        cid = f"{side[:3]}-{i}"
        kind = rng.choice(KINDS)
        wounds = 1 if kind == "henchman" else rng.choice([1, 1, 1, 2, 3])
        stats: dict[str, int] = {"wounds": wounds}
        if kind == "hero":
            stats |= {"movement": 4, "weapon_skill": rng.randint(3, 5), "toughness": 3}
        event: dict[str, Any] = {
            "type": "character_joined",
            "character": cid,
            "name": f"{base} {i}",
            "side": side,
            "kind": kind,
            "stats": stats,
        }
        if rng.random() < 0.5:
            event["gear"] = {"hand": rng.choice(["sword", "axe", "club", "spear", "claws"])}
        self.emit(event)
        self.fighters[cid] = Fighter(cid, side, wounds)

    def side_turn(self, side: str, round_: int) -> None:
        rng = self.rng
        if self.room <= 0:
            return
        # recovery phase: knocked down stands up, stunned turns face up
        for f in self.fighters.values():
            if f.side == side:
                if f.state == KNOCKED_DOWN:
                    f.state = UPRIGHT
                elif f.state == STUNNED:
                    f.state = KNOCKED_DOWN
        self.emit({"type": "turn_started", "round": round_, "side": side})
        attackers = [f for f in self.fighters.values() if f.side == side and f.state == UPRIGHT]
        for _ in range(rng.choice([0, 1, 2, 2, 3, 3, 4, 5, 6])):
            if self.room <= 1 or not attackers:
                break
            self.hit(rng.choice(attackers), side)
            self.maybe_undo()
        if self.room > 0:
            self.emit({"type": "turn_ended", "round": round_, "side": side})

    def hit(self, attacker: Fighter, side: str) -> None:
        rng = self.rng
        targets = [f for f in self.fighters.values() if f.side != side and f.state != OUT_OF_ACTION]
        target = rng.choice(targets)
        explicit = rng.random() < 0.002
        damage = rng.choices([0, 1, 2, 3], weights=[35, 50, 11, 4])[0]
        before = (target.wounds, target.state)
        event = self.blow(target, attacker, damage, self.next_name(explicit))
        name = self.emit(event, explicit=explicit)
        self.last = (name, target, before, attacker, self.seq)
        if event["damage"] == 0:
            self.harmless.append((self.seq, name))

    def blow(self, target: Fighter, attacker: Fighter, damage: int, name: str) -> dict[str, Any]:
        """The hit event, its dice settled, and its effect on `target` played."""
        rng = self.rng
        event: dict[str, Any] = {
            "type": "hit",
            "target": target.cid,
            "damage": damage,
            "attacker": attacker.cid,
        }
        wounds, rolls = target.wounds, 0
        for _ in range(damage):
            if wounds > 0:
                wounds -= 1
            if wounds == 0:
                rolls += 1
        live = sum(
            1 for f in self.fighters.values() if f.side == target.side and f.state != OUT_OF_ACTION
        )
        may_fall = live > self.floor[target.side] + 1 and rng.random() < self.ooa_rate
        given = rng.random() < 0.1
        values: list[int] = []
        if not given:
            values = [draw(self.fight_seed, name, "injury", i, 6) for i in range(rolls)]
            if not may_fall and any(INJURY[v] == OUT_OF_ACTION for v in values):
                if rng.random() < 0.5:  # the armour held after all: no wound, no roll
                    event["damage"] = 0
                    values = []
                    wounds, rolls = target.wounds, 0
                else:  # the recorder's own die stands in for one that would end him
                    given = True
        if given:
            top = 6 if may_fall else 4
            values = [rng.randint(1, top) for _ in range(rolls)]
            extra = [rng.randint(1, top)] if rng.random() < 0.2 or not values else []
            event["rolls"] = {"injury": values + extra}  # the extra die is reported unused
        state = target.state
        for v in values:
            if SEVERITY[INJURY[v]] > SEVERITY[state]:
                state = INJURY[v]
        target.wounds, target.state = wounds, state
        if rng.random() < 0.01:
            event["note"] = "from the rooftop" if damage else "the armour holds"
        return event

    def maybe_undo(self) -> None:
        rng = self.rng
        name, target, before, attacker, seq = self.last
        if self.room <= 1 or seq != self.seq:
            return
        roll = rng.random()
        if roll < 1 / 1500:  # the GM takes back the hit just recorded
            target.wounds, target.state = before
            if self.harmless and self.harmless[-1][0] == seq:
                self.harmless.pop()
            self.emit(
                {"type": "retract", "event": name, "reason": "wrong target", "by": "gm"},
                explicit=rng.random() < 0.1,
            )
        elif roll < 1 / 1500 + 1 / 3000:  # ... or corrects its damage
            target.wounds, target.state = before
            if self.harmless and self.harmless[-1][0] == seq:
                self.harmless.pop()
            damage = rng.choice([0, 1, 2])
            # the replacement is replayed in the hit's place, keeping its name and so its dice
            replacement = self.blow(target, attacker, damage, name)
            self.emit(
                {
                    "type": "amend",
                    "event": name,
                    "replacement": replacement,
                    "reason": "miscounted the wounds",
                    "by": "gm",
                }
            )
        elif roll < 1 / 1500 + 1 / 3000 + 1 / 2000:  # a harmless blow from a few turns back
            while self.harmless and self.harmless[0][0] < self.seq - UNDO_WINDOW:
                self.harmless.popleft()
            if self.harmless:
                old_seq, old = self.harmless[rng.randrange(len(self.harmless))]
                self.harmless.remove((old_seq, old))
                retract = self.emit(
                    {"type": "retract", "event": old, "reason": "never happened", "by": "gm"}
                )
                self.far_retracts.append((self.seq, retract))
        elif roll < 1 / 1500 + 1 / 3000 + 1 / 2000 + 1 / 15000:  # ... and that undo undone
            while self.far_retracts and self.far_retracts[0][0] < self.seq - UNDO_WINDOW:
                self.far_retracts.popleft()
            if self.far_retracts:
                _, old = self.far_retracts.popleft()
                self.emit({"type": "retract", "event": old, "reason": "it happened after all"})


def generate(path: Path, events: int, seed: int = 2024, checkpoints: tuple[int, ...] = ()) -> Any:
    """Write the fight to `path` and what the replay must give to `path`.expected.json."""
    if events < 200:
        raise ValueError("a benchmark fight has at least 200 events")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb", buffering=1 << 20) as out:
        summary = Generator(out, events, seed, set(checkpoints)).run()
    expected_path(path).write_text(json.dumps(summary, indent=1))
    return summary


def expected_path(path: Path) -> Path:
    return path.with_suffix(".expected.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--checkpoint", type=int, action="append", default=[])
    args = parser.parse_args()
    summary = generate(args.out, args.events, args.seed, tuple(args.checkpoint))
    print(json.dumps({k: summary[k] for k in ("events", "cast", "sides", "counts")}))


if __name__ == "__main__":
    main()
