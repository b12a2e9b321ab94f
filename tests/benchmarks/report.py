"""The report of a long fight (issue 30: a 10,000-event fight under 2 s of CPU). Not a test.

    .venv/bin/python tests/benchmarks/report.py [--events 10000]

Writes generate.py's Mordheim fight into a fresh SQLite store (not timed), then times
`Application.report` in CPU seconds (user + system of this process), best of three, and
prints the figure with the report's length and how its per character luck was found.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from generate import generate

from woundlog.events.codec import read_jsonl
from woundlog.replays.application import Application


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "fight.jsonl"
        generate(log, args.events)
        events = [event for _, event in read_jsonl(log)]
        with Application.opened(f"sqlite:{Path(folder) / 'report.db'}") as app:
            app.import_log("long", events)
            times = []
            for _ in range(args.runs):
                began = cpu()
                report = app.report("long")
                times.append(cpu() - began)
    luck = report.luck
    how = luck.characters[0].method if luck.characters else "left out"
    print(f"events: {report.length.events:,}  rounds: {report.length.rounds}")
    print(f"dice read: {luck.dice_read:,}  per character luck: {how}")
    if luck.why_sampled:
        print(f"  ({luck.why_sampled})")
    print(f"report CPU seconds, best of {args.runs}: {min(times):.2f}  (aim: under 2)")


if __name__ == "__main__":
    main()
