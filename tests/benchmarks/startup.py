"""CLI start-up benchmark (issue 16): per-command latency of `woundlog`, whole process, wall time.

    .venv/bin/python tests/benchmarks/startup.py [--runs 20] [--woundlog PATH] [--baseline PATH]
    .venv/bin/python tests/benchmarks/startup.py --instructions [--baseline PATH]
    .venv/bin/python tests/benchmarks/startup.py --installed [--instructions]

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

Prints, per command, the median wall time, the median minus the reference (what woundlog adds),
the ratio to the reference, and the median CPU time of the process (user + system: steadier than
wall time on a busy machine). `--baseline PATH` also times the same commands with another
install's console script in the same rounds (say main's, before a change), each run against a
fight of its own made by that install.

`--installed` also times this checkout installed the way a user installs it (not editable), in a
temporary venv made with pip: an editable install's import finder costs every process, `python -c
pass` included, about 20 ms, which hides part of what woundlog costs in the ratios.

`--instructions` runs each command once under valgrind's callgrind instead and prints the
instructions it executed: a count that does not move with the load of a shared machine, so two
versions compare exactly where their times do not (about 50 times slower; needs valgrind).

Not a test: pytest never collects this folder, and nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
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


Timed = tuple[float, float]
"""(wall, cpu) seconds of one process."""


def run(argv: list[str], env: dict[str, str]) -> Timed:
    """Wall and CPU time of one process, from spawn to exit; a failing command stops the run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    took = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr.decode()}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return took, cpu


Command = tuple[list[str], dict[str, str], Callable[[], None] | None]


def commands_of(woundlog: str, python: str, tmp: Path, label: str) -> dict[str, Command]:
    """The timed commands of one install, on a small fight it makes in `tmp`."""
    tmp.mkdir()
    base = tmp / "base.db"
    work = tmp / "work.db"
    env = {**without_bytecode_off(), "WOUNDLOG_DB": str(base), "COLUMNS": "120"}
    for argv in SETUP:
        run([woundlog, *argv], env)
    hit_env = {**env, "WOUNDLOG_DB": str(work)}

    def fresh_copy() -> None:
        for leftover in tmp.glob("work.db*"):
            leftover.unlink()
        shutil.copyfile(base, work)

    return {
        f"python -c pass{label}": ([python, "-c", "pass"], env, None),
        f"import woundlog.replays.cli{label}": (
            [python, "-c", "import woundlog.replays.cli"],
            env,
            None,
        ),
        f"woundlog --version{label}": ([woundlog, "--version"], env, None),
        f"woundlog hit{label}": ([woundlog, *HIT], hit_env, fresh_copy),
        f"woundlog state{label}": ([woundlog, "state", FIGHT], env, None),
        f"woundlog log{label}": ([woundlog, "log", FIGHT], env, None),
    }


def without_bytecode_off() -> dict[str, str]:
    """The environment, but with bytecode caching on: a shell that sets PYTHONDONTWRITEBYTECODE
    would have every run compile all of woundlog again, which no installed copy ever does."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def python_of(script: str) -> str:
    """The interpreter a console script runs with (its `#!` line)."""
    with open(script) as text:
        return text.readline().removeprefix("#!").strip()


def instructions(argv: list[str], env: dict[str, str]) -> int:
    """Instructions one process executes, counted by callgrind (no profile file is kept)."""
    counted = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
    done = subprocess.run(counted, env=env, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"{' '.join(counted)} failed ({done.returncode}):\n{done.stderr}")
    return int(found.group(1))


def label_of(name: str) -> str:
    """The install a timed command belongs to: "" (this one), " (baseline)", " (installed)"."""
    return name[name.rindex(" (") :] if name.endswith(")") else ""


def installed_copy(tmp: Path) -> str:
    """The console script of this checkout installed into a fresh venv, not editable."""
    checkout = tmp / "checkout"  # a copy: building in the tree would leave build/ behind
    skip = shutil.ignore_patterns(".*", "build", "out", "__pycache__", "*.egg-info", "node_modules")
    shutil.copytree(Path(__file__).resolve().parents[2], checkout, ignore=skip)
    venv = tmp / "installed-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(checkout)]
    subprocess.run(pip, check=True, capture_output=True)
    return str(venv / "bin" / "woundlog")


def count_instructions(commands: dict[str, Command]) -> None:
    counts: dict[str, int] = {}
    for name, (argv, run_env, before) in commands.items():
        if before:
            before()
        run(argv, run_env)  # writes the bytecode caches a first run may lack
        if before:
            before()
        counts[name] = instructions(argv, run_env)
    print("| command | instructions | minus `python -c pass` | / `python -c pass` |")
    print("|---|---|---|---|")
    for name, count in counts.items():
        reference = counts[f"python -c pass{label_of(name)}"]
        print(
            f"| `{name}` | {count / 1e6:.0f} M | {(count - reference) / 1e6:.0f} M "
            f"| {count / reference:.2f}x |"
        )


def every_command(
    tmp: Path, woundlog: str | None, baseline: str | None, installed: bool
) -> dict[str, Command]:
    """The commands to time: this venv's (or `woundlog`'s), then the baseline's and a
    non-editable install's when asked for, each with a fight of its own under `tmp`."""
    woundlog = woundlog or woundlog_script()
    commands = commands_of(woundlog, python_of(woundlog), tmp / "this", "")
    if baseline:
        commands |= commands_of(baseline, python_of(baseline), tmp / "baseline", " (baseline)")
    if installed:
        script = installed_copy(tmp)
        commands |= commands_of(script, python_of(script), tmp / "installed", " (installed)")
    return commands


def measure(
    runs: int,
    woundlog: str | None = None,
    baseline: str | None = None,
    installed: bool = False,
) -> tuple[str, dict[str, tuple[float, float]]]:
    """Time every command `runs` times in rounds: the table, and per command its median wall
    and CPU seconds (names as in the table, ` (installed)` or ` (baseline)` after the others)."""
    with tempfile.TemporaryDirectory(prefix="woundlog-startup-") as tmp:
        commands = every_command(Path(tmp), woundlog, baseline, installed)
        times: dict[str, list[Timed]] = {name: [] for name in commands}
        for argv, run_env, before in commands.values():  # one warm-up run each
            if before:
                before()
            run(argv, run_env)
        for _ in range(runs):  # in rounds: every command sees the machine as the others do
            for name, (argv, run_env, before) in commands.items():
                if before:
                    before()
                times[name].append(run(argv, run_env))

    lines = [
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}; "
        f"median of {runs} runs each, the whole process",
        "",
        "| command | wall | minus `python -c pass` | / `python -c pass` | CPU |",
        "|---|---|---|---|---|",
    ]
    medians: dict[str, tuple[float, float]] = {}
    for name, taken in times.items():
        reference = statistics.median(wall for wall, _ in times[f"python -c pass{label_of(name)}"])
        wall = statistics.median(w for w, _ in taken)
        cpu = statistics.median(c for _, c in taken)
        medians[name] = (wall, cpu)
        lines.append(
            f"| `{name}` | {wall * 1000:.0f} ms | {(wall - reference) * 1000:.0f} ms "
            f"| {wall / reference:.1f}x | {cpu * 1000:.0f} ms |"
        )
    return "\n".join(lines) + "\n", medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="Runs per command (default 20).")
    parser.add_argument("--woundlog", help="The console script to time (default: this venv's).")
    parser.add_argument("--baseline", help="Another install's console script, timed alongside.")
    parser.add_argument(
        "--installed", action="store_true", help="Also time a non-editable install of this tree."
    )
    parser.add_argument(
        "--instructions", action="store_true", help="Count instructions (valgrind), not time."
    )
    args = parser.parse_args()
    if args.instructions:
        with tempfile.TemporaryDirectory(prefix="woundlog-startup-") as tmp:
            count_instructions(
                every_command(Path(tmp), args.woundlog, args.baseline, args.installed)
            )
        return
    print(measure(args.runs, args.woundlog, args.baseline, args.installed)[0])


if __name__ == "__main__":
    main()
