"""CI's check of what a user installs: every file git keeps under the three layers (events/,
core/, replays/) is in the wheel, at its place under woundlog/, and the wheel holds nothing
else. A package folder setuptools did not find, or a kind of file pyproject.toml's
package-data does not name, fails here, before any test runs.

Usage: python .ci/wheel_has_the_tree.py WHEEL"""

from __future__ import annotations

import subprocess
import sys
import zipfile

LAYERS = ("events", "core", "replays")


def main(wheel: str) -> int:
    kept = subprocess.run(
        ["git", "ls-files", "-z", *LAYERS], check=True, capture_output=True, text=True
    ).stdout.split("\0")
    tree = {f"woundlog/{path}" for path in kept if path}
    with zipfile.ZipFile(wheel) as made:
        shipped = {
            name for name in made.namelist() if not name.split("/")[0].endswith(".dist-info")
        }
    missing, extra = sorted(tree - shipped), sorted(shipped - tree)
    for name in missing:
        print(
            f"the wheel lacks {name} (a package setup.py did not find, or a kind of file "
            "pyproject.toml's package-data does not name)"
        )
    for name in extra:
        print(f"the wheel has {name}, which git does not keep")
    if not missing and not extra:
        print(f"the wheel has the tree's {len(tree)} files, and nothing else")
    return 1 if missing or extra else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
