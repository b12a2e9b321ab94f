"""CLI start-up benchmark (issue 16): per-command latency of `woundlog`, whole process, wall time.

    .venv/bin/python tests/benchmarks/startup.py [--runs 20] [--woundlog PATH]

Sets up a small Mordheim fight in a fresh SQLite file (three fighters, a few hits), then times,
as separate processes started one after the other in rounds (so every command sees the machine
in the same state), `python -c pass` (the reference: the same interpreter and site-packages,
nothing of woundlog) and each command:

  --version       the CLI's import and argument parsing, no store
  hit             one hit appended to the small fight (each run on a fresh copy of its file, so
                  every run appends to the same fight: the copy is not timed)
  state           the fight's state, as a rich table
  log             every event of the fight with its changes
  import          `python -c "import woundlog.replays.cli"`: the import alone

Prints, per command, the median wall time, the median minus the reference (what woundlog adds)
and the ratio to the reference. Not a test: pytest never collects this folder, and nothing here
asserts a time.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

FIGHT = "small"
SETUP = [
    ["new", FIGHT, "--ruleset", "mordheim", "--seed", "7"],
    ["join", FIGHT, "grim", "--name", "Grim", "--side", "reavers", "--stat", "wounds=3"],
    ["join", FIGHT, "ulf", "--name", "Ulf", "--side", "reavers"],
    ["join", FIGHT, "snik", "--name", "Snik", "--side", "skaven"],
    ["hit", FIGHT, "grim", "1", "--attacker", "snik"],
    ["tick", FIGHT, "start", "--side", "reavers"],
]
HIT = ["hit", FIGHT, "grim", "1", "--attacker", "snik"]


def woundlog_script() -> str:
    """The console script of the interpreter running this file (its venv's `woundlog`)."""
    script = Path(sys.executable).with_name("woundlog")
    if not script.exists():
        sys.exit(f"no `woundlog` next to {sys.executable}: pass --woundlog PATH")
    return str(script)


def run(argv: list[str], env: dict[str, str]) -> float:
    """Wall time of one process, from spawn to exit; a failing command stops the benchmark."""
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    took = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr.decode()}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="Runs per command (default 20).")
    parser.add_argument("--woundlog", help="The console script to time (default: this venv's).")
    args = parser.parse_args()
    woundlog = args.woundlog or woundlog_script()

    with tempfile.TemporaryDirectory(prefix="woundlog-startup-") as tmp:
        base = Path(tmp) / "base.db"
        work = Path(tmp) / "work.db"
        env = {**os.environ, "WOUNDLOG_DB": str(base), "COLUMNS": "120"}
        for argv in SETUP:
            run([woundlog, *argv], env)
        hit_env = {**env, "WOUNDLOG_DB": str(work)}

        def fresh_copy() -> None:
            for leftover in Path(tmp).glob("work.db*"):
                leftover.unlink()
            shutil.copyfile(base, work)

        commands: dict[str, tuple[list[str], dict[str, str], Callable[[], None] | None]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], env, None),
            "import woundlog.replays.cli": (
                [sys.executable, "-c", "import woundlog.replays.cli"],
                env,
                None,
            ),
            "woundlog --version": ([woundlog, "--version"], env, None),
            "woundlog hit": ([woundlog, *HIT], hit_env, fresh_copy),
            "woundlog state": ([woundlog, "state", FIGHT], env, None),
            "woundlog log": ([woundlog, "log", FIGHT], env, None),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for name, (argv, run_env, before) in commands.items():  # one warm-up run each
            if before:
                before()
            run(argv, run_env)
        for _ in range(args.runs):
            for name, (argv, run_env, before) in commands.items():
                if before:
                    before()
                times[name].append(run(argv, run_env))

    reference = statistics.median(times["python -c pass"])
    print(
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}; "
        f"median of {args.runs} runs each, wall time of the whole process\n"
    )
    print("| command | median | woundlog's part (minus `python -c pass`) | / `python -c pass` |")
    print("|---|---|---|---|")
    for name, taken in times.items():
        median = statistics.median(taken)
        print(
            f"| `{name}` | {median * 1000:.0f} ms | {(median - reference) * 1000:.0f} ms "
            f"| {median / reference:.1f}x |"
        )


if __name__ == "__main__":
    main()
