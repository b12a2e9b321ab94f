"""`woundlog timeline FIGHT|FILE.jsonl -o fight.svg|png`, run as a real CLI subprocess."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib.resources import files
from pathlib import Path

import pytest

from woundlog.events import CharacterJoined, read_jsonl
from woundlog.events.stores import SQLiteStore
from woundlog.replays.fight import Fight

SVG = "{http://www.w3.org/2000/svg}"
LOG = Path(str(files("woundlog.replays") / "data" / "warhammer_quest_fire_chasm.jsonl"))


def woundlog(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from woundlog.replays.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_svg_is_well_formed_with_a_row_per_character_and_a_column_per_event(tmp_path: Path) -> None:
    out = tmp_path / "fight.svg"
    done = woundlog("timeline", str(LOG), "-o", str(out))
    assert done.returncode == 0, done.stderr
    svg = ET.parse(out).getroot()  # raises on anything not well-formed
    events = [e for _, e in read_jsonl(LOG)]
    rows = svg.findall(f"{SVG}g[@class='row']")
    joined = [e.character for e in events if isinstance(e, CharacterJoined)]
    assert [row.get("data-character") for row in rows] == joined
    for row in rows:
        seqs = [cell.get("data-seq") for cell in row.findall(f"{SVG}rect[@class='cell']")]
        assert seqs == [str(n) for n in range(1, len(events) + 1)]
    assert svg.find(f"{SVG}title").text == "The fire chasm"  # type: ignore[union-attr]


def test_timeline_says_what_it_wrote(tmp_path: Path) -> None:
    """The fire chasm: 33 events, 8 characters joined (`grep -c` of the log file)."""
    events = [e for _, e in read_jsonl(LOG)]
    cast = sum(isinstance(e, CharacterJoined) for e in events)
    assert (len(events), cast) == (33, 8)
    for name in ("fight.svg", "fight.png"):
        out = tmp_path / name
        done = woundlog("timeline", str(LOG), "-o", str(out))
        assert done.returncode == 0, done.stderr
        kind = out.suffix[1:].upper()
        assert done.stdout == (
            f"wrote {out} ({kind}, {out.stat().st_size:,} bytes): the timeline of "
            "`The fire chasm`, 8 characters over 33 events\n"
        )


def test_svg_cells_show_the_state_each_character_had_then(tmp_path: Path) -> None:
    out = tmp_path / "fight.svg"
    assert woundlog("timeline", str(LOG), "-o", str(out)).returncode == 0
    svg = ET.parse(out).getroot()
    with SQLiteStore(":memory:") as store:
        store.append("f", [e for _, e in read_jsonl(LOG)])
        fight = Fight(store, "f")
        for at in (11, 20, fight.version):
            expected = {k: c.state for k, c in fight.state(at).characters.items()}
            cells = svg.findall(f".//{SVG}rect[@data-seq='{at}'][@data-state]")
            drawn = {c.get("data-state") for c in cells}
            assert drawn == set(expected.values()), f"at {at}"


def test_png_decodes(tmp_path: Path) -> None:
    pytest.importorskip("cairosvg", reason="PNG pictures need the `pictures` extra")
    from PIL import Image

    out = tmp_path / "fight.png"
    done = woundlog("timeline", str(LOG), "-o", str(out))
    assert done.returncode == 0, done.stderr
    with Image.open(out) as picture:
        picture.verify()
        assert picture.format == "PNG"
        assert picture.size[0] > picture.size[1] > 100


def test_a_fight_in_the_store_draws_too(tmp_path: Path) -> None:
    db = tmp_path / "fights.db"
    with SQLiteStore(str(db)) as store:
        store.append("chasm", [e for _, e in read_jsonl(LOG)])
    out = tmp_path / "chasm.svg"
    done = woundlog("--db", str(db), "timeline", "chasm", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert ET.parse(out).getroot().tag == f"{SVG}svg"


def test_an_unknown_picture_format_is_refused_with_what_to_write(tmp_path: Path) -> None:
    done = woundlog("timeline", str(LOG), "-o", str(tmp_path / "fight.gif"))
    assert done.returncode == 2
    assert "write .svg or .png, or - for standard output" in done.stderr


ROADSIDE = Path(__file__).parent / "data" / "roadside.jsonl"


def test_turns_without_a_round_carry_the_last_round_on_and_say_whose_turn(tmp_path: Path) -> None:
    """The roadside fight ticks round 1 at Tordek's turn, then the goblin boss's and Mirabel's
    turns without a round: all of it is round 1 (it was labelled "Setup" again), and each
    character's tick says whose turn it is."""
    out = tmp_path / "roadside.svg"
    done = woundlog("timeline", str(ROADSIDE), "-o", str(out))
    assert done.returncode == 0, done.stderr
    svg = ET.parse(out).getroot()
    rounds = [text.text for text in svg.iter(f"{SVG}text") if text.get("class") == "round"]
    assert rounds == ["Setup", "Round 1"]
    whose = {
        text.get("data-seq"): text.text
        for text in svg.iter(f"{SVG}text")
        if text.get("class") == "whose"
    }
    assert whose == {
        "6": "Tordek",
        "8": "Tordek",
        "9": "Goblin Boss",
        "11": "Goblin Boss",
        "12": "Mirabel",
    }
