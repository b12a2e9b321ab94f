"""Issue 37: a window of a long JSON Lines fight, read by offset. Times, in one process each,
`read(fight, N-99, N)` and `version` of the store and the application's `timeline` window of
100 events at the end, the first time (the index is made) and the second, at N events.

    .venv/bin/python tests/benchmarks/jsonl_window.py --events 100000

Compare versions with PYTHONPATH pointing at a folder whose `woundlog/` holds the other
version (tests/benchmarks/README.md). The timeline also folds every event before the window
(the JSON Lines store keeps no snapshots): that part is the fold's, not the read's.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from woundlog.events import FightStarted, Hit
from woundlog.events.stores.jsonl import JsonlStore
from woundlog.replays.application import Application


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    count = parser.parse_args().events
    folder = Path(tempfile.mkdtemp(prefix="jsonl-window-"))
    try:
        store = JsonlStore(folder)
        hits = [Hit(id=f"h{n}", target="nobody", damage=1) for n in range(2, count + 1)]
        store.append("f", [FightStarted(ruleset="mordheim"), *hits])
        store.close()
        print("| events | what | first (s) | again (s) |\n|---|---|---|---|")
        for what, run in [
            ("read a window of 100", lambda s: list(s.read("f", count - 99, count))),
            ("version", lambda s: s.version("f")),
        ]:
            store = JsonlStore(folder)
            times = []
            for _ in range(2):
                start = time.perf_counter()
                run(store)
                times.append(time.perf_counter() - start)
            store.close()
            print(f"| {count:,} | {what} | {times[0]:.4f} | {times[1]:.4f} |")
        with Application.opened(f"jsonl:{folder}") as app:
            times = []
            for _ in range(2):
                start = time.perf_counter()
                app.timeline("f", count - 99, 100)
                times.append(time.perf_counter() - start)
        print(f"| {count:,} | timeline window of 100 | {times[0]:.3f} | {times[1]:.3f} |")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
