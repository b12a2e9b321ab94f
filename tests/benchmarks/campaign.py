"""The cost of a campaign's record and of reading it (issues 29 and 37), per fight, as the
campaign grows: after 10, 100 and 1,000 fights of 200 events each. Not a test.

    .venv/bin/python tests/benchmarks/campaign.py [--fights 10,100,1000] [--events 200]
        [--runs 3] [--store sqlite|jsonl]

For each size, writes the fights and the campaign into a fresh store (not timed): one dnd5e
member joined to each fight, then hits of 1 and heals of 1 by turns (her hit points never reach
0), each fight named by a `fight_played`. Then times, in CPU seconds (user + system of this
process), the best of `--runs`:

  show, cold    `campaign_show` with no contribution kept: every fight folded (and kept)
  record        `campaign_record` of one more fight, played the same way: the k+1-th record
  show          `campaign_show` again: the fights read from their kept contributions

and divides each by the fights the campaign holds. Before issue 37 every read and every record
folded every fight (a record twice), so each column costs the same per fight at every size
and a record costs about twice a read; after, a record folds one fight, and a read checks each
kept contribution against its log (a few lookups) and folds none. Each run checks the record
it gives. Run it with `PYTHONPATH` pointing at a folder whose `woundlog/` links to another
version's `events`, `core` and `replays` to put two versions side by side.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
from collections.abc import Callable
from pathlib import Path

from woundlog.events import CharacterJoined, FightStarted, Heal, Hit
from woundlog.events.campaign import CampaignStarted, FightPlayed, MemberJoined
from woundlog.events.fight_ids import campaign_stream
from woundlog.events.stores import Store
from woundlog.replays.application import Application

HP = 50


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(work: Callable[[], object]) -> float:
    began = cpu()
    work()
    return cpu() - began


def write_fight(store: Store, fight: str, events: int) -> None:
    moves = [
        Hit(target="mira", damage=1) if k % 2 == 0 else Heal(target="mira", amount=1)
        for k in range(events - 2)
    ]
    joined = CharacterJoined(character="mira", stats={"hp": HP})
    store.append(fight, [FightStarted(ruleset="dnd5e"), joined, *moves], 0)


def measure(url: str, fights: int, events: int, runs: int) -> dict[str, float]:
    with Application.opened(url) as app:
        store = app.store
        stream = campaign_stream("long")
        store.append(
            stream,
            [CampaignStarted(ruleset="dnd5e"), MemberJoined(member="mira", stats={"hp": HP})],
            0,
        )
        for n in range(fights):
            write_fight(store, f"f{n}", events)
        played = [FightPlayed(fight=f"f{n}", members={"mira": "mira"}) for n in range(fights)]
        store.append(stream, played, store.version(stream))
        for n in range(runs):
            write_fight(store, f"more{n}", events)
        cold = timed(lambda: app.campaign_show("long"))
        record = []
        for n in range(runs):
            record.append(timed(lambda n=n: app.campaign_record("long", f"more{n}")))
        show = [timed(lambda: app.campaign_show("long")) for _ in range(runs)]
        [mira] = app.campaign_show("long").members
    # each fight of an even number of moves ends where it began: a hit, then a heal
    assert len(mira.fights) == fights + runs, mira
    assert mira.current["current_hp"] == HP, mira
    return {"show, cold": cold, "record": min(record), "show": min(show)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fights", default="10,100,1000")
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--store", choices=["sqlite", "jsonl"], default="sqlite")
    args = parser.parse_args()
    print(f"fights of {args.events} events, {args.store}; CPU seconds, best of {args.runs}")
    print("| fights | show, cold | per fight | record | per fight | show | per fight |")
    print("|---|---|---|---|---|---|---|")
    for fights in (int(n) for n in args.fights.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            where = Path(folder)
            url = f"jsonl:{where / 'log'}" if args.store == "jsonl" else str(where / "c.db")
            took = measure(url, fights, args.events, args.runs)
        cells = [
            f"{took[what]:.3f} s | {took[what] / fights * 1000:.2f} ms"
            for what in ("show, cold", "record", "show")
        ]
        print(f"| {fights:,} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
