"""A long dnd5e fight with heals and death saves as JSON Lines, for the benchmarks (not a test).

    python tests/benchmarks/generate_dnd5e.py OUT.jsonl [--events N] [--seed S]

The fight: a party of 8 adventurers against 32 monsters on two sides (options
`monster_death_saves` and `revival`, so monsters fall dying too and the dead come back), round
after round: each side's turn starts (`turn_started` with the side and the round: the death saves
of its dying, drawn from the fight's seed, now and then given as `death_save@CHARACTER`), its
conscious creatures strike the other side (some blows critical on a creature at 0 hit points,
a few meant to knock out) and heal their own (potions and cure wounds on the hurt, spare the
dying and a Medicine check on the dying, temporary hit points, a revivify now and then on the
dead), and the turn ends. Now and then the GM retracts the blow just recorded.

Every event applies: the generator asks woundlog's own reducer (`core.advance`) where the fight
stands before choosing the next one, so it never strikes the dead nor lets the unconscious act.
Deterministic: one seeded `random.Random`, here only, never in the library. Prints a summary:
the counts of each type of event, and the final seq with every creature's state and hit points.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

from woundlog.core import advance
from woundlog.events import Event

PARTY = ["Tordek", "Mirabel", "Lyra", "Ansel", "Brenna", "Corwin", "Dain", "Elowen"]
MONSTERS = ["goblin", "hobgoblin", "orc", "gnoll", "bugbear", "kobold", "wolf", "skeleton"]
SIDES = ("party", "horde")
SEED = 5


def creatures() -> list[dict[str, Any]]:
    joined: list[dict[str, Any]] = []
    for i, name in enumerate(PARTY):
        hp = 18 + 4 * (i % 4)
        joined.append(
            {"character": f"pc-{i}", "name": name, "side": "party", "kind": "pc", "hp": hp}
        )
    for i in range(32):
        kind = MONSTERS[i % len(MONSTERS)]
        hp = 7 + 3 * (i % 5)
        joined.append(
            {
                "character": f"m-{i}",
                "name": f"{kind} {i}",
                "side": "horde",
                "kind": "monster",
                "hp": hp,
            }
        )
    return joined


def generate(out: Path, n: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    encode = msgspec.json.Encoder().encode
    decode = msgspec.json.Decoder(Event).decode
    counts: Counter[str] = Counter()
    state: Any = None
    lines: list[bytes] = []

    def record(event: dict[str, Any]) -> Any:
        """Write `event`, fold it in, and return the fight as it stood before it."""
        nonlocal state
        decoded = decode(encode(event))
        line = encode(decoded)  # as woundlog writes it (its fields in their order)
        before = state
        state = advance(state, decoded)
        if event["type"] == "retract":  # the blow it names (the one just before) never was
            state = msgspec.structs.replace(record.before, seq=state.seq)  # type: ignore[attr-defined]
        lines.append(line)
        counts[event["type"]] += 1
        record.before = before  # type: ignore[attr-defined]
        return before

    record(
        {
            "type": "fight_started",
            "ruleset": "dnd5e",
            "seed": rng.randrange(1 << 31),
            "version": 3,
            "name": "The siege of the Triboar stockade",
            "options": {"monster_death_saves": True, "revival": True},
            "by": "gm",
            "note": "benchmark fight, generated",
        }
    )
    for c in creatures():
        record(
            {
                "type": "character_joined",
                "character": c["character"],
                "name": c["name"],
                "side": c["side"],
                "kind": c["kind"],
                "stats": {"hp": c["hp"], "ac": 12 + rng.randrange(6)},
            }
        )
    round_ = 0
    while len(lines) < n - 1:
        round_ += 1
        for side in SIDES:
            if len(lines) >= n - 1:
                break
            _turn(record, rng, lambda: state, side, round_, n, lines)
    record({"type": "fight_ended"})
    final = state
    return {
        "events": len(lines),
        "counts": dict(counts),
        "final": {
            "seq": final.seq,
            "characters": {cid: [c.state, c.hp] for cid, c in final.characters.items()},
        },
        "lines": lines,
    }


def _turn(
    record: Any, rng: random.Random, now: Any, side: str, round_: int, n: int, lines: list[bytes]
) -> None:
    fight = now()
    start: dict[str, Any] = {"type": "turn_started", "side": side, "round": round_}
    dying = [cid for cid, c in fight.characters.items() if c.side == side and c.state == "downed"]
    if dying and rng.random() < 0.2:  # a table that rolls one of the saves itself
        start["rolls"] = {f"death_save@{rng.choice(dying)}": [rng.randint(1, 20)]}
    record(start)
    fight = now()
    acting = [cid for cid, c in fight.characters.items() if c.side == side and c.state == "upright"]
    rng.shuffle(acting)
    dead = sorted(
        cid for cid, c in fight.characters.items() if c.side == side and c.state == "dead"
    )
    if dead and (len(acting) < 3 or rng.random() < 0.3):  # a temple's priest, not a combatant
        record(
            {
                "type": "heal",
                "target": rng.choice(dead),
                "amount": rng.randint(1, 6),
                "means": "revivify",
                "healer": "priest",
            }
        )
    for actor in acting[: rng.randint(3, 8)]:
        if len(lines) >= n - 2:
            break
        fight = now()
        if fight.characters[actor].state != "upright":
            continue
        mine = {cid: c for cid, c in fight.characters.items() if c.side == side}
        theirs = {
            cid: c for cid, c in fight.characters.items() if c.side != side and c.state != "dead"
        }
        if rng.random() < 0.3 and _heal(record, rng, actor, mine):
            continue
        if not theirs:
            continue
        target = rng.choice(sorted(theirs))
        creature = theirs[target]
        hit: dict[str, Any] = {"type": "hit", "target": target, "attacker": actor}
        at_zero = creature.state in ("downed", "stabilised")
        hit["damage"] = rng.choice([0, 1, 2, 3]) if at_zero else rng.randint(0, 9)
        if at_zero and rng.random() < 0.2:
            hit["critical"] = True
        elif not at_zero and rng.random() < 0.05:
            hit["knock_out"] = True
        record(hit)
        if rng.random() < 0.02:  # the GM takes the blow back at once
            record({"type": "retract", "event": f"#{len(lines)}", "reason": "wrong token"})
    if len(lines) < n - 1:
        record({"type": "turn_ended", "side": side, "round": round_})


def _heal(record: Any, rng: random.Random, healer: str, mine: dict[str, Any]) -> bool:
    """A heal by `healer` of one of `mine` who needs it; False if nobody does."""
    dead = sorted(cid for cid, c in mine.items() if c.state == "dead")
    dying = sorted(cid for cid, c in mine.items() if c.state == "downed")
    hurt = sorted(cid for cid, c in mine.items() if c.state != "dead" and c.hp < c.max_hp)
    heal: dict[str, Any] = {"type": "heal", "healer": healer}
    if dead and rng.random() < 0.5:
        heal |= {"target": rng.choice(dead), "amount": 1, "means": "revivify"}
    elif dying and rng.random() < 0.4:
        target = rng.choice(dying)
        if rng.random() < 0.5:
            heal |= {"target": target, "amount": 0, "means": "spare_the_dying"}
        else:
            heal |= {
                "target": target,
                "amount": 0,
                "means": "medicine",
                "check": rng.randint(3, 20),
            }
    elif hurt:
        heal |= {
            "target": rng.choice(hurt),
            "amount": rng.randint(2, 12),
            "means": rng.choice(["potion", "cure_wounds"]),
        }
    elif rng.random() < 0.3:
        heal |= {
            "target": rng.choice(sorted(mine)),
            "amount": rng.randint(3, 8),
            "means": "temporary",
        }
    else:
        return False
    record(heal)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    made = generate(args.out, args.events, args.seed)
    args.out.write_bytes(b"\n".join(made.pop("lines")) + b"\n")
    print(json.dumps(made))


if __name__ == "__main__":
    main()
