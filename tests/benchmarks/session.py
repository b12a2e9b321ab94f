"""A command inside `woundlog play` against the same command one-shot (issue 26, section 1):
the session's aim is under 10 ms of work for each command after the first.

    .venv/bin/python tests/benchmarks/session.py [--runs 20]

On the small fight of startup.py (three fighters, a few events), in one run, one right after
the other so both see the machine in the same state:

  one-shot    `woundlog hit small grim 0 --attacker snik` as a whole process, `runs` times
  session     a `Session` opened as `woundlog play` opens it (a store kept open, the fold
              cached), in this process: the same line (`hit grim 0 --attacker snik`) handled
              `runs` + 1 times, the first timed apart (it builds the commands it runs)

Both append the same harmless hit (no damage: every run appends, none is refused), so each
one-shot and each line does the same work on a fight of the same length, give or take a few
events. Per side: the median wall time and the median CPU time (user + system; the session's
own, from `time.process_time`), and the ratio one-shot / session. The session's output is
thrown away: what is timed is the command, not a terminal drawing it.

Not a test: pytest never collects this folder, and nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from startup import FIGHT, SETUP, run, without_bytecode_off, woundlog_script

LINE = ["hit", "grim", "0", "--attacker", "snik"]


def one_shot(woundlog: str, env: dict[str, str], runs: int) -> list[tuple[float, float]]:
    command = [woundlog, LINE[0], FIGHT, *LINE[1:]]
    run(command, env)  # writes the bytecode caches a first run may lack
    return [run(command, env) for _ in range(runs)]


def in_session(runs: int) -> tuple[tuple[float, float], list[tuple[float, float]]]:
    """The first line's (wall, cpu), then each later one's, in a session on $WOUNDLOG_DB."""
    from woundlog.replays.cli.application import kept_open
    from woundlog.replays.cli.run import every_command
    from woundlog.replays.cli.session import Session

    line = " ".join(LINE)
    timed = []
    with kept_open(None) as app:
        session = Session(every_command(), app, FIGHT, None)
        for _ in range(runs + 1):
            began, cpu = time.perf_counter(), time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):
                assert session.handle(line) and session.code == 0, "the line was refused"
            timed.append((time.perf_counter() - began, time.process_time() - cpu))
    return timed[0], timed[1:]


def median(timed: list[tuple[float, float]], which: int) -> float:
    return statistics.median(each[which] for each in timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**without_bytecode_off(), "WOUNDLOG_DB": str(Path(tmp) / "small.db")}
        woundlog = woundlog_script()
        for argv in SETUP:
            run([woundlog, *argv], env)
        shots = one_shot(woundlog, env, args.runs)
        os.environ["WOUNDLOG_DB"] = env["WOUNDLOG_DB"]
        first, lines = in_session(args.runs)
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} "
          f"cores, load {os.getloadavg()[0]:.1f}; medians of {args.runs}")  # fmt: skip
    print()
    print("| `hit` on a small fight | wall | CPU |")
    print("|---|---:|---:|")
    print(f"| one-shot `woundlog hit`, a whole process | {median(shots, 0) * 1e3:.1f} ms "
          f"| {median(shots, 1) * 1e3:.1f} ms |")  # fmt: skip
    print(f"| the first line of a session | {first[0] * 1e3:.1f} ms | {first[1] * 1e3:.1f} ms |")
    print(f"| each line after it | {median(lines, 0) * 1e3:.2f} ms "
          f"| {median(lines, 1) * 1e3:.2f} ms |")  # fmt: skip
    print(f"| one-shot / a line after the first | {median(shots, 0) / median(lines, 0):.0f}x "
          f"| {median(shots, 1) / median(lines, 1):.0f}x |")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
