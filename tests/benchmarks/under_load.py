"""Load test (issue 24): `/health` and ordinary appends keep answering while odds and timeline
requests at their bounds run against the same `woundlog serve`.

Not a test (pytest never collects this folder). Loopback only, bounded in count and time. Run
from the worktree's venv:

    .venv/bin/python tests/benchmarks/under_load.py                # 15 s of load, SQLite
    .venv/bin/python tests/benchmarks/under_load.py --seconds 30

Two phases against one server, each `--seconds` long: quiet (only the probes), then loaded. The
probes: one client asks `/health` every 50 ms, one appends single events (harmless hits) to a
fight of its own, one at a time. The load: `--odds` clients asking the odds of a hit of 600
wounds on a 2-wound Mordheim fighter, exact (refused at the step budget) and estimated at the
most samples allowed, all with one viewer token (so past two at once they get 429); and
`--timelines` clients asking a 5,000-event fight's timeline a full window (1000 events) at a
time. The figures are printed as a Markdown table: latency p50, p99 and max of each probe, and
how the load was answered.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.replays.service.conftest import Tokens, new_fight  # noqa: E402
from tests.replays.service.server import Server  # noqa: E402

MAX_SECONDS = 120.0
MAX_CLIENTS = 16
LONG_FIGHT = 5000
HEALTH_EVERY_S = 0.05
Send = Callable[[httpx.Client, int], httpx.Response]


class Probe(threading.Thread):
    """Sends one request after another until told to stop; keeps each one's latency and status."""

    def __init__(self, url: str, send: Send, pause: float = 0.0) -> None:
        super().__init__(daemon=True)
        self.url, self.send, self.pause = url, send, pause
        self.latencies: list[float] = []
        self.statuses: Counter[int | str] = Counter()
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=60) as client:
            number = 0
            while not self.stop.is_set():
                started = time.perf_counter()
                try:
                    status: int | str = self.send(client, number).status_code
                except httpx.HTTPError as error:
                    status = type(error).__name__
                self.latencies.append(time.perf_counter() - started)
                self.statuses[status] += 1
                number += 1
                if self.pause:
                    self.stop.wait(self.pause)


def ms(values: list[float], share: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))]:.1f}"


def row(name: str, probe: Probe) -> str:
    answered = ", ".join(f"{status}: {n}" for status, n in sorted(probe.statuses.items(), key=str))
    return (
        f"| {name} | {len(probe.latencies)} | {ms(probe.latencies, 0.5)} | "
        f"{ms(probe.latencies, 0.99)} | {ms(probe.latencies, 1.0)} | {answered} |"
    )


def set_up(client: httpx.Client) -> tuple[Tokens, Tokens, Tokens]:
    odds = new_fight(client, "odds", wounds=2)
    appends = new_fight(client, "appends")
    long = new_fight(client, "long")
    for start in range(0, LONG_FIGHT, 1000):
        ticks = [{"type": "turn_started", "round": n} for n in range(start, start + 1000)]
        done = client.post("/fights/long/events", json=ticks, headers=long.gm)
        assert done.status_code == 200, done.text
    return odds, appends, long


def phase(
    server: Server, tokens: tuple[Tokens, Tokens, Tokens], seconds: float, odds: int, timelines: int
) -> list[str]:
    fight_odds, fight_appends, long = tokens

    def health(client: httpx.Client, n: int) -> httpx.Response:
        return client.get("/health")

    def append(client: httpx.Client, n: int) -> httpx.Response:
        hit = {"type": "hit", "target": "grim", "damage": 0, "id": f"{time.time_ns()}-{n}"}
        return client.post("/fights/appends/events", json=hit, headers=fight_appends.gm)

    def ask_odds(client: httpx.Client, n: int) -> httpx.Response:
        body: dict[str, object] = {"hit": ["grim:600"]}
        if n % 2:
            body["samples"] = 25_000  # the most one event's estimate may take here
        return client.request("GET", "/fights/odds/odds", json=body, headers=fight_odds.viewer)

    def timeline(client: httpx.Client, n: int) -> httpx.Response:
        first = 1 + (n * 1000) % LONG_FIGHT
        return client.get(
            "/fights/long/timeline", params={"from": first, "limit": 1000}, headers=long.viewer
        )

    probes = {"`/health`": Probe(server.url, health, HEALTH_EVERY_S)}
    probes["append (1 event)"] = Probe(server.url, append)
    loads = {f"odds #{i + 1}": Probe(server.url, ask_odds) for i in range(odds)}
    loads |= {f"timeline #{i + 1}": Probe(server.url, timeline) for i in range(timelines)}
    everyone = [*probes.values(), *loads.values()]
    for each in everyone:
        each.start()
    time.sleep(seconds)
    for each in everyone:
        each.stop.set()
    for each in everyone:
        each.join(90)
    merged: dict[str, Probe] = dict(probes)
    for kind in ("odds", "timeline"):
        mine = [p for name, p in loads.items() if name.startswith(kind)]
        if mine:
            total = Probe(server.url, health)
            for p in mine:
                total.latencies += p.latencies
                total.statuses.update(p.statuses)
            merged[f"{kind} ({len(mine)} clients)"] = total
    return [row(name, probe) for name, probe in merged.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--odds", type=int, default=4)
    parser.add_argument("--timelines", type=int, default=2)
    asked = parser.parse_args()
    seconds = min(asked.seconds, MAX_SECONDS)
    odds, timelines = min(asked.odds, MAX_CLIENTS), min(asked.timelines, MAX_CLIENTS)
    with tempfile.TemporaryDirectory() as folder, Server(Path(folder) / "load.db") as server:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            tokens = set_up(client)
        quiet = phase(server, tokens, seconds, 0, 0)
        loaded = phase(server, tokens, seconds, odds, timelines)
    head = "| requests | count | p50 ms | p99 ms | max ms | answers |\n|---|---|---|---|---|---|"
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores")
    print(f"\nquiet, {seconds:g} s:\n\n{head}")
    print("\n".join(quiet))
    print(f"\nloaded ({odds} odds clients, {timelines} timeline clients), {seconds:g} s:\n\n{head}")
    print("\n".join(loaded))


if __name__ == "__main__":
    main()
