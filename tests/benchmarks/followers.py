"""Followers (issue 42): the server's CPU per event with 0, 1, 10 and 100 pages following the
fight, before (each page reads the stream's notice, then GETs the whole state and the newest
moment of the timeline, as the table view did) and after (each page applies the stream's
`now` message; the server makes each event's messages once for all of them).

Not a test (pytest never collects this folder). Loopback only. Run from the worktree's venv:

    .venv/bin/python tests/benchmarks/followers.py --before /tmp/before   # a folder whose
        # woundlog/ links to the other version's events, core and replays (README.md says how)
    .venv/bin/python tests/benchmarks/followers.py --events 10 --batches 3

Each side runs its own `woundlog serve` on a fresh SQLite store with the same fight: dnd5e, two
player characters and two monsters, the followers viewer tokens (the players' view redacts the
monsters: bands), `--history` events (blows and heals) written before the followers open. Then
`--batches` batches of `--events` hits, one at a time: each append is answered, and every
follower has had its message (and, before, its two GETs answered) before the next is sent. The
figure is the server process's CPU time (user + system, /proc/PID/stat) over a batch divided by
its events; the median batch is shown. The followers and the appends run in this process, whose
CPU is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.replays.service.server import ADMIN, Server, bearer  # noqa: E402

FOLLOWERS = (0, 1, 10, 100)
ASKING = 8
"""Connections the followers' GETs share (before): the server's CPU is what is measured."""
TICKS = os.sysconf("SC_CLK_TCK")
MONSTER = {"type": "character_joined", "side": "foes", "kind": "monster"}
CAST = [
    {"type": "character_joined", "character": "ann", "name": "Ann", "side": "party", "kind": "pc",
     "stats": {"hp": 10_000, "ac": 14}},
    {"type": "character_joined", "character": "bo", "name": "Bo", "side": "party", "kind": "pc",
     "stats": {"hp": 10_000, "ac": 12}},
    {**MONSTER, "character": "ogre", "name": "Ogre", "stats": {"hp": 10_000, "ac": 11}},
    {**MONSTER, "character": "imp", "name": "Imp", "stats": {"hp": 10_000, "ac": 15}},
]  # fmt: skip


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def blow(n: int) -> dict[str, Any]:
    target = ("ann", "bo", "ogre", "imp")[n % 4]
    return {"type": "hit", "target": target, "damage": 1 + n % 3}


def past(n: int) -> dict[str, Any]:
    """The history's n-th event: blows, each pair of rounds healed, so nobody falls however
    long the history (10,000 hit points fall in about 20,000 blows)."""
    if n % 8 < 4:
        return blow(n)
    hurt = blow(n - 4)
    return {"type": "heal", "target": hurt["target"], "amount": hurt["damage"]}


class Follower:
    """One page: reads the stream; `refetch` (before) GETs the state and the newest moment."""

    def __init__(self, url: str, fight: str, token: str, first: int, refetch: bool) -> None:
        self.url, self.fight, self.token, self.first, self.refetch = (
            url,
            fight,
            token,
            first,
            refetch,
        )
        self.seen = first - 1
        self.ready = asyncio.Event()
        self.moved = asyncio.Condition()
        self.failed: BaseException | None = None

    async def run(self, client: httpx.AsyncClient, asking: httpx.AsyncClient) -> None:
        try:
            await self._read(client, asking)
        except Exception as error:  # said, not left to hang the batch
            async with self.moved:
                self.failed = error
                self.moved.notify_all()
            raise

    async def _read(self, client: httpx.AsyncClient, asking: httpx.AsyncClient) -> None:
        headers = bearer(self.token)
        async with client.stream(
            "GET", f"/fights/{self.fight}/stream", params={"from": self.first}, headers=headers
        ) as response:
            self.ready.set()
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line:
                    name, _, value = line.partition(":")
                    fields[name] = value.removeprefix(" ")
                    continue
                if fields.get("event") == "changes":
                    seq = int(fields["id"])
                    if self.refetch:  # what table.js did on each message
                        await asking.get(f"/fights/{self.fight}/state", headers=headers)
                        await asking.get(
                            f"/fights/{self.fight}/timeline",
                            params={"from": seq, "limit": 1},
                            headers=headers,
                        )
                    async with self.moved:
                        self.seen = seq
                        self.moved.notify_all()
                fields = {}

    async def reached(self, seq: int) -> None:
        async with self.moved:
            await self.moved.wait_for(lambda: self.seen >= seq or self.failed is not None)
        if self.failed is not None:
            raise RuntimeError(f"a follower failed: {self.failed!r}") from self.failed


async def measure(
    server: Server, followers: int, events: int, batches: int, history: int, refetch: bool
) -> float:
    fight = f"f{followers}"
    limits = httpx.Limits(max_connections=followers + 5)
    timeout = httpx.Timeout(300, pool=None)  # a loaded machine: slow, never dropped
    few = httpx.Limits(max_connections=ASKING)  # the GETs queue on a few connections
    async with (
        httpx.AsyncClient(base_url=server.url, timeout=timeout, limits=limits) as client,
        httpx.AsyncClient(base_url=server.url, timeout=timeout, limits=few) as asking,
    ):
        made = await client.post(
            "/fights", json={"fight": fight, "ruleset": "dnd5e"}, headers=bearer(ADMIN)
        )
        gm, viewer = made.json()["gm_token"], made.json()["viewer_token"]
        written = [*CAST, *(past(n) for n in range(history))]
        for start in range(0, len(written), 1000):
            answer = await client.post(
                f"/fights/{fight}/events", json=written[start : start + 1000], headers=bearer(gm)
            )
            if answer.status_code != 200:
                raise RuntimeError(f"history refused at {start}: {answer.text}")
            version = answer.json()["version"]
        pages = [
            Follower(server.url, fight, viewer, version + 1, refetch) for _ in range(followers)
        ]
        tasks = [asyncio.create_task(page.run(client, asking)) for page in pages]
        await asyncio.gather(*(page.ready.wait() for page in pages))
        await asyncio.sleep(0.5)
        per_event = []
        assert server.process is not None
        for batch in range(batches + 1):  # the first batch warms up, uncounted
            before = cpu_seconds(server.process.pid)
            for n in range(events):
                answer = await client.post(
                    f"/fights/{fight}/events", json=blow(batch * events + n), headers=bearer(gm)
                )
                version = answer.json()["version"]
                await asyncio.gather(*(page.reached(version) for page in pages))
            if batch:
                per_event.append((cpu_seconds(server.process.pid) - before) / events)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return statistics.median(per_event)


def side(label: str, env: dict[str, str], args: argparse.Namespace) -> dict[int, float]:
    figures: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as folder, Server(Path(folder) / "f.db", env=env) as server:
        for followers in args.followers:
            figures[followers] = asyncio.run(
                measure(
                    server, followers, args.events, args.batches, args.history,
                    refetch=label == "before",
                )
            )  # fmt: skip
            print(f"{label}: {followers} followers, {figures[followers] * 1000:.2f} ms/event",
                  file=sys.stderr)  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="PYTHONPATH of the version before")
    parser.add_argument("--events", type=int, default=10)
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--history", type=int, default=0)
    parser.add_argument(
        "--followers", type=lambda text: [int(n) for n in text.split(",")], default=FOLLOWERS
    )
    args = parser.parse_args()
    rows = {"after": side("after", {}, args)}
    if args.before is not None:
        rows = {"before": side("before", {"PYTHONPATH": str(args.before)}, args), **rows}
    print(f"\nserver CPU per event, ms (history {args.history} events; median of "
          f"{args.batches} batches of {args.events})\n")  # fmt: skip
    print("| followers | " + " | ".join(rows) + " |")
    print("|---|" + "---|" * len(rows))
    for followers in args.followers:
        cells = " | ".join(f"{rows[label][followers] * 1000:.2f}" for label in rows)
        print(f"| {followers} | {cells} |")


if __name__ == "__main__":
    main()
