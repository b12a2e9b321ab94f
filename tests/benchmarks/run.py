"""The replay benchmark of issue 2 (item 10): every figure a whole process, timed from outside.

    .venv/bin/python tests/benchmarks/run.py [--events N] [--fresh] [--no-cli] [--results FILE]
    .venv/bin/python tests/benchmarks/run.py --fold [--events N] [--sizes A,B,...]

Generates an N-event Mordheim fight (default 1,000,000; see generate.py), loads it into SQLite
(with and without snapshots; see load.py), then runs each measurement as a process of its own
(measure.py, or the `woundlog` console script) and takes its wall time and its peak resident
memory (GNU time's maximum resident set size, else `ru_maxrss` from `os.wait4`). Every answer is
checked against the state the generator says the fight must reach. Prints a markdown table and
writes it to tests/benchmarks/results.md (or FILE).

`--fold` is the quick side-by-side of issue 16: per size, bare decoding of the file and its
state-only replay (`replay_file_state`), each the median of 5 runs, and nothing else (no SQLite).

Files go to tests/benchmarks/out/ (gitignored); they are reused while the generator, the loader
and N are unchanged (`--fresh` remakes them). Not a test: pytest never collects this folder.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import load  # noqa: E402

FIGHT = "bench"
SEED = 2024
PREPARED = 3
"""Bump when `prepare` keeps other things, so older prepared files are remade."""


@dataclass
class Row:
    what: str
    events: int
    wall: float
    rss_kb: int
    baseline: float | None  # wall time of bare decoding of as many events
    note: str = ""

    def cells(self) -> list[str]:
        ratio = f"{self.wall / self.baseline:.1f}x" if self.baseline else ""
        return [
            self.what,
            f"{self.events:,}",
            f"{self.wall:.2f}",
            ratio,
            f"{self.rss_kb / 1024:.0f}",
            self.note,
        ]


TIME = Path("/usr/bin/time")


LAST_CPU: list[float] = []
"""CPU seconds (user + system) of each process `run_child` ran, in order: on a machine other
work shares, CPU time moves far less than wall time, so `--fold` reports both."""


@functools.cache
def scratch_folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="woundlog-bench-"))


def run_child(argv: list[str]) -> tuple[float, int, str]:
    """Run one process; its wall time, its own peak RSS in KiB, and its stdout (its CPU time,
    which `wait4` counts with that of the processes it waited for, goes to LAST_CPU).

    The RSS comes from GNU time when it is there: `ru_maxrss` of a child counts the memory of
    the process it was forked from (here, this one) until it execs, so run.py's own size would
    leak into every figure; time(1) is a small process to fork from.
    """
    scratch = scratch_folder()  # not --out: that may not exist yet, or be read-only
    out, rss_file = scratch / "child-stdout", scratch / "child-rss"
    timed = [str(TIME), "-f", "%M", "-o", str(rss_file), *argv] if TIME.exists() else argv
    with open(out, "wb") as stdout:
        start = time.perf_counter()
        child = subprocess.Popen(timed, stdout=stdout)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    LAST_CPU.append(usage.ru_utime + usage.ru_stime)
    child.returncode = os.waitstatus_to_exitcode(status)
    text = out.read_text()
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({child.returncode}):\n{text}")
    rss = int(rss_file.read_text().split()[-1]) if TIME.exists() else usage.ru_maxrss
    return wall, rss, text


def measure(
    argv: list[str],
    quick: float = 5.0,
    before: Callable[[], object] = lambda: None,
    runs: int = 3,
) -> tuple[float, int, str]:
    """The median wall time of `runs` runs (1 run if the first takes `quick` seconds or more);
    `before` sets up each run, untimed."""
    before()
    wall, rss, text = run_child(argv)
    if wall >= quick:
        return wall, rss, text
    walls = [wall]
    for _ in range(runs - 1):
        before()
        w, r, _ = run_child(argv)
        walls.append(w)
        rss = max(rss, r)
    return statistics.median(walls), rss, text


def check(text: str, expected: dict[str, Any], seq: int) -> str:
    """`ok` when a child's answer is the state the generator played to, else what differs."""
    found = json.loads(text.strip().splitlines()[-1])
    if "characters" in found and isinstance(next(iter(found["characters"].values())), dict):
        found["characters"] = {  # the CLI's --json state
            cid: [c["state"], c["wounds"]] for cid, c in found["characters"].items()
        }
    if found.get("seq") != seq:
        return f"WRONG: seq {found.get('seq')}, expected {seq}"
    if found["characters"] != expected:
        wrong = [c for c in expected if found["characters"].get(c) != expected[c]]
        return f"WRONG: {len(wrong)} fighters differ, e.g. {wrong[:3]}"
    return "ok"


def fingerprint(n: int) -> str:
    digest = hashlib.sha256(f"{n} {SEED} {PREPARED}".encode())
    for name in ("generate.py", "load.py"):
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()[:16]


def prepare(out: Path, n: int, sizes: list[int], late: int, fresh: bool) -> dict[str, Any]:
    """Generate the fight, its shorter prefixes and the two SQLite stores (or reuse them)."""
    stamp_path = out / f"fight-{n}.stamp.json"
    stamp = fingerprint(n)
    if not fresh and stamp_path.exists():
        kept = json.loads(stamp_path.read_text())
        if kept.get("stamp") == stamp:
            print(f"reusing {out} (--fresh remakes it)", file=sys.stderr)
            return kept  # type: ignore[no-any-return]
    out.mkdir(parents=True, exist_ok=True)
    stamp_path.unlink(missing_ok=True)
    path = out / f"fight-{n}.jsonl"
    started = time.perf_counter()
    summary = generate.generate(path, n, SEED, checkpoints=(*sizes[:-1], late))
    print(f"generated {path} in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    prefixes = {}
    for size in sizes[:-1]:
        prefix = out / f"fight-{n}-first-{size}.jsonl"
        with open(path, "rb") as src, open(prefix, "wb") as dst:
            for _ in range(size):
                dst.write(src.readline())
        prefixes[str(size)] = str(prefix)
    started = time.perf_counter()
    db, bare = out / f"fight-{n}.db", out / f"fight-{n}-no-snapshots.db"
    loaded = load.load(path, db, bare, FIGHT)
    print(f"loaded SQLite in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    kept = {
        "stamp": stamp,
        "file": str(path),
        "prefixes": prefixes,
        "db": str(db),
        "bare_db": str(bare),
        "summary": summary,
        "snapshots_used": {str(at): loaded.snapshot_for(at) for at in (n, late)},
        "snapshots": len(loaded.snapshot_seqs),
        "undo_target": last_turn_ended(path),
    }
    stamp_path.write_text(json.dumps(kept))
    return kept


def prepare_files(out: Path, n: int, sizes: list[int], fresh: bool) -> dict[str, Any]:
    """The fight of `n` events and its prefixes of `sizes`, without the SQLite stores (a
    prefix not made yet is cut from the fight kept, which is not generated again)."""
    stamp_path = out / f"fight-{n}.files.stamp.json"
    stamp = fingerprint(n)
    kept: dict[str, Any] = {}
    if not fresh and stamp_path.exists():
        kept = json.loads(stamp_path.read_text())
    path = out / f"fight-{n}.jsonl"
    wanted = [size for size in sizes if size < n]
    states = kept.get("summary", {}).get("at", {})
    if kept.get("stamp") != stamp or not path.exists() or any(str(s) not in states for s in wanted):
        out.mkdir(parents=True, exist_ok=True)
        checkpoints = tuple(sorted({*wanted, *(n // 10 * k for k in (1, 2, 5))} - {n}))
        summary = generate.generate(path, n, SEED, checkpoints=checkpoints)
        kept = {"stamp": stamp, "files": {str(n): str(path)}, "summary": summary}
    elif all(str(size) in kept["files"] for size in sizes):
        print(f"reusing {out} (--fresh remakes it)", file=sys.stderr)
        return kept
    for size in wanted:
        prefix = out / f"fight-{n}-first-{size}.jsonl"
        with open(path, "rb") as src, open(prefix, "wb") as dst:
            for _ in range(size):
                dst.write(src.readline())
        kept["files"][str(size)] = str(prefix)
    stamp_path.write_text(json.dumps(kept))
    return kept


def timed(argv: list[str], runs: int = 5) -> tuple[float, float, int, str]:
    """Median wall and median CPU seconds of `runs` runs of one process, the most peak RSS
    (KiB) of any, and its stdout."""
    walls, cpus, peak = [], [], 0
    text = ""
    for _ in range(runs):
        wall, rss, text = run_child(argv)
        walls.append(wall)
        cpus.append(LAST_CPU[-1])
        peak = max(peak, rss)
    return statistics.median(walls), statistics.median(cpus), peak, text


FOLD_TASKS = ("decode", "decode-checked", "minimal-fold", "replay-state")
"""What `fold_side_by_side` times, in its columns' order (measure.py's task names)."""


def fold_side_by_side(
    out: Path, n: int, sizes: list[int], fresh: bool, runs: int = 5
) -> tuple[str, dict[int, dict[str, tuple[float, float, int]]]]:
    """Issue 16's measurement: per size, bare decoding, woundlog's own decoding, the minimal
    hand-written fold (the issue's reference, minimal_fold.py) and the state-only replay of one
    file, one right after the other, so all see the same machine at the same moment. Ratios are
    to bare decoding, in CPU time (wall time in the cells). Returns the table, and per size and
    task its wall and CPU seconds and its peak RSS in KiB."""
    kept = prepare_files(out, n, sizes, fresh)
    summary = kept["summary"]
    py = [sys.executable, str(HERE / "measure.py")]
    lines = [
        f"Command: `.venv/bin/python tests/benchmarks/run.py --fold --events {n} "
        f"--sizes {','.join(map(str, sizes))} --runs {runs}`",
        "",
        f"Machine: {cpu()}, {os.cpu_count()} CPUs; {platform.python_implementation()} "
        f"{platform.python_version()}, msgspec {msgspec.__version__}. Medians of {runs} runs, each "
        "a whole process (start-up included); wall seconds, CPU seconds in brackets; ratios of "
        "CPU seconds to the bare decode's.",
        "",
        "| events | bare decode | woundlog decode (every check) | minimal fold (reference) "
        "| `replay_file_state` | checked decode / bare | minimal fold / bare | replay / bare |",
        "|---|---|---|---|---|---|---|---|",
    ]
    found: dict[int, dict[str, tuple[float, float, int]]] = {}
    for size in sizes:
        file = kept["files"][str(size)]
        state = summary["final"] if size == n else summary["at"][str(size)]
        figures = []
        for task in FOLD_TASKS:
            wall, cpu_seconds, peak, text = timed([*py, task, file], runs)
            if task in ("minimal-fold", "replay-state"):
                verdict = check(text, state, size)
                if verdict != "ok":
                    raise SystemExit(f"{task} of {size}: {verdict}")
            figures.append((wall, cpu_seconds, peak))
        found[size] = dict(zip(FOLD_TASKS, figures, strict=True))
        base = figures[0][1]
        cells = [f"{wall:.2f} ({cpu_seconds:.2f})" for wall, cpu_seconds, _ in figures]
        ratios = [f"{cpu_seconds / base:.1f}x" for _, cpu_seconds, _ in figures[1:]]
        row = f"| {size:,} | " + " | ".join(cells + ratios) + " |"
        print(row, file=sys.stderr)
        lines.append(row)
    return "\n".join(lines) + "\n", found


def last_turn_ended(path: Path) -> int:
    """The seq of the file's last `turn_ended` (a line number: generated files have no blanks)."""
    with open(path, "rb") as f:
        found = [
            seq for seq, line in enumerate(f, start=1) if line.startswith(b'{"type":"turn_ended"')
        ]
    return found[-1]


def snapshot_note(kept: dict[str, Any], at: int) -> str:
    seq = kept["snapshots_used"][str(at)]
    return "no snapshot holds" if seq is None else f"from snapshot #{seq:,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--fresh", action="store_true", help="regenerate the fight and stores")
    parser.add_argument("--no-cli", action="store_true", help="skip `woundlog replay`")
    parser.add_argument("--results", type=Path, default=HERE / "results.md")
    parser.add_argument("--fold", action="store_true", help="only decode vs state-only replay")
    parser.add_argument("--sizes", help="with --fold: comma-separated sizes (default N/5,N)")
    parser.add_argument("--runs", type=int, default=5, help="with --fold: runs per figure")
    args = parser.parse_args()
    n: int = args.events
    if args.fold:
        sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else [n // 5, n]
        if max(sizes) > n:
            parser.error("--sizes are prefixes of the fight: none may exceed --events")
        print(fold_side_by_side(args.out, n, sorted(sizes), args.fresh, args.runs)[0])
        return
    sizes = [n // 10, 3 * n // 10, n]
    late = n - n // 100 + n // 4000  # 990,250 of 1,000,000: between two snapshots
    kept = prepare(args.out, n, sizes, late, args.fresh)
    summary = kept["summary"]
    file, db, bare = kept["file"], kept["db"], kept["bare_db"]
    files = {**{int(k): v for k, v in kept["prefixes"].items()}, n: file}
    py = [sys.executable, str(HERE / "measure.py")]
    rows: list[Row] = []
    decoding: dict[int, float] = {}

    def expect(seq: int) -> tuple[int, dict[str, Any]]:
        return seq, summary["final"] if seq == n else summary["at"][str(seq)]

    def add(
        what: str,
        events: int,
        argv: list[str],
        state: Any = None,
        note: str = "",
        before: Callable[[], object] = lambda: None,
    ) -> None:
        """Time one process; `state` (seq, fighters) is what it must answer."""
        wall, rss, text = measure(argv, before=before)
        if "unavailable" in text:
            print(f"skipped, {what}: {text.strip()}", file=sys.stderr)
            return
        if state is not None:
            verdict = check(text, state[1], state[0])
            if verdict != "ok":
                raise SystemExit(f"{what}: {verdict}")
        baseline = None if what.startswith(("bare", "start")) else decoding[n]
        row = Row(what, events, wall, rss, decoding.get(events, baseline), note)
        rows.append(row)
        print(" | ".join(row.cells()), file=sys.stderr)

    add("start Python, import woundlog (no work)", 0, [*py, "import"])
    for size in sizes:
        add("bare msgspec decode, JSONL", size, [*py, "decode", files[size]])
        decoding[size] = rows[-1].wall
    for size in sizes:
        argv = [*py, "replay", files[size]]
        add("JSONL: `replay_file`, every event's changes", size, argv, expect(size))
    for size in sizes:
        argv = [*py, "replay-state", files[size]]
        add("JSONL: `replay_file_state`, state only", size, argv, expect(size))
    cli = Path(sys.executable).with_name("woundlog")
    if not args.no_cli and cli.exists():
        argv = [str(cli), "replay", file, "--json"]
        add("JSONL: `woundlog replay FILE --json`", n, argv, expect(n))
    add("SQLite: read every event back", n, [*py, "sqlite-read", bare, FIGHT])
    argv = [*py, "sqlite-state", db, FIGHT]
    add("SQLite: `Fight.state()`, snapshots", n, argv, expect(n), snapshot_note(kept, n))
    for size in sizes:
        argv = [*py, "sqlite-state", bare, FIGHT, *([str(size)] if size != n else [])]
        add("SQLite: `Fight.state(at=N)`, no snapshots", size, argv, expect(size))
    for what, argv in [
        ("JSONL `replay_file(at=)`", [*py, "replay", file, str(late)]),
        ("JSONL `replay_file_state(at=)`", [*py, "replay-state", file, str(late)]),
        ("SQLite `Fight.state(at)`, snapshots", [*py, "sqlite-state", db, FIGHT, str(late)]),
        ("SQLite `Fight.state(at)`, no snapshots", [*py, "sqlite-state", bare, FIGHT, str(late)]),
    ]:
        note = snapshot_note(kept, late) if "snapshots" in what and "no" not in what else ""
        add(f"at #{late:,}: {what}", late, argv, expect(late), note)
    # One undo naming an event just behind the newest snapshot, which then no longer holds:
    # validating the undo and every later state must start from an older one.
    undone = args.out / f"fight-{n}-undone.db"

    def fresh_copy() -> None:
        load.remove_db(undone)
        shutil.copyfile(db, undone)

    target = kept["undo_target"]
    argv = [*py, "sqlite-undo", str(undone), FIGHT, f"#{target}"]
    note = f"#{target:,} is behind the newest snapshot, #{n:,}"
    add(f"SQLite: `Fight.undo('#{target}')`, snapshots", n + 1, argv, None, note, fresh_copy)
    # retracting a `turn_ended` moves no fighter and costs no wound
    argv = [*py, "sqlite-state", str(undone), FIGHT]
    after_undo = (n + 1, summary["final"])
    note = f"snapshot #{n:,} no longer holds"
    add("SQLite: `Fight.state()` after that undo", n + 1, argv, after_undo, note)
    report = render(rows, summary, kept, n)
    print(report)
    args.results.write_text(report)


def cpu() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            return next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        return platform.machine()


def render(rows: list[Row], summary: dict[str, Any], kept: dict[str, Any], n: int) -> str:
    counts = ", ".join(f"{k} {v:,}" for k, v in summary["counts"].items())
    size = Path(kept["file"]).stat().st_size / 1e6
    head = ["measurement (one whole process each)", "events", "wall s", "vs decode", "peak RSS MiB"]
    lines = [
        "# Replay benchmark",
        "",
        f"Command: `.venv/bin/python tests/benchmarks/run.py --events {n}`",
        "",
        f"Fight: {summary['events']:,} events ({size:.0f} MB of JSON Lines), {summary['cast']} "
        f"fighters on {len(summary['sides'])} sides; {counts}. {kept['snapshots']:,} snapshots "
        "in the SQLite store that has them. Every state below was checked against the one the "
        "generator played to.",
        "",
        f"Machine: {cpu()}, {os.cpu_count()} CPUs, {platform.system()}; "
        f"{platform.python_implementation()} {platform.python_version()}, msgspec "
        f"{msgspec.__version__}. "
        "Wall time is the median of 3 runs for runs under 5 s, else one run; `vs decode` divides "
        "by bare decoding of as many events (of the whole file for the `at` rows).",
        "",
        "| " + " | ".join([*head, "note"]) + " |",
        "|" + "---|" * (len(head) + 1),
    ]
    for row in rows:
        lines.append("| " + " | ".join(row.cells()) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
