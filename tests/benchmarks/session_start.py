"""A session's first answer against a one-shot command, and each line after it (issue 42), in
instructions (callgrind) or CPU seconds, whole processes side by side in one run:

    .venv/bin/python tests/benchmarks/session_start.py [--lines 4] [--before CHECKOUT]
    .venv/bin/python tests/benchmarks/session_start.py --counter cpu --runs 9

On the small fight of startup.py (three fighters, a few events), each process on a fresh copy
of its store, the same harmless hit (`hit grim 0 --attacker snik`: every run appends, none is
refused):

  one-shot          `woundlog hit small grim 0 --attacker snik`, a whole process
  piped, k lines    `woundlog play small` with the hit piped in k times (k = 0, 1, --lines)
  terminal, k lines `woundlog play small` at a pseudo-terminal (Python's pty, 24x100, TERM=xterm,
                    cursor position requests answered as a terminal does): the line typed k
                    times, each after the prompt is up and its answer and the next prompt seen,
                    then Ctrl-D

A session's first answer is its process with one line (its start, the line, its end); each
line after it is (the process with --lines lines - the one with one) / (--lines - 1). At a
terminal the line is typed at once, so a line's figure holds the line editor (readline where
Python has it; prompt_toolkit before) reading its 27 keys and drawing the prompt again, beside
the command. `--before CHECKOUT` measures another
tree of woundlog (say main before a change) in the same run, through PYTHONPATH (a folder
whose `woundlog/` links to its `events`, `core` and `replays`), with this venv's libraries.
Bytecode caching is on (PYTHONDONTWRITEBYTECODE removed: it would compile every module in every
process) and PYTHONHASHSEED fixed; every process runs once uncounted first.

Not a test: pytest never collects this folder, and nothing here asserts a figure.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import platform
import pty
import re
import resource
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

from startup import FIGHT, SETUP, woundlog_script

LINE = "hit grim 0 --attacker snik"
CURSOR_REQUEST = b"\x1b[6n"
PROMPT = f"{FIGHT}>".encode()
ANSWERED = b"nobody is down, dying or out"
WAIT = 600.0
"""Seconds any one wait at the terminal may take (callgrind runs a process about 50x slower)."""


def at_terminal(argv: list[str], env: dict[str, str], lines: int) -> None:
    """Run `argv` (a `woundlog play`) at a pseudo-terminal, type LINE `lines` times, then
    Ctrl-D; it must end with status 0."""
    fd, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    played = subprocess.Popen(
        argv, stdin=child, stdout=child, stderr=child, env=env, start_new_session=True
    )
    os.close(child)
    seen, answered = bytearray(), 0

    def pump(wait: float) -> None:
        nonlocal answered
        if select.select([fd], [], [], wait)[0]:
            try:
                seen.extend(os.read(fd, 65536))
            except OSError:  # the session closed its side
                return
        while seen.count(CURSOR_REQUEST) > answered:
            os.write(fd, b"\x1b[1;1R")
            answered += 1

    def until(word: bytes, after: int) -> int:
        deadline = time.monotonic() + WAIT
        while (at := seen.find(word, after)) < 0:
            if time.monotonic() > deadline or played.poll() is not None:
                raise SystemExit(f"no {word!r} at the terminal:\n{bytes(seen)[-2000:]!r}")
            pump(0.05)
        return at + len(word)

    def reading() -> None:  # the line editor's prompt is up: it holds the terminal raw
        while termios.tcgetattr(fd)[3] & termios.ICANON:
            pump(0.01)

    try:
        at = until(PROMPT, until(ANSWERED, 0))  # the greeting's status line, then the prompt
        for _ in range(lines):
            reading()
            os.write(fd, LINE.encode() + b"\r")
            at = until(PROMPT, until(ANSWERED, at))
        reading()
        os.write(fd, b"\x04")
        while played.poll() is None:
            pump(0.05)
    finally:
        if played.poll() is None:
            played.kill()
        played.wait()
        os.close(fd)
    if played.returncode != 0:
        raise SystemExit(f"{argv} ended {played.returncode}:\n{bytes(seen)[-2000:]!r}")


def piped(argv: list[str], env: dict[str, str], lines: int) -> None:
    done = subprocess.run(
        argv, input=(LINE + "\n") * lines, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{argv} ended {done.returncode}:\n{done.stderr}")


def one_shot(argv: list[str], env: dict[str, str], _lines: int) -> None:
    piped(argv, env, 0)


Way = Callable[[list[str], dict[str, str], int], None]


class Counter:
    """What one process costs: instructions (callgrind) or the median of its CPU seconds."""

    def __init__(self, kind: str, runs: int, tmp: Path) -> None:
        self.kind, self.runs, self.log = kind, runs, tmp / "callgrind.log"

    def count(self, way: Way, argv: list[str], env: dict[str, str], lines: int,
              fresh: Callable[[], None]) -> float:  # fmt: skip
        fresh()
        way(argv, env, lines)  # uncounted: writes any bytecode a first run may lack
        if self.kind == "instructions":
            fresh()
            way(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                 f"--log-file={self.log}", *argv], env, lines)  # fmt: skip
            found = re.search(r"Collected : (\d+)", self.log.read_text())
            if found is None:
                raise SystemExit(f"callgrind counted nothing:\n{self.log.read_text()}")
            return float(found.group(1))
        cpus = []
        for _ in range(self.runs):
            fresh()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            way(argv, env, lines)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        return statistics.median(cpus)

    def shown(self, figure: float) -> str:
        if self.kind == "instructions":
            return f"{figure / 1e6:,.1f} M"
        return f"{figure * 1e3:.1f} ms"


def tree_of(checkout: Path, tmp: Path) -> str:
    """A folder for PYTHONPATH whose `woundlog` is `checkout`'s events, core and replays."""
    folder = tmp / "before-path" / "woundlog"
    folder.mkdir(parents=True)
    for part in ("events", "core", "replays"):
        (folder / part).symlink_to(checkout.resolve() / part)
    return str(folder.parent)


def measure(counter: Counter, woundlog: str, env: dict[str, str], tmp: Path,
            lines: int) -> dict[str, float]:  # fmt: skip
    """Every figure of one tree of woundlog (the one `env` imports)."""
    base, work = tmp / "base.db", tmp / "work.db"
    env = {**env, "WOUNDLOG_DB": str(work), "XDG_STATE_HOME": str(tmp / "state"),
           "TERM": "xterm", "COLUMNS": "100"}  # fmt: skip
    env.pop("PROMPT_TOOLKIT_NO_CPR", None)
    if not base.exists():
        for argv in SETUP:
            subprocess.run([woundlog, *argv], env={**env, "WOUNDLOG_DB": str(base)},
                           check=True, capture_output=True)  # fmt: skip

    def fresh() -> None:
        for leftover in tmp.glob("work.db*"):
            leftover.unlink()
        shutil.copyfile(base, work)

    play = [woundlog, "play", FIGHT]
    hit = [woundlog, "hit", FIGHT, *LINE.split()[1:]]
    figures = {"one-shot": counter.count(one_shot, hit, env, 0, fresh)}
    for name, way in (("piped", piped), ("terminal", at_terminal)):
        for k in sorted({0, 1, lines}):
            figures[f"{name} {k}"] = counter.count(way, play, env, k, fresh)
            print(f"  {name}, {k} lines: {counter.shown(figures[f'{name} {k}'])}",
                  file=sys.stderr)  # fmt: skip
    return figures


def rows(figures: dict[str, float], lines: int, counter: Counter) -> list[tuple[str, str]]:
    shot = figures["one-shot"]
    out = [("one-shot `woundlog hit`, a whole process", counter.shown(shot))]
    for name in ("piped", "terminal"):
        first = figures[f"{name} 1"]
        each = (figures[f"{name} {lines}"] - first) / (lines - 1)
        out += [
            (f"{name}: the session alone (no line)", counter.shown(figures[f"{name} 0"])),
            (f"{name}: to its first answer (one line)", counter.shown(first)),
            (f"{name}: first answer / one-shot", f"{first / shot:.2f}x"),
            (f"{name}: each line after the first", counter.shown(each)),
        ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=4, help="lines of the longer session")
    parser.add_argument("--counter", choices=("instructions", "cpu"), default="instructions")
    parser.add_argument("--runs", type=int, default=9, help="with --counter cpu: runs (median)")
    parser.add_argument("--before", type=Path, help="another checkout, measured alongside")
    args = parser.parse_args()
    if args.lines < 2:
        parser.error("--lines must be 2 or more")
    woundlog = woundlog_script()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"
    with tempfile.TemporaryDirectory(prefix="woundlog-session-") as tmp:
        counter = Counter(args.counter, args.runs, Path(tmp))
        trees = {"now": env}
        if args.before:
            trees = {"before": {**env, "PYTHONPATH": tree_of(args.before, Path(tmp))}, **trees}
        table = {}
        for label, tree_env in trees.items():
            print(f"{label} ...", file=sys.stderr)
            folder = Path(tmp) / label
            folder.mkdir()
            table[label] = rows(measure(counter, woundlog, tree_env, folder, args.lines),
                                args.lines, counter)  # fmt: skip
    unit = "instructions (callgrind)" if args.counter == "instructions" else "CPU, medians"
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} "
          f"CPUs, load {os.getloadavg()[0]:.1f}; {unit}; `{LINE}` on a small fight, "
          f"--lines {args.lines}")  # fmt: skip
    print()
    print("| figure | " + " | ".join(table) + " |")
    print("|---|" + "---:|" * len(table))
    for at, (figure, _) in enumerate(table["now"]):
        print(f"| {figure} | " + " | ".join(cells[at][1] for cells in table.values()) + " |")


if __name__ == "__main__":
    main()
