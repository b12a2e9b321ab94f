"""Issue 28's table of aims, every row a ratio measured side by side in one run (not a test).

    .venv/bin/python tests/benchmarks/aims.py [--events N] [--counter instructions|cpu]
        [--runs R] [--suite | --pytest-log FILE] [--results FILE]

Needs the benchmark-only extra (`pip install -e '.[bench]'`: eventsourcing). Each row puts two
whole processes side by side, one right after the other on the same machine:

  replay / minimal fold        `replay_file_state` of the N-event fight (generate.py) against
                               minimal_fold.py, the hand-written fold of the same fight
  replay per event             the same, per event: each counted at N/2 and N events, the
                               difference divided by N/2, so start-up (Python, imports) cancels
                               out; for the Mordheim fight beside the minimal fold's, and for a
                               dnd5e fight of heals and death saves (generate_dnd5e.py, N/2 and
                               N events), against issue 42's aim of 40,000 instructions
  eventsourcing / woundlog     eventsourcing 9.5 reading the fight back from its SQLite store
                               and folding it with its own hand-written fold (es_own_fold.py)
                               against `Fight.state()` on a woundlog SQLite store without
                               snapshots, and on one with a snapshot every 500 events
  import memory                `woundlog import` of the first N/10 events and of all N: the
                               peak resident memory of each (GNU time)
  start-up                     `woundlog hit` on a small fight and `woundlog --version`
                               against `python -c pass`, installed as a user installs it (not
                               editable, a temporary venv; see startup.py)
  test suite                   the wall time of the whole suite: read from a pytest log
                               (`--pytest-log FILE`, its last "in 385.12s" line) or run here
                               (`--suite`: `pytest -n 2`, about 7 minutes); else skipped

`--counter instructions` (the default) counts each process's instructions under valgrind's
callgrind, which the load of a shared machine does not move; callgrind runs about 50 times
slower, so at 1,000,000 events the eventsourcing row takes the better part of an hour:
`--counter cpu` takes the median CPU seconds (user + system) of `--runs` runs instead. The
table says which it used. Memory and the suite's time are what they are, whatever the counter.
Every state a process answers is checked against the one the generator played to.
`--rows replay` runs the per-event rows alone (minutes, not hours, at 100,000 events).

Each counted process runs with PYTHONHASHSEED=0 (a string's hash moves dict and set layouts,
so instruction counts) and with its modules' bytecode cached: PYTHONDONTWRITEBYTECODE in the
environment would make every process compile every module it imports (483 M instructions to
import woundlog against 113 M cached), so it is taken out of the children's environment, and
each process runs once uncounted first, which writes the cache.

Files go to tests/benchmarks/out/ (gitignored) and are reused while the fight, the loaders, the
rules and es_own_fold.py are unchanged. Writes FILE (default tests/benchmarks/aims-now.md).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import eventsourcing_compare  # noqa: E402
import load  # noqa: E402
import run  # noqa: E402
import startup  # noqa: E402

FIGHT = "bench"
DND5E_SEED = 5
"""The dnd5e fight's seed (generate_dnd5e.py)."""
REPLAY_AIM = 40_000
"""Issue 42: instructions an event of a replay of the benchmark fight, at most."""


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a counted process: `env` (default: this one) with its hash seed
    fixed and bytecode written (see the module's docstring)."""
    fixed = dict(os.environ if env is None else env)
    fixed.pop("PYTHONDONTWRITEBYTECODE", None)
    fixed["PYTHONHASHSEED"] = "0"
    return fixed


BATCH = 10_000
"""Aggregate events saved by one `Application.save` while the eventsourcing store is written."""


@dataclass(frozen=True)
class Aim:
    figure: str
    now: float
    aim: float
    at_least: bool  # the aim is a floor (eventsourcing slower by at least), else a ceiling
    detail: str
    unit: str = "x"

    def met(self) -> bool:
        return self.now >= self.aim if self.at_least else self.now <= self.aim

    def cells(self) -> str:
        sign = ">=" if self.at_least else "<="
        verdict = "met" if self.met() else "not met"
        return (
            f"| {self.figure} | {self.now:.2f}{self.unit} | {sign} {self.aim:g}{self.unit} "
            f"| {verdict} | {self.detail} |"
        )


class Counter:
    """What one process costs: its instructions (callgrind) or its median CPU seconds."""

    def __init__(self, kind: str, runs: int) -> None:
        self.kind, self.runs = kind, runs

    @property
    def unit(self) -> str:
        return "instructions (callgrind)" if self.kind == "instructions" else "CPU seconds"

    def shown(self, figure: float) -> str:
        if self.kind == "instructions":
            return f"{figure / 1e9:.2f} G" if figure >= 1e9 else f"{figure / 1e6:.0f} M"
        return f"{figure:.2f} s" if figure >= 1 else f"{figure * 1000:.0f} ms"

    def count(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        before: Callable[[], None] | None = None,
    ) -> tuple[float, str]:
        """The process's figure, and its stdout (of its last run), after one run not counted:
        a module edited since its last run compiles its bytecode then, which no user's run does
        (it cost a snapshot read of 307 M instructions 47 M more)."""
        env = child_env(env)
        if before:
            before()
        cpu_of(argv, env)
        if self.kind == "cpu":
            cpus, text = [], ""
            for _ in range(self.runs):
                if before:
                    before()
                done, cpu = cpu_of(argv, env)
                cpus.append(cpu)
                text = done
            cpus.sort()
            return cpus[len(cpus) // 2], text
        if before:
            before()
        counted = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
        done = subprocess.run(counted, env=env, capture_output=True, text=True, check=False)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"{' '.join(counted)} failed ({done.returncode}):\n{done.stderr}")
        return float(found.group(1)), done.stdout


def cpu_of(argv: list[str], env: dict[str, str] | None) -> tuple[str, float]:
    """Stdout and CPU seconds (user + system, from `wait4`) of one process."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            assert child.stderr is not None
            raise SystemExit(f"{' '.join(argv)} failed:\n{child.stderr.read().decode()}")
        out.seek(0)
        return out.read().decode(), usage.ru_utime + usage.ru_stime


def checked(text: str, expected: dict[str, Any], seq: int, what: str) -> None:
    verdict = run.check(text, expected, seq)
    if verdict != "ok":
        raise SystemExit(f"{what}: {verdict}")


# --- the stores -------------------------------------------------------------------------------


def prepare(out: Path, n: int, fresh: bool) -> dict[str, Any]:
    """The fight of `n` events and its first tenth, the eventsourcing store of the fight with
    its own fold, and woundlog's two SQLite stores of it (or reuse them)."""
    from woundlog.replays.snapshots import rules_fingerprint

    small = n // 10
    files = run.prepare_files(out, n, [small, n // 2, n], fresh)
    path = Path(files["files"][str(n)])
    stamp_path = out / f"aims-{n}.stamp.json"
    digest = hashlib.sha256(run.fingerprint(n).encode() + rules_fingerprint())
    for name in ("es_own_fold.py", "minimal_fold.py"):
        digest.update((HERE / name).read_bytes())
    stamp = digest.hexdigest()[:16]
    kept = json.loads(stamp_path.read_text()) if stamp_path.exists() and not fresh else {}
    es_db, db, bare = (out / f"aims-{n}{tail}.db" for tail in ("-es-own", "", "-no-snapshots"))
    if kept.get("stamp") != stamp or not all(p.exists() for p in (es_db, db, bare)):
        began = time.perf_counter()
        aggregate = write_eventsourcing(path, es_db)
        print(f"eventsourcing store written in {time.perf_counter() - began:.0f}s", file=sys.stderr)
        began = time.perf_counter()
        load.load(path, db, bare, FIGHT)
        print(f"woundlog stores written in {time.perf_counter() - began:.0f}s", file=sys.stderr)
        kept = {"stamp": stamp, "aggregate": aggregate}
        stamp_path.write_text(json.dumps(kept))
    return {
        "files": files["files"],
        "summary": files["summary"],
        "es_db": str(es_db),
        "db": str(db),
        "bare_db": str(bare),
        "aggregate": kept["aggregate"],
    }


def write_eventsourcing(path: Path, db: Path) -> str:
    """The fight as it stands, recorded as the aggregate's own events; the aggregate's id."""
    from es_own_fold import MordheimFight, record, standing

    load.remove_db(db)
    app = eventsourcing_compare._application(db)
    fight = MordheimFight()
    for seq, stands in standing(path):
        record(fight, seq, stands)
        if seq % BATCH == 0:
            app.save(fight)
    app.save(fight)
    return str(fight.id)


def fold_eventsourcing(db: str, aggregate: str) -> dict[str, Any]:
    """A child process: eventsourcing reads the aggregate back and folds it with its own fold."""
    import es_own_fold  # noqa: F401  (its events' topics must resolve)

    app = eventsourcing_compare._application(Path(db))
    summary: dict[str, Any] = app.repository.get(UUID(aggregate)).summary()
    return summary


# --- the rows ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PerEvent:
    """A replay's cost per event: the difference of two sizes of one fight over their
    difference in events (start-up cancels out), beside the aim when counted in instructions."""

    figure: str
    now: float
    counter: Counter
    detail: str

    def cells(self) -> str:
        if self.counter.kind == "instructions":
            verdict = "met" if self.now <= REPLAY_AIM else "not met"
            aim = f"<= {REPLAY_AIM:,}"
            return f"| {self.figure} | {self.now:,.0f} | {aim} | {verdict} | {self.detail} |"
        return f"| {self.figure} | {self.now * 1e6:.1f} us | | | {self.detail} |"


def per_event(
    counter: Counter, task: str, files: dict[int, str], check: Callable[[int, str], None]
) -> float:
    """What `measure.py TASK` costs per event between the two sizes of `files` (events: file)."""
    py = [sys.executable, str(HERE / "measure.py")]
    (small, small_file), (large, large_file) = sorted(files.items())
    figures = []
    for size, file in ((small, small_file), (large, large_file)):
        figure, text = counter.count([*py, task, file])
        check(size, text)
        figures.append(figure)
    return (figures[1] - figures[0]) / (large - small)


def replay_per_event(counter: Counter, kept: dict[str, Any], n: int, out: Path) -> list[PerEvent]:
    """Replay per event of the Mordheim fight (beside the minimal fold's) and of the dnd5e
    fight, each from its N/2 and N events."""
    half = n // 2
    summary = kept["summary"]
    files = {half: kept["files"][str(half)], n: kept["files"][str(n)]}

    def mordheim(size: int, text: str) -> None:
        expected = summary["final"] if size == n else summary["at"][str(size)]
        checked(text, expected, size, f"replay of {size:,} events")

    replay = per_event(counter, "replay-state", files, mordheim)
    minimal = per_event(counter, "minimal-fold", files, mordheim)
    dnd5e = prepare_dnd5e(out, [half, n])
    finals = {size: made["final"] for size, made in dnd5e.items()}

    def of_dnd5e(size: int, text: str) -> None:
        checked(text, finals[size]["characters"], finals[size]["seq"], f"dnd5e, {size:,}")

    dnd5e_files = {size: made["file"] for size, made in dnd5e.items()}
    dnd5e_replay = per_event(counter, "replay-state", dnd5e_files, of_dnd5e)
    unit = "instructions" if counter.kind == "instructions" else "CPU"
    return [
        PerEvent(
            f"replay per event, the Mordheim fight ({half:,} -> {n:,} events)",
            replay,
            counter,
            f"{unit}; the minimal fold {minimal:,.0f} ({replay / minimal:.2f}x)"
            if counter.kind == "instructions"
            else f"{unit}; the minimal fold {minimal * 1e6:.1f} us ({replay / minimal:.2f}x)",
        ),
        PerEvent(
            f"replay per event, the dnd5e fight ({half:,} -> {n:,} events)",
            dnd5e_replay,
            counter,
            unit,
        ),
    ]


def prepare_dnd5e(out: Path, sizes: list[int]) -> dict[int, dict[str, Any]]:
    """The dnd5e fight at each of `sizes` (generate_dnd5e.py, seed DND5E_SEED), each with the
    state its generator played to; kept in `out` while the generator and the rules are the
    same."""
    import generate_dnd5e

    from woundlog.replays.snapshots import rules_fingerprint

    made: dict[int, dict[str, Any]] = {}
    digest = hashlib.sha256((HERE / "generate_dnd5e.py").read_bytes() + rules_fingerprint())
    stamp = f"{DND5E_SEED} {digest.hexdigest()[:16]}"
    for size in sizes:
        path = out / f"dnd5e-{size}.jsonl"
        kept_path = out / f"dnd5e-{size}.summary.json"
        kept = json.loads(kept_path.read_text()) if kept_path.exists() else {}
        if kept.get("stamp") != stamp or not path.exists():
            out.mkdir(parents=True, exist_ok=True)
            summary = generate_dnd5e.generate(path, size, DND5E_SEED)
            path.write_bytes(b"\n".join(summary.pop("lines")) + b"\n")
            kept = {"stamp": stamp, **summary}
            kept_path.write_text(json.dumps(kept))
        made[size] = {"file": str(path), **kept}
    return made


def the_fights(kept: dict[str, Any], n: int, out: Path) -> str:
    """Which fights the rows fold, in a sentence."""
    summary = kept["summary"]
    counts = ", ".join(f"{count:,} {kind}" for kind, count in summary.get("counts", {}).items())
    cast, sides = summary.get("cast", "?"), len(summary.get("sides", []))
    said = (
        f"The Mordheim fight: generate.py, seed {run.SEED}, {n:,} events"
        f" ({counts}; {cast} fighters on {sides} sides)."
    )
    dnd5e_summary = out / f"dnd5e-{n}.summary.json"
    if dnd5e_summary.exists():
        made = json.loads(dnd5e_summary.read_text())
        counts = ", ".join(f"{count:,} {kind}" for kind, count in made["counts"].items())
        said += (
            f" The dnd5e fight: generate_dnd5e.py, seed {DND5E_SEED}, {made['events']:,} events"
            f" ({counts}; 8 adventurers and 32 monsters, options monster_death_saves and revival)."
        )
    return said


def folds(counter: Counter, kept: dict[str, Any], n: int) -> list[Aim]:
    final = kept["summary"]["final"]
    py = [sys.executable, str(HERE / "measure.py")]
    file = kept["files"][str(n)]
    figures = {}
    for task in ("minimal-fold", "replay-state"):
        figures[task], text = counter.count([*py, task, file])
        checked(text, final, n, task)  # (the per-event rows put start-up aside)
    child = [sys.executable, str(Path(__file__).resolve()), "--es-child"]
    figures["eventsourcing"], text = counter.count([*child, kept["es_db"], kept["aggregate"]])
    checked(text, final, n, "eventsourcing")
    for name, db in (("bare", kept["bare_db"]), ("snapshots", kept["db"])):
        figures[name], text = counter.count([*py, "sqlite-state", db, FIGHT])
        checked(text, final, n, f"woundlog {name}")
    shown = {task: counter.shown(figure) for task, figure in figures.items()}
    es = figures["eventsourcing"]
    return [
        Aim(
            f"replay of {n:,} events / the minimal hand-written fold",
            figures["replay-state"] / figures["minimal-fold"],
            2.0,
            False,
            f"{shown['replay-state']} / {shown['minimal-fold']}",
        ),
        Aim(
            f"eventsourcing with its own fold / woundlog, {n:,} events, no snapshots",
            es / figures["bare"],
            6.0,
            True,
            f"{shown['eventsourcing']} / {shown['bare']}",
        ),
        Aim(
            f"eventsourcing with its own fold / woundlog with snapshots, {n:,}",
            es / figures["snapshots"],
            150.0,
            True,
            f"{shown['eventsourcing']} / {shown['snapshots']}",
        ),
    ]


def import_memory(kept: dict[str, Any], n: int) -> Aim:
    """Peak RSS of `woundlog import` of the first tenth of the fight and of all of it."""
    script = startup.woundlog_script()
    small = n // 10
    peaks = {}
    with tempfile.TemporaryDirectory(prefix="woundlog-aims-") as tmp:
        for size in (small, n):
            db = Path(tmp) / f"import-{size}.db"
            argv = [script, "--db", str(db), "import", kept["files"][str(size)], "--as", "imported"]
            _, peaks[size], _ = run.run_child(argv)
            state = [script, "--db", str(db), "state", "imported", "--json"]
            text = subprocess.run(state, capture_output=True, text=True, check=True).stdout
            expected = kept["summary"]["final"] if size == n else kept["summary"]["at"][str(size)]
            checked(text, expected, size, f"import of {size:,}")
    mib = {size: peak / 1024 for size, peak in peaks.items()}
    return Aim(
        f"`woundlog import` peak memory, {small:,} vs {n:,} events",
        mib[n] / mib[small],
        1.2,
        False,
        f"{mib[small]:.0f} vs {mib[n]:.0f} MiB",
    )


def start_up(counter: Counter) -> list[Aim]:
    """`woundlog hit` and `--version` beside `python -c pass`, all of a non-editable install."""
    names = ("python -c pass", "woundlog hit", "woundlog --version")
    figures = {}
    with tempfile.TemporaryDirectory(prefix="woundlog-aims-") as tmp:
        commands = startup.every_command(Path(tmp), None, None, installed=True)
        for name in names:
            argv, env, before = commands[f"{name} (installed)"]
            figures[name], _ = counter.count(argv, env, before)
    python = figures["python -c pass"]
    shown = {name: counter.shown(figure) for name, figure in figures.items()}
    return [
        Aim(
            "`woundlog hit` / `python -c pass`, installed",
            figures["woundlog hit"] / python,
            7.0,
            False,
            f"{shown['woundlog hit']} / {shown['python -c pass']}",
        ),
        Aim(
            "`woundlog --version` / `python -c pass`, installed",
            figures["woundlog --version"] / python,
            3.0,
            False,
            f"{shown['woundlog --version']} / {shown['python -c pass']}",
        ),
    ]


SUITE_TIME = re.compile(r" in (\d+(?:\.\d+)?)s")


def suite(log: Path | None, run_it: bool) -> Aim | str:
    """The suite's wall time in minutes, from `log` or a run of its own; else why not."""
    if run_it:
        pytest = Path(sys.executable).with_name("pytest")
        began = time.perf_counter()
        done = subprocess.run([str(pytest), "-q", "-n", "2"], cwd=HERE.parents[1], check=False)
        took, source = time.perf_counter() - began, f"run here, exit status {done.returncode}"
    elif log is not None:
        found = SUITE_TIME.findall(log.read_text())
        if not found:
            return f"no pytest summary (`... in 385.12s`) in {log}"
        took, source = float(found[-1]), f"from {log.name}"
    else:
        return "skipped: pass `--suite` to run it (about 7 minutes) or `--pytest-log FILE`"
    return Aim("the whole test suite on this machine", took / 60, 12.0, False, source, " min")


def table(aims: list[Aim | PerEvent], suite_row: Aim | str | None, counter: Counter) -> list[str]:
    lines = [
        "| figure | now | aim | | measured |",
        "|---|---|---|---|---|",
        *(aim.cells() for aim in aims),
    ]
    if isinstance(suite_row, Aim):
        lines.append(suite_row.cells())
    elif suite_row is not None:
        lines.append(f"| the whole test suite | | <= 12 min | | {suite_row} |")
    lines += [
        "",
        f"Ratios of {counter.unit} of whole processes, but memory (peak RSS, GNU time) and the "
        "suite (wall time). Every state was checked against the generator's.",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--counter", choices=("instructions", "cpu"), default="instructions")
    parser.add_argument("--runs", type=int, default=3, help="with --counter cpu: runs (median)")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--fresh", action="store_true", help="remake the fight and the stores")
    parser.add_argument("--results", type=Path, default=HERE / "aims-now.md")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--suite", action="store_true", help="run the whole test suite too")
    which.add_argument("--pytest-log", type=Path, help="read the suite's time from this log")
    parser.add_argument(
        "--rows", choices=("all", "replay"), default="all", help="replay: the per-event rows alone"
    )
    args = parser.parse_args()
    n: int = args.events
    counter = Counter(args.counter, args.runs)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_avg = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
    ).stdout.strip()
    if "PYTHONDONTWRITEBYTECODE" in os.environ:
        print(
            "PYTHONDONTWRITEBYTECODE is set: taken out of each counted process's", file=sys.stderr
        )
    aims: list[Aim | PerEvent] = []
    suite_row: Aim | str | None = None
    if args.rows == "replay":
        kept = {
            "files": run.prepare_files(args.out, n, [n // 2, n], args.fresh)["files"],
            "summary": run.prepare_files(args.out, n, [n // 2, n], False)["summary"],
        }
        print("replay per event ...", file=sys.stderr)
        aims += replay_per_event(counter, kept, n, args.out)
    else:
        kept = prepare(args.out, n, args.fresh)
        print("replay per event ...", file=sys.stderr)
        aims += replay_per_event(counter, kept, n, args.out)
        print("folds ...", file=sys.stderr)
        aims += folds(counter, kept, n)
        print("import memory ...", file=sys.stderr)
        aims.append(import_memory(kept, n))
        print("start-up ...", file=sys.stderr)
        aims += start_up(counter)
        suite_row = suite(args.pytest_log, args.suite)
    command = " ".join(["tests/benchmarks/aims.py", *sys.argv[1:]])
    text = "\n".join(
        [
            "# Issues 28 and 42's aims, measured in one run",
            "",
            f"`.venv/bin/python {command}`, {when}, commit {commit}; {run.cpu()}, "
            f"{os.cpu_count()} CPUs, {platform.python_implementation()} "
            f"{platform.python_version()}; load average at the start {load_avg}.",
            "",
            *table(aims, suite_row, counter),
            "",
            the_fights(kept, n, args.out),
            "",
        ]
    )
    args.results.write_text(text)
    print(text)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--es-child"]:
        print(json.dumps(fold_eventsourcing(sys.argv[2], sys.argv[3])))
    else:
        main()
