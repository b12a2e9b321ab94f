"""Issue 42: `woundlog report` per event against a replay, and its peak memory at two sizes
(not a test).

    .venv/bin/python tests/benchmarks/report_flat.py [--sizes 20000,100000] [--runs 3]
        [--baseline ROOT ...] [--format md|html] [--counter cpu|instructions]

The fight is generate.py's Mordheim fight (the one run.py and aims.py use: 37 fighters on 4
sides, recovery phases, hits with drawn and given injury dice, GM retracts and amends), written
to JSON Lines and imported into a SQLite store of its own (`Application.import_log`, which
keeps a snapshot every 500 events), both under tests/benchmarks/out/report/ and reused. Per size,
each a whole process, one right after the other:

  replay       `woundlog replay FIGHT.jsonl` (the state only)
  report       `woundlog --db STORE report long -o report.md` (the stored fight, Markdown)

and, with `--baseline ROOT`, the report again with `PYTHONPATH=ROOT` (a folder whose
`woundlog/` links to another version's `events`, `core` and `replays`: README.md), its output
checked byte for byte against this version's; given more than once, each version in turn,
named by its folder. Per event is the difference between the two
sizes over the difference in events (it cancels start-up and the report's fixed costs: the
moments' budget is spent by about 13,000 events); the figures are medians of `--runs` runs of
CPU seconds (user + system, from `wait4`), or instructions under callgrind with
`--counter instructions` (about 50 times slower; each command is then run once before,
uncounted, so that no counted process compiles a module or fills a cache: without it the first
replay counted 0.7 G more). Peak memory is `wait4`'s maximum resident set size of the largest
run (under callgrind, valgrind's own: read memory from a CPU run); the files are made in a
process of its own, so that no measured process starts from this one's high-water mark.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "report"
sys.path.insert(0, str(HERE))


def fight_files(events: int) -> tuple[Path, Path]:
    """The generated fight of `events` events and its SQLite store (made once, then reused)."""
    from generate import generate

    from woundlog.events.codec import read_jsonl
    from woundlog.replays.application import Application

    OUT.mkdir(parents=True, exist_ok=True)
    log, db = OUT / f"fight-{events}.jsonl", OUT / f"fight-{events}.db"
    if not log.exists():
        generate(log, events)
    if not db.exists():
        partial = db.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        with Application.opened(f"sqlite:{partial}") as app:
            app.import_log("long", (event for _, event in read_jsonl(log)))
        partial.rename(db)
    return log, db


def measured(args: list[str], env: dict[str, str], counter: str) -> tuple[float, int]:
    """(CPU seconds or instructions, peak RSS in bytes) of one whole process."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        if counter == "instructions":
            args = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *args]
        child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        assert child.stderr is not None
        said = child.stderr.read().decode()
        assert os.waitstatus_to_exitcode(status) == 0, said
        if counter == "instructions":
            totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
            return float(totals[0].split()[1]), usage.ru_maxrss * 1024
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def woundlog(*args: str) -> list[str]:
    return [sys.executable, "-c", "from woundlog.replays.cli import main; main()", *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="20000,100000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", type=Path, action="append", default=[])
    parser.add_argument("--format", default="md", choices=["md", "html"])
    parser.add_argument("--counter", default="cpu", choices=["cpu", "instructions"])
    parser.add_argument("--make", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make is not None:
        fight_files(args.make)
        return
    small, large = (int(size) for size in args.sizes.split(","))
    for events in (small, large):
        # made in a process of its own: a child's peak RSS starts at its parent's (Linux keeps
        # the high-water mark across fork and exec), and an import of a million events is large
        subprocess.run([sys.executable, __file__, "--make", str(events)], check=True)
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # every process would compile every module
    env.pop("PYTHONPATH", None)
    sides = {"after": env}
    if args.baseline:
        before = {
            f"before ({root.name})": dict(env, PYTHONPATH=str(root)) for root in args.baseline
        }
        sides = {**before, **sides}
    figures: dict[tuple[str, str, int], list[float]] = {}
    peaks: dict[tuple[str, str, int], int] = {}
    with tempfile.TemporaryDirectory() as folder:
        for events in (small, large):
            log, db = fight_files(events)
            written: dict[str, str] = {}  # a digest: this process stays small (see --make)
            for _ in range(args.runs):
                for side, side_env in sides.items():
                    out = Path(folder) / f"{side}.{args.format}"
                    runs = [
                        ("replay", woundlog("replay", str(log))),
                        (
                            "report",
                            woundlog("--db", f"sqlite:{db}", "report", "long", "-o", str(out)),
                        ),
                    ]
                    for what, command in runs:
                        if what == "replay" and side != "after":
                            continue  # the replay is not what changed
                        if args.counter == "instructions" and (side, what, events) not in figures:
                            # once uncounted: a first run may compile what a later one reads
                            subprocess.run(command, env=side_env, check=True,
                                           stdout=subprocess.DEVNULL)  # fmt: skip
                        figure, rss = measured(command, side_env, args.counter)
                        key = (side, what, events)
                        figures.setdefault(key, []).append(figure)
                        peaks[key] = max(rss, peaks.get(key, 0))
                    with out.open("rb") as report_file:
                        written[side] = hashlib.file_digest(report_file, "sha256").hexdigest()
            assert len(set(written.values())) == 1, f"the reports differ: {written}"
    unit = "CPU s" if args.counter == "cpu" else "instructions"

    def figure(side: str, what: str, events: int) -> float:
        return statistics.median(figures[(side, what, events)])

    def per_event(side: str, what: str) -> float:
        return (figure(side, what, large) - figure(side, what, small)) / (large - small)

    scale = 1e6 if args.counter == "cpu" else 1
    replay = per_event("after", "replay")
    print(f"fight: generate.py Mordheim, {small:,} and {large:,} events; {unit}, median of "
          f"{args.runs}; report -o report.{args.format} of the stored fight")  # fmt: skip
    print()
    print(f"| | {small:,} events | {large:,} events | per event | / replay | peak memory "
          f"{small:,} / {large:,} |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    print(f"| replay | {figure('after', 'replay', small):,.2f} | "
          f"{figure('after', 'replay', large):,.2f} | {replay * scale:,.1f} | 1x | "
          f"{peaks[('after', 'replay', small)] / 2**20:.0f} / "
          f"{peaks[('after', 'replay', large)] / 2**20:.0f} MiB |")  # fmt: skip
    for side in sides:
        each = per_event(side, "report")
        small_rss = peaks[(side, "report", small)] / 2**20
        large_rss = peaks[(side, "report", large)] / 2**20
        print(f"| report, {side} | {figure(side, 'report', small):,.2f} | "
              f"{figure(side, 'report', large):,.2f} | {each * scale:,.1f} | "
              f"{each / replay:.1f}x | {small_rss:.0f} / {large_rss:.0f} MiB "
              f"({large_rss / small_rss:.2f}x) |")  # fmt: skip


if __name__ == "__main__":
    main()
