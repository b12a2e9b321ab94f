"""Issue 13 on the CLI: `woundlog import foundry FILE` past a record the rules refuse. The
import goes through, the refused record is named on standard error, and the records after it
are in the fight (a real `woundlog` process on a real SQLite file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).parent.parent / "data" / "importers"
REFUSED = DATA / "foundry_dnd5e_refused.jsonl"
BRAKKA = "Actor.actBrakka0000001"  # a linked actor: its world uuid
GOBLIN_1 = "Scene.sceneMain0000001.Token.tkGoblin00000001"


def woundlog(db: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"WOUNDLOG_DB": str(db), "COLUMNS": "200"}
    return subprocess.run(
        [str(Path(sys.executable).parent / "woundlog"), *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_import_goes_past_a_refused_record_and_names_it(tmp_path: Path) -> None:
    db = tmp_path / "fights.db"
    done = woundlog(db, "import", "foundry", REFUSED, "--into", "ambush", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "imported" in done.stdout
    assert "record 2" in done.stderr and "left out: Goblin (1) is dead" in done.stderr
    assert "kept without its attacker" in done.stderr
    state = json.loads(woundlog(db, "state", "ambush", "--json").stdout)
    assert state["characters"][GOBLIN_1]["state"] == "dead"
    assert state["characters"][BRAKKA]["hp"] == 3  # 12 - 4 - 5, as Foundry shows


def test_importing_the_same_file_again_adds_nothing(tmp_path: Path) -> None:
    db = tmp_path / "fights.db"
    first = woundlog(db, "import", "foundry", REFUSED, "--into", "ambush", "--seed", "3")
    assert first.returncode == 0, first.stderr
    again = woundlog(db, "import", "foundry", REFUSED, "--into", "ambush")
    assert again.returncode == 0, again.stderr
    assert "imported 0 events" in again.stdout
