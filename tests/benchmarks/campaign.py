"""The cost of a campaign's record (issue 29): the roster after 100 fights of 200 events each.
Not a test.

    .venv/bin/python tests/benchmarks/campaign.py [--fights 100] [--events 200]

Writes the fights and the campaign into a fresh SQLite store (not timed): one dnd5e member
joined from the roster to each fight, then hits of 1 and heals of 1 by turns (her hit points
never reach 0). Times `campaign_show`, which folds the campaign's log and every fight it names,
in CPU seconds (user + system of this process), best of three, and checks the record it gives.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
from pathlib import Path

from woundlog.events import CharacterJoined, FightStarted, Heal, Hit
from woundlog.events.campaign import CampaignStarted, FightPlayed, MemberJoined
from woundlog.events.fight_ids import campaign_stream
from woundlog.replays.application import Application

HP = 50


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fights", type=int, default=100)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as folder,
        Application.opened(f"sqlite:{Path(folder) / 'campaign.db'}") as app,
    ):
        store = app.store
        stream = campaign_stream("long")
        store.append(
            stream,
            [CampaignStarted(ruleset="dnd5e"), MemberJoined(member="mira", stats={"hp": HP})],
            0,
        )
        for n in range(args.fights):
            fight = f"f{n}"
            moves = [
                Hit(target="mira", damage=1) if k % 2 == 0 else Heal(target="mira", amount=1)
                for k in range(args.events - 2)
            ]
            joined = CharacterJoined(character="mira", stats={"hp": HP})
            store.append(fight, [FightStarted(ruleset="dnd5e"), joined, *moves], 0)
            store.append(
                stream,
                [FightPlayed(fight=fight, members={"mira": "mira"})],
                store.version(stream),
            )
        times = []
        for _ in range(args.runs):
            began = cpu()
            view = app.campaign_show("long")
            times.append(cpu() - began)
    [mira] = view.members
    # each fight of an even number of moves ends where it began: a hit, then a heal
    assert len(mira.fights) == args.fights, mira
    print(f"fights: {args.fights}  events each: {args.events}  record: {mira.current}")
    print(f"campaign_show: {min(times):.2f} s CPU (best of {args.runs})")


if __name__ == "__main__":
    main()
