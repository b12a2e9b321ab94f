"""Benchmark: single-event `POST /fights/{fight}/events` through a real `woundlog serve`, one
client, as the fight grows: appends per second and latency (p50, p99) per stretch of the fight.

Not a test (pytest never collects this folder). Run from the worktree's venv:

    .venv/bin/python tests/benchmarks/appends.py --events 3000            # SQLite
    .venv/bin/python tests/benchmarks/appends.py --events 3000 --postgres # also PostgreSQL

The fight is Mordheim with two fighters; the events are harmless hits (damage 0), so every one
is validated and folded like any other and the fight never ends. A snapshot is saved every 500
events (`snapshots.SNAPSHOT_EVERY`): without the in-memory fold cache, an append refolds every
event since the newest one, so its latency climbs between snapshots. The figures are printed as a
Markdown table, one row per stretch of `--every` events.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.replays.service.conftest import new_fight  # noqa: E402
from tests.replays.service.server import Server  # noqa: E402


def measure(server: Server, events: int, every: int) -> list[tuple[int, float, float, float]]:
    """(events so far, appends/s, p50 ms, p99 ms) of each stretch of `every` appends."""
    rows = []
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "bench")
        body = {"type": "hit", "target": "grim", "damage": 0}
        for start in range(0, events, every):
            latencies = []
            began = time.perf_counter()
            for _ in range(every):
                sent = time.perf_counter()
                answer = client.post("/fights/bench/events", json=body, headers=fight.gm)
                latencies.append(time.perf_counter() - sent)
                assert answer.status_code == 200, answer.text
            took = time.perf_counter() - began
            latencies.sort()
            rows.append(
                (
                    start + every,
                    every / took,
                    1000 * statistics.median(latencies),
                    1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
                )
            )
    return rows


def postgres_url(stack: ExitStack) -> str:
    from tests.postgres_server import fresh_database, server

    url = stack.enter_context(server())
    if url is None:
        raise SystemExit("no PostgreSQL server here (tests/postgres_server.py found none)")
    return fresh_database(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--every", type=int, default=250)
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL as well as SQLite")
    args = parser.parse_args()
    with ExitStack() as stack, tempfile.TemporaryDirectory() as scratch:
        stores: dict[str, str | Path] = {"SQLite": Path(scratch) / "bench.db"}
        if args.postgres:
            stores["PostgreSQL"] = postgres_url(stack)
        print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()}\n")  # fmt: skip
        for name, db in stores.items():
            with Server(db, logs=Path(scratch)) as running:
                rows = measure(running, args.events, args.every)
            print(f"### {name}\n\n| events | appends/s | p50 ms | p99 ms |\n|---:|---:|---:|---:|")
            for done, rate, p50, p99 in rows:
                print(f"| {done} | {rate:.0f} | {p50:.2f} | {p99:.2f} |")
            print()


if __name__ == "__main__":
    main()
