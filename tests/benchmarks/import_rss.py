"""Issue 37: the peak memory of `woundlog import FORMAT FILE` of another program's records, as a
JSON array of N copies of Improved Initiative's autosaves (tests/data/importers: 68 records,
266 KB), one whole process each, from `wait4`'s maximum resident set size.

    .venv/bin/python tests/benchmarks/import_rss.py --sizes 1,12,48

A size is the file's megabytes (about). Before issue 37 the records were decoded whole into
Python objects: 12 MB took 610-776 MB. Compare versions with PYTHONPATH (README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).parents[1] / "data" / "importers"
SOURCES = {  # each format's recording: a JSON array, or JSON Lines
    "improved-initiative": DATA / "improved_initiative_autosaves.json",
    "avrae": DATA / "avrae_combat.jsonl",
    "foundry": DATA / "foundry_dnd5e.jsonl",
}


def records_file(folder: Path, megabytes: int, shape: str, fmt: str) -> Path:
    text = SOURCES[fmt].read_text()
    records = (
        json.loads(text)
        if text.lstrip().startswith("[")
        else list(map(json.loads, text.splitlines()))
    )
    one = [json.dumps(record) for record in records]
    per_copy = sum(map(len, one)) + 2 * len(one)
    copies = max(1, megabytes * 1_000_000 // per_copy)
    path = folder / f"records-{megabytes}.{shape}"
    # written copy by copy: this process stays small, and a child's peak RSS starts at its
    # parent's (Linux keeps the high-water mark across fork and exec)
    with open(path, "w") as out:
        out.write("[\n" if shape == "json" else "")
        for copy in range(copies):
            last = copy == copies - 1
            joiner = ",\n" if shape == "json" else "\n"
            out.write(joiner.join(one) + ("" if last and shape == "json" else joiner))
        out.write("\n]\n" if shape == "json" else "")
    return path


def peak_rss(args: list[str], env: dict[str, str]) -> tuple[int, float, int]:
    """The peak resident set size (bytes), CPU seconds and exit status of one process."""
    child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stderr is not None
    said = child.stderr.read().decode()
    if child.returncode:
        print(said, file=sys.stderr)
    return usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime, child.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,12,48")
    parser.add_argument("--shapes", default="json,jsonl")
    parser.add_argument("--formats", default="improved-initiative,avrae,foundry")
    options = parser.parse_args()
    woundlog = Path(sys.executable).with_name("woundlog")
    folder = Path(tempfile.mkdtemp(prefix="import-rss-"))
    try:
        print("| format | file | size (MB) | peak RSS (MB) | CPU (s) | exit |")
        print("|---|---|---|---|---|---|")
        for fmt in options.formats.split(","):
            for shape in options.shapes.split(","):
                for megabytes in map(int, options.sizes.split(",")):
                    path = records_file(folder, megabytes, shape, fmt)
                    db = folder / f"{fmt}-{shape}-{megabytes}.db"
                    rss, cpu, code = peak_rss(
                        [str(woundlog), "import", fmt, str(path), "--into", "f"],
                        dict(os.environ, WOUNDLOG_DB=str(db)),
                    )
                    size = path.stat().st_size / 1e6
                    print(
                        f"| {fmt} | {shape} | {size:.1f} | {rss / 1e6:.0f} | {cpu:.2f} | {code} |"
                    )
                    path.unlink()
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
