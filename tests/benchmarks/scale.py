"""The scale benchmarks of issue 14, in one command (not a test: pytest never collects this folder).

    .venv/bin/python tests/benchmarks/scale.py                 # everything, about 10 minutes
    .venv/bin/python tests/benchmarks/scale.py --quick         # a short look at each figure
    .venv/bin/python tests/benchmarks/scale.py --no-postgres   # SQLite only

1. Appends per second from 1, 8 and 32 concurrent clients, single events and batches of 10 and
   100, through real `woundlog serve` processes on loopback: one on SQLite, one on PostgreSQL,
   and two on one PostgreSQL database (the clients take turns between them). Each client appends
   to a fight of its own, as the tables of a club do; the events are harmless hits (damage 0),
   validated and folded like any other, and the fight never ends.
2. Single-append latency (p50, p99) at the start of a fight and after 100,000 events, loaded
   with the store directly (and a snapshot where `Fight.append` would have left its last one),
   then appended to through the service: it must not grow. The first append after the load is
   shown on its own: the service folds the fight then (from the snapshot), once.
3. `woundlog import FILE` of a 100,000- and a 1,000,000-event fight (generate.py: a long
   Mordheim fight with undo events in it), as a process of its own: wall time and peak RSS,
   and the imported fight's state checked against the generator's.

The clients are one asyncio process on the same machine as the servers, so on a small machine
they share its cores. Raw figures go to tests/benchmarks/out/scale/ (gitignored) and the tables
to tests/benchmarks/scale-results.md (or --results FILE), with the machine they came from.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

from tests.postgres_server import binaries, fresh_database, server  # noqa: E402
from tests.replays.service.conftest import Tokens, new_fight  # noqa: E402
from tests.replays.service.server import Server  # noqa: E402
from woundlog.events import Hit  # noqa: E402
from woundlog.events.stores import open_store  # noqa: E402
from woundlog.replays import snapshots  # noqa: E402
from woundlog.replays.fight import Fight  # noqa: E402

OUT = HERE / "out" / "scale"
TIME = Path("/usr/bin/time")
HIT = {"type": "hit", "target": "grim", "damage": 0}
CLIENTS = (1, 8, 32)
BATCHES = (1, 10, 100)
DEEP = 100_000
SEED = 2024


# --- 1. appends per second ------------------------------------------------------------------


async def client_loop(
    client: httpx.AsyncClient, fight: Tokens, size: int, until: float, latencies: list[float]
) -> None:
    body: Any = HIT if size == 1 else [HIT] * size
    while time.perf_counter() < until:
        sent = time.perf_counter()
        answer = await client.post(f"/fights/{fight.fight}/events", json=body, headers=fight.gm)
        if answer.status_code != 200:
            raise SystemExit(f"append refused: {answer.status_code} {answer.text}")
        latencies.append(time.perf_counter() - sent)


async def crowd(urls: list[str], fights: list[Tokens], size: int, seconds: float) -> dict[str, Any]:
    """`len(fights)` clients, each on its own fight, for `seconds`: what they got through."""
    limits = httpx.Limits(max_connections=len(fights) + 4)
    clients = [httpx.AsyncClient(base_url=url, timeout=60, limits=limits) for url in urls]
    try:
        latencies: list[list[float]] = [[] for _ in fights]
        # a short warm-up of every client: connections open, fights folded and kept
        await asyncio.gather(
            *(
                clients[n % len(clients)].post(
                    f"/fights/{fight.fight}/events", json=HIT, headers=fight.gm
                )
                for n, fight in enumerate(fights)
            )
        )
        began = time.perf_counter()
        until = began + seconds
        await asyncio.gather(
            *(
                client_loop(clients[n % len(clients)], fight, size, until, latencies[n])
                for n, fight in enumerate(fights)
            )
        )
        took = time.perf_counter() - began
    finally:
        for client in clients:
            await client.aclose()
    each = sorted(x for per_client in latencies for x in per_client)
    return {
        "requests": len(each),
        "events": len(each) * size,
        "seconds": took,
        "events_per_s": len(each) * size / took,
        "requests_per_s": len(each) / took,
        "p50_ms": 1000 * statistics.median(each),
        "p99_ms": 1000 * percentile(each, 0.99),
    }


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def server_cpu(servers: list[Server]) -> float:
    """CPU seconds (user + system) the server processes have used so far (Linux's /proc)."""
    total = 0.0
    for each in servers:
        assert each.process is not None
        fields = Path(f"/proc/{each.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def throughput(
    name: str, servers: list[Server], seconds: float, clients: tuple[int, ...]
) -> list[dict[str, Any]]:
    urls = [s.url for s in servers]
    with httpx.Client(base_url=urls[0], timeout=60) as setup:
        fights = [new_fight(setup, f"table-{n}") for n in range(max(clients))]
    rows = []
    for count in clients:
        for size in BATCHES:
            used = server_cpu(servers)
            figures = asyncio.run(crowd(urls, fights[:count], size, seconds))
            used = server_cpu(servers) - used
            row = {"store": name, "clients": count, "batch": size, **figures}
            # per append, warm-up included: the servers' own CPU, whatever else the machine runs
            row["server_cpu_ms"] = 1000 * used / (figures["requests"] + count)
            print(
                f"  {name}: {count} clients, batches of {size}: "
                f"{row['events_per_s']:.0f} events/s, p50 {row['p50_ms']:.1f} ms",
                file=sys.stderr,
            )
            rows.append(row)
    return rows


# --- 2. latency at the start of a fight and deep into one -----------------------------------


def single_appends(client: httpx.Client, fight: Tokens, count: int) -> list[float]:
    latencies = []
    for _ in range(count):
        sent = time.perf_counter()
        answer = client.post(f"/fights/{fight.fight}/events", json=HIT, headers=fight.gm)
        latencies.append(time.perf_counter() - sent)
        if answer.status_code != 200:
            raise SystemExit(f"append refused: {answer.status_code} {answer.text}")
    return latencies


def load_deep(db: str | Path, fight: str, events: int) -> float:
    """Put `events` harmless hits into `fight` with the store itself, and the snapshot that
    `Fight.append` would have saved last; the seconds it took."""
    began = time.perf_counter()
    with open_store(str(db)) as store:
        version = store.version(fight)
        step = 10_000
        for start in range(0, events, step):
            batch = [Hit(target="grim", damage=0) for _ in range(min(step, events - start))]
            version = store.append(fight, batch, version)
        seq = version - version % snapshots.SNAPSHOT_EVERY
        state = Fight(store, fight).state(seq)
        store.save_snapshot(fight, seq, snapshots.encode(state))
    return time.perf_counter() - began


def latency(name: str, db: str | Path, logs: Path, count: int, deep: int) -> list[dict[str, Any]]:
    rows = []
    with Server(db, logs=logs) as running, httpx.Client(base_url=running.url) as setup:
        shallow, far = new_fight(setup, "fresh"), new_fight(setup, "deep")
    loaded = load_deep(db, "deep", deep)
    print(f"  {name}: loaded {deep} events in {loaded:.1f}s", file=sys.stderr)
    with Server(db, logs=logs) as running, httpx.Client(base_url=running.url, timeout=120) as http:
        places = (("start of a fight", shallow, 3), ("deep", far, 3 + deep))
        first = {where: single_appends(http, fight, 1)[0] for where, fight, _ in places}
        for _, fight, _ in places:
            single_appends(http, fight, 20)  # warm
        # taken in turns, one append here and one there, so both see the machine alike
        times: dict[str, list[float]] = {where: [] for where, _, _ in places}
        for _ in range(count):
            for where, fight, _ in places:
                times[where] += single_appends(http, fight, 1)
        for where, _, before in places:
            each = sorted(times[where])
            rows.append(
                {
                    "store": name,
                    "where": where,
                    "events_before": before,
                    "appends": count,
                    "first_ms": 1000 * first[where],
                    "p50_ms": 1000 * statistics.median(each),
                    "p99_ms": 1000 * percentile(each, 0.99),
                    "appends_per_s": count / sum(each),
                }
            )
            print(f"  {name}, {where}: p50 {rows[-1]['p50_ms']:.2f} ms", file=sys.stderr)
    return rows


# --- 3. woundlog import ---------------------------------------------------------------------


def fight_file(events: int) -> Path:
    """The generated fight of `events` events, made once per version of generate.py."""
    digest = hashlib.sha256(f"{events} {SEED}".encode() + (HERE / "generate.py").read_bytes())
    path = OUT / f"fight-{events}-{digest.hexdigest()[:12]}.jsonl"
    if not path.exists() or not generate.expected_path(path).exists():
        began = time.perf_counter()
        generate.generate(path, events, SEED)
        print(f"  generated {path.name} in {time.perf_counter() - began:.0f}s", file=sys.stderr)
    return path


def woundlog(*args: str | Path) -> list[str]:
    return [sys.executable, "-c", "from woundlog.replays.cli import main; main()", *map(str, args)]


def timed(argv: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one process, from GNU
    time: of the child alone. CPU time says more than wall time on a machine shared with other
    work."""
    figures = OUT / ".time"
    command = [str(TIME), "-f", "%U %S %M", "-o", str(figures), *argv] if TIME.exists() else argv
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stdout}{done.stderr}")
    if not TIME.exists():
        return wall, 0.0, 0
    user, system, rss = figures.read_text().split()[-3:]
    return wall, float(user) + float(system), int(rss)


def import_file(events: int, scratch: Path) -> dict[str, Any]:
    path = fight_file(events)
    db = scratch / f"import-{events}.db"
    wall, cpu, rss = timed(woundlog("import", path, "--as", "imported", "--db", db))
    state = subprocess.run(
        woundlog("state", "imported", "--json", "--db", db), capture_output=True, text=True
    )
    found = json.loads(state.stdout)
    expected = json.loads(generate.expected_path(path).read_text())
    got = {cid: [c["state"], c["wounds"]] for cid, c in found["characters"].items()}
    ok = found["seq"] == events and got == expected["final"]
    counts = expected["counts"]
    row = {
        "events": events,
        "undo_events": counts.get("retract", 0) + counts.get("amend", 0),
        "wall_s": wall,
        "cpu_s": cpu,
        "events_per_s": events / wall,
        "rss_mb": rss / 1024,
        "state": "ok" if ok else "WRONG",
    }
    print(
        f"  import {events}: {wall:.1f}s ({cpu:.1f}s CPU), {rss / 1024:.0f} MB, {row['state']}",
        file=sys.stderr,
    )
    return row


# --- the machine and the report -------------------------------------------------------------


def machine() -> dict[str, str]:
    try:
        with open("/proc/cpuinfo") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        model = platform.processor() or platform.machine()
    found = binaries()
    postgres = "none"
    if found is not None:
        said = subprocess.run(
            [str(found / "postgres"), "--version"], capture_output=True, text=True
        )
        postgres = said.stdout.strip().removeprefix("postgres (PostgreSQL) ")
    return {
        "date": datetime.date.today().isoformat(),
        "nproc": str(os.cpu_count()),
        "cpu": model,
        "python": platform.python_version(),
        "postgresql": postgres,
        "os": platform.platform(),
        "load": f"{os.getloadavg()[0]:.1f}",
    }


def render(box: dict[str, str], results: dict[str, Any], command: str) -> str:
    lines = [
        "# Scale: concurrent appends, latency deep into a fight, a million-event import",
        "",
        f"`{command}`, {box['date']}, on {box['nproc']} cores of "
        f"{box['cpu']}, {box['os']}; Python {box['python']}, PostgreSQL {box['postgresql']} "
        "(a throwaway cluster on a Unix socket, `fsync=off` as in the tests: the figures are "
        "woundlog's, not the disk's). Servers and clients share the machine; its load average "
        f"(1 min) was {box['load']} at the start and {box.get('load_after', '?')} at the end "
        "(other work ran on it too: on a quiet machine the figures are higher).",
        "",
    ]
    if results.get("throughput"):
        lines += [
            "## Appends per second (each client on a fight of its own)",
            "",
            "| store | clients | events per append | events/s | appends/s | p50 ms | p99 ms "
            "| server CPU ms per append |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in results["throughput"]:
            lines.append(
                f"| {r['store']} | {r['clients']} | {r['batch']} | {r['events_per_s']:.0f} | "
                f"{r['requests_per_s']:.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | "
                f"{r['server_cpu_ms']:.1f} |"
            )
        lines += [
            "",
            "The server CPU per append is the figure least bent by other work on the machine: a "
            "`woundlog serve` process uses at most one core (Python's GIL), so on a quiet machine "
            "it sustains about 1000 / that many appends a second, and more processes on "
            "PostgreSQL add to it, up to the machine's cores.",
            "",
        ]
    if results.get("latency"):
        lines += [
            "## Single-event append latency: start of a fight, and after 100,000 events",
            "",
            "| store | where | events before | first append ms | p50 ms | p99 ms | appends/s |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for r in results["latency"]:
            lines.append(
                f"| {r['store']} | {r['where']} | {r['events_before']:,} | {r['first_ms']:.0f} | "
                f"{r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['appends_per_s']:.0f} |"
            )
        lines += [
            "",
            "The first append after the load folds the fight from its snapshot (once; the service "
            "then keeps the state); the timed appends are the next ones, one client, taking turns "
            "between the two fights so that both see the machine alike.",
            "",
        ]
    if results.get("imports"):
        lines += [
            "## `woundlog import FILE` (SQLite), a process of its own",
            "",
            "| events | undo events | wall s | CPU s | events/s (wall) | peak RSS MB | state |",
            "|---:|---:|---:|---:|---:|---:|---|",
        ]
        for r in results["imports"]:
            lines.append(
                f"| {r['events']:,} | {r['undo_events']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | "
                f"{r['events_per_s']:.0f} | {r['rss_mb']:.0f} | {r['state']} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs, 20,000-event import")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--seconds", type=float, help="per throughput figure (default 3; quick 1)")
    parser.add_argument(
        "--imports", type=str, help="comma-separated sizes (default 100000,1000000)"
    )
    parser.add_argument(
        "--skip", action="append", default=[], choices=["throughput", "latency", "import"]
    )
    parser.add_argument("--results", type=Path, default=HERE / "scale-results.md")
    args = parser.parse_args()
    seconds = args.seconds or (1.0 if args.quick else 3.0)
    sizes = [
        int(n) for n in (args.imports or ("20000" if args.quick else "100000,1000000")).split(",")
    ]
    deep = 10_000 if args.quick else DEEP
    count = 100 if args.quick else 500
    OUT.mkdir(parents=True, exist_ok=True)
    box = machine()
    results: dict[str, Any] = {"machine": box, "throughput": [], "latency": [], "imports": []}
    began = time.perf_counter()
    with ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=OUT)))
        pg = None if args.no_postgres else stack.enter_context(server())
        if pg is None and not args.no_postgres:
            raise SystemExit("no PostgreSQL here (tests/postgres_server.py found none)")
        if "throughput" not in args.skip:
            print("appends per second", file=sys.stderr)
            with Server(scratch / "crowd.db", logs=scratch) as one:
                results["throughput"] += throughput("SQLite", [one], seconds, CLIENTS)
            if pg is not None:
                db = fresh_database(pg)
                with Server(db, logs=scratch) as one:
                    results["throughput"] += throughput("PostgreSQL", [one], seconds, CLIENTS)
                db = fresh_database(pg)
                with Server(db, logs=scratch) as a, Server(db, logs=scratch) as b:
                    results["throughput"] += throughput(
                        "PostgreSQL, 2 processes", [a, b], seconds, CLIENTS
                    )
        if "latency" not in args.skip:
            print("latency", file=sys.stderr)
            results["latency"] += latency("SQLite", scratch / "deep.db", scratch, count, deep)
            if pg is not None:
                results["latency"] += latency(
                    "PostgreSQL", fresh_database(pg), scratch, count, deep
                )
        if "import" not in args.skip:
            print("import", file=sys.stderr)
            for size in sizes:
                results["imports"].append(import_file(size, scratch))
    results["seconds"] = time.perf_counter() - began
    box["load_after"] = f"{os.getloadavg()[0]:.1f}"
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    (OUT / f"scale-{stamp}.json").write_text(json.dumps(results, indent=1))
    command = "tests/benchmarks/scale.py " + " ".join(sys.argv[1:])
    text = render(box, results, command.strip())
    args.results.write_text(text + "\n")
    print(text)
    print(f"\n(all of it in {results['seconds']:.0f}s)", file=sys.stderr)
    (OUT / ".time").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
