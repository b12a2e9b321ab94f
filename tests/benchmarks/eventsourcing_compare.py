"""The same Mordheim fight folded back from SQLite by the `eventsourcing` library and by woundlog.

    .venv/bin/python tests/benchmarks/eventsourcing_compare.py [--events N] [--sizes A,B]

Needs the benchmark-only extra (`pip install -e '.[bench]'`: eventsourcing 9.5.6). Per size
(default 100,000 and 1,000,000 events, prefixes of one generated fight, see generate.py), three
stores of the same fight, each timed as a whole process that opens it and folds it back to the
final state, checked against the state the generator played to:

- eventsourcing: one `Aggregate` whose every event is one of woundlog's, stored by
  eventsourcing's own SQLite persistence (`PERSISTENCE_MODULE=eventsourcing.sqlite`, its JSON
  transcoder) and read back by `repository.get`, which applies each stored event in turn. An
  aggregate event carries the woundlog event as its JSON object and applies the same state
  change through woundlog's own reducer (`core.Fold`, the ruleset's handlers), so the two sides
  fold the very same rules: what differs is the machinery around them. eventsourcing has no
  retract or amend, so its events are the fight as it stands: a retracted event is stored as
  `Skipped` (it keeps its place, as in woundlog), an amended one as its replacement, an undo
  event as itself (it changes nothing). That is less work than woundlog does, which resolves
  its undo events on every read.
- woundlog, no snapshots: `Fight(store, FIGHT).state()` on a SQLite store of the events alone.
- woundlog, snapshots: the same on the store with a snapshot every 500 events (load.py).

Files go to tests/benchmarks/out/ and are reused while the generator, the loaders and N are
unchanged. Not a test: pytest never collects this folder.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any
from uuid import UUID

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import load  # noqa: E402
import run  # noqa: E402

FIGHT = "bench"
BATCH = 10_000
"""Aggregate events saved by one `Application.save` while the eventsourcing store is written."""
PREPARED = 1
"""Bump when `prepare_eventsourcing` stores other things, so older stores are remade."""


def _fight_aggregate() -> Any:
    """The aggregate class (es_fight.py), imported when first needed, so that this module
    imports without eventsourcing installed (and says how to install it)."""
    try:
        from es_fight import WoundlogFight
    except ImportError:
        raise SystemExit(
            "eventsourcing is not installed: pip install -e '.[bench]' (eventsourcing 9.5.6)"
        ) from None
    return WoundlogFight


def _application(db: Path) -> Any:
    try:
        from eventsourcing.application import Application
    except ImportError:
        raise SystemExit(
            "eventsourcing is not installed: pip install -e '.[bench]' (eventsourcing 9.5.6)"
        ) from None
    return Application(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(db)})


def as_it_stands(path: Path) -> Any:
    """The file's events as the fight stands: (None, None) for a retracted one, else the event
    folded in its place (an amended one's replacement), as woundlog's fold resolves them."""
    from woundlog.events import encode_json
    from woundlog.replays.files import _Events, scan_undo

    undo = scan_undo(path)
    named = {s.event.event for s in undo.events}  # type: ignore[union-attr]
    for stored in _Events(path, None):
        event = stored.event
        if f"#{stored.seq}" in named or (event.id is not None and event.id in named):
            fate = undo.fate(stored.seq, event)
            if fate is not None:
                event = fate.replacement
        yield None if event is None else json.loads(encode_json(event))


def prepare_eventsourcing(path: Path, db: Path) -> str:
    """Write the fight into eventsourcing's SQLite store; the aggregate's id."""
    load.remove_db(db)
    app = _application(db)
    fight = _fight_aggregate()()
    for count, body in enumerate(as_it_stands(path), start=1):
        if body is None:
            fight.skip()
        else:
            fight.fold(body)
        if count % BATCH == 0:
            app.save(fight)
    app.save(fight)
    return str(fight.id)


def prepare(out: Path, n: int, sizes: list[int], fresh: bool) -> dict[str, Any]:
    """The fight and its prefixes, and per size the three stores (or reuse them: the
    eventsourcing one while the fight is the same, woundlog's while the rules are too, since a
    snapshot holds only for the rules that folded it)."""
    from woundlog.replays.snapshots import rules_fingerprint

    files = run.prepare_files(out, n, sizes, fresh)
    stamp_path = out / f"eventsourcing-{n}.stamp.json"
    fight_stamp = f"{run.fingerprint(n)}-{PREPARED}"
    rules_stamp = rules_fingerprint().hex()
    kept = json.loads(stamp_path.read_text()) if stamp_path.exists() and not fresh else {}
    stores: dict[str, Any] = kept.get("stores", {}) if kept.get("stamp") == fight_stamp else {}
    for size in sizes:
        path = Path(files["files"][str(size)])
        store = stores.get(str(size), {})
        es_db = out / f"fight-{n}-{size}-eventsourcing.db"
        if "aggregate" not in store or not es_db.exists():
            started = time.perf_counter()
            store = {"es_db": str(es_db), "aggregate": prepare_eventsourcing(path, es_db)}
            took = time.perf_counter() - started
            print(f"eventsourcing store of {size:,} events written in {took:.0f}s", file=sys.stderr)
        db, bare = out / f"fight-{n}-{size}.db", out / f"fight-{n}-{size}-no-snapshots.db"
        if store.get("rules") != rules_stamp or not (db.exists() and bare.exists()):
            started = time.perf_counter()
            loaded = load.load(path, db, bare, FIGHT)
            took = time.perf_counter() - started
            print(f"woundlog stores of {size:,} events written in {took:.0f}s", file=sys.stderr)
            store.update(db=str(db), bare_db=str(bare), rules=rules_stamp)
            store["snapshot"] = loaded.snapshot_for(size)
        stores[str(size)] = store
        stamp_path.write_text(json.dumps({"stamp": fight_stamp, "stores": stores}))
    return {"stores": stores, "summary": files["summary"]}


def fold_eventsourcing(db: str, aggregate: str) -> dict[str, Any]:
    """A child process: eventsourcing reads the aggregate back from SQLite, folding each event."""
    _fight_aggregate()  # the aggregate's class must exist for its events' topics to resolve
    app = _application(Path(db))  # kept: its connection pool closes when it goes
    fight = app.repository.get(UUID(aggregate))
    state = fight.folding.state
    return {
        "seq": state.seq,
        "characters": {cid: [c.state, c.wounds] for cid, c in state.characters.items()},
    }


def compare(
    out: Path, n: int, sizes: list[int], fresh: bool, runs: int, es_runs: int | None = None
) -> tuple[str, dict[int, dict[str, tuple[float, float]]]]:
    """The table, and per size the (wall, CPU) seconds of `eventsourcing` (the median of
    `es_runs`, default `runs`: its fold of a million events takes minutes), `woundlog` (no
    snapshots) and `snapshots` (woundlog with them), medians of `runs`."""
    es_runs = runs if es_runs is None else es_runs
    kept = prepare(out, n, sizes, fresh)
    summary = kept["summary"]
    from importlib.metadata import version

    me = [sys.executable, str(Path(__file__).resolve())]
    py = [sys.executable, str(HERE / "measure.py")]
    lines = [
        f"Command: `.venv/bin/python tests/benchmarks/eventsourcing_compare.py --events {n} "
        f"--sizes {','.join(map(str, sizes))} --runs {runs}`",
        "",
        f"Machine: {run.cpu()}, {os.cpu_count()} CPUs; {platform.python_implementation()} "
        f"{platform.python_version()}; eventsourcing {version('eventsourcing')}. Each figure "
        f"is one whole process that opens the store and folds the fight to its end, the median "
        f"of {runs} runs (eventsourcing: {es_runs}); wall seconds, CPU seconds in brackets. Every "
        "state was checked against the one the generator played to.",
        "",
        "| events | eventsourcing, SQLite | woundlog, no snapshots | woundlog, snapshots "
        "| eventsourcing / woundlog no snapshots | eventsourcing / woundlog snapshots |",
        "|---|---|---|---|---|---|",
    ]
    found: dict[int, dict[str, tuple[float, float]]] = {}
    for size in sizes:
        store = kept["stores"][str(size)]
        expected = summary["final"] if size == n else summary["at"][str(size)]
        figures = []
        for argv, times in (
            ([*me, "--child", store["es_db"], store["aggregate"]], es_runs),
            ([*py, "sqlite-state", store["bare_db"], FIGHT], runs),
            ([*py, "sqlite-state", store["db"], FIGHT], runs),
        ):
            wall, cpu, _, text = run.timed(argv, runs=times)
            verdict = run.check(text, expected, size)
            if verdict != "ok":
                raise SystemExit(f"{argv[-2:]}: {verdict}")
            figures.append((wall, cpu))
        found[size] = dict(zip(("eventsourcing", "woundlog", "snapshots"), figures, strict=True))
        (es, es_cpu), (bare, bare_cpu), (snap, snap_cpu) = figures
        row = (
            f"| {size:,} | {es:.2f} ({es_cpu:.2f}) | {bare:.2f} ({bare_cpu:.2f}) "
            f"| {snap:.2f} ({snap_cpu:.2f}) | {es / bare:.1f}x ({es_cpu / bare_cpu:.1f}x) "
            f"| {es / snap:.0f}x ({es_cpu / snap_cpu:.0f}x) |"
        )
        print(row, file=sys.stderr)
        lines.append(row)
    return "\n".join(lines) + "\n", found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--sizes", help="comma-separated prefixes (default N/10,N)")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--fresh", action="store_true", help="remake the fight and the stores")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (median)")
    args = parser.parse_args()
    n: int = args.events
    sizes = sorted(int(s) for s in args.sizes.split(",")) if args.sizes else [n // 10, n]
    if max(sizes) > n:
        parser.error("--sizes are prefixes of the fight: none may exceed --events")
    print(compare(args.out, n, sizes, args.fresh, args.runs)[0])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(fold_eventsourcing(sys.argv[2], sys.argv[3])))
    else:
        main()
