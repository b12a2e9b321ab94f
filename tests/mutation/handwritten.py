"""Hand-written mutations: plausible defects of the campaign, the report, sharing and tokens, the
session, the bounds and the Foundry module, and whether the tests notice each one.

Not a test: pytest never collects this folder. The catalogue is data (`handwritten.toml`): each
mutation names its file, the exact snippet it replaces (found exactly once, else the entry is
stale: the code moved on and the entry must be written again), its replacement, its area, the
defect a user would meet, and the tests that should catch it (and, for one sorted as
equivalent, `equivalent`: why no test can tell it from the code; it is listed, not run). As
`run.py` does, the source is copied to a scratch folder imported through PYTHONPATH ahead of
the editable install, so the checkout is never edited; each mutation is applied to the copy
alone, its tests run (`-x`, one process, a timeout), and the file put back.

    .venv/bin/python tests/mutation/handwritten.py                     # the whole catalogue
    .venv/bin/python tests/mutation/handwritten.py --area sharing --json sharing.json
    .venv/bin/python tests/mutation/handwritten.py --only cam-rest-default-last

A mutation of the Foundry module (`*.mjs`) runs node's test runner on
tests/integrations/foundry/ against a real `woundlog serve` (through
tests/integrations/test_foundry_module.py, whose module path is pointed at the copy).

Caught / run is printed per module and per area, then every survivor with its defect;
`--json FILE` keeps the results.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = Path(__file__).with_name("handwritten.toml")
FOUNDRY_TESTS = (
    "tests/integrations/test_foundry_module.py::test_the_module_works_against_a_real_server"
)
# plugins the tests named here do not use: each costs a second of every mutant's start
UNUSED_PLUGINS = ("schemathesis", "faker", "anyio")


def catalogue(path: Path) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = tomllib.loads(path.read_text())["mutation"]
    names = [str(e["name"]) for e in entries]
    twice = {n for n in names if names.count(n) > 1}
    if twice:
        sys.exit(f"names given twice in the catalogue: {', '.join(sorted(twice))}")
    for entry in entries:
        missing = {"name", "file", "find", "replace", "area", "defect", "tests"} - set(entry)
        if missing:
            sys.exit(f"{entry.get('name')}: missing {', '.join(sorted(missing))}")
    return entries


def copy_source(into: Path) -> None:
    """The three folders as the package `woundlog` (as installed), the tests and their config."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules")
    for folder in ("events", "core", "replays"):
        shutil.copytree(ROOT / folder, into / "woundlog" / folder, ignore=ignore)
    shutil.copytree(ROOT / "tests", into / "tests", ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")


def run_one(work: Path, entry: dict[str, object], timeout: float) -> dict[str, object]:
    """Apply `entry` to the copy, run its tests, put the file back: its outcome."""
    file = str(entry["file"])
    target = work / "woundlog" / file
    original = target.read_text()
    find, replace = str(entry["find"]), str(entry["replace"])
    found = original.count(find)
    outcome: dict[str, object] = {k: entry[k] for k in ("name", "file", "area", "defect")}
    if found != 1:
        return {**outcome, "result": "stale", "why": f"the snippet is found {found} times"}
    if "equivalent" in entry:  # sorted already: no test can tell it from the code (why given)
        return {**outcome, "result": "equivalent", "why": entry["equivalent"]}
    target.write_text(original.replace(find, replace))
    tests = [str(t) for t in entry["tests"]]  # type: ignore[attr-defined]
    if file.endswith(".mjs") and FOUNDRY_TESTS not in tests:
        tests.append(FOUNDRY_TESTS)
    unused = [arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")]
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:randomly",
               "-p", "no:cacheprovider", *unused, *tests]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(work), "CI": "1"}
    if file.endswith(".mjs"):  # the node tests load the module the environment names
        module = work / "woundlog/replays/integrations/foundry/woundlog.mjs"
        env["WOUNDLOG_MODULE"] = module.as_uri()
    started = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, timeout=timeout
        )
        code: int | None = done.returncode
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
    except subprocess.TimeoutExpired:  # the suite's own timeout (300 s a test) did not end it
        code, tail = None, ["timed out: not decided"]
    finally:
        target.write_text(original)
    seconds = round(time.monotonic() - started, 1)
    if code == 0:
        result = "missed"
    elif code == 1:  # a test failed (a test that hangs fails at the suite's 300 s timeout)
        result = "caught"
    elif code is None:
        result = "timeout"
    else:  # 2 to 5: interrupted, internal error, usage error, no tests collected
        result = "error"
    return {**outcome, "result": result, "seconds": seconds, "tail": tail}


def table(results: list[dict[str, object]], key: str) -> list[str]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in results:
        if r["result"] in ("caught", "missed"):
            counts[str(r[key])][0] += 1
            counts[str(r[key])][1] += r["result"] == "caught"
    lines = [f"| {key} | mutations | caught | % |", "|---|---|---|---|"]
    for name, (run, caught) in sorted(counts.items()):
        lines.append(f"| `{name}` | {run} | {caught} | {100 * caught // run}% |")
    run = sum(c[0] for c in counts.values())
    caught = sum(c[1] for c in counts.values())
    if run:
        lines.append(f"| all | {run} | {caught} | {100 * caught // run}% |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--catalogue", type=Path, default=CATALOGUE)
    parser.add_argument("--area", action="append", help="only this area (may be repeated)")
    parser.add_argument("--file", action="append", help="only mutations of this file")
    parser.add_argument("--only", action="append", help="only the mutation of this name")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds per mutation")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--list", action="store_true", help="check and list the catalogue only")
    args = parser.parse_args()
    entries = catalogue(args.catalogue)
    if args.area:
        entries = [e for e in entries if e["area"] in args.area]
    if args.file:
        entries = [e for e in entries if e["file"] in args.file]
    if args.only:
        entries = [e for e in entries if e["name"] in args.only]
    results: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="woundlog-handwritten-") as scratch:
        work = Path(scratch)
        copy_source(work)
        imported = subprocess.run(
            [sys.executable, "-c", "import woundlog.core; print(woundlog.core.__file__)"],
            capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": scratch},
        ).stdout  # fmt: skip
        if not imported.startswith(scratch):  # else every mutation would be missed, untested
            sys.exit(f"the tests would import {imported.strip()}, not the mutated copy")
        for entry in entries:
            if args.list:
                text = (work / "woundlog" / str(entry["file"])).read_text()
                found = text.count(str(entry["find"]))
                print(f"{entry['name']}: {'ok' if found == 1 else f'STALE ({found})'}")
                continue
            outcome = run_one(work, entry, args.timeout)
            results.append(outcome)
            print(f"{outcome['result']:7} {outcome['name']} ({outcome.get('seconds', 0)} s)",
                  flush=True)  # fmt: skip
            if args.json is not None:  # after each, so a run stopped keeps the rest
                args.json.write_text(json.dumps(results, indent=1))
    if args.list:
        return
    print("\n".join(["", *table(results, "file"), "", *table(results, "area"), ""]))
    for r in results:
        if r["result"] != "caught":
            print(f"{r['result']}: {r['name']} ({r['file']}): {r['defect']}")
            if r["result"] in ("stale", "error", "equivalent"):
                print("   ", r.get("why") or " / ".join(r.get("tail") or []))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
