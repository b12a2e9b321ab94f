"""A report in flat memory (issue 42): made in one pass over one fold, its chronicle written
aside as it is told and its Markdown and HTML written out piece by piece, byte for byte what
the report built whole the way it was before (two folds, the fight as it stands and as it
happened, every event held, the whole text made at once) gives; and nothing it keeps while it
reads grows with the fight."""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from unittest import mock

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.strategies import mordheim_logs
from woundlog.events import (
    Amend,
    CharacterJoined,
    Event,
    FightStarted,
    Hit,
    Retract,
    TurnEnded,
    TurnStarted,
)
from woundlog.events.codec import write_jsonl
from woundlog.replays.application import Application
from woundlog.replays.cli import app as cli
from woundlog.replays.files import file_fight
from woundlog.replays.fold import replayed
from woundlog.replays.render.html import fragment_pieces, html_pieces, report_fragment, report_html
from woundlog.replays.render.markdown import markdown_pieces, report_markdown
from woundlog.replays.report import ChronicleSpool, Line, OnePass, Report, Track, build
from woundlog.replays.report import luck as luck_module
from woundlog.replays.report import one_pass as one_pass_module
from woundlog.replays.report import spool as spool_module

ROOT = Path(__file__).resolve().parent.parent.parent
LOGS = sorted((ROOT / "tests" / "data" / "report").glob("*.jsonl")) + sorted(
    Path(str(files("woundlog.replays") / "data")).glob("*.jsonl")
)
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def written(log: list[Event], folder: Path) -> Path:
    path = folder / f"fight{len(list(folder.glob('*.jsonl')))}.jsonl"
    with path.open("wb") as out:
        write_jsonl(out, log)
    return path


def the_old_way(path: Path) -> Report:
    """The report as it was made before issue 42: the stored events held in a list, folded
    once as the fight stands (`fold.replayed`) and once as it happened (`Fight.history`, a
    refold of the log at every undo event), every sentence kept, the chronicle whole."""
    with file_fight(path) as opened:
        version = opened.version
        stream = list(opened.events(1, version))
        steps = replayed(stream, opened.undo_resolution(version))
        played = [(stored, *step) for stored, step in zip(stream, steps, strict=True)]
        history = list(zip(stream, opened.history(version), strict=True))
    made = build(path.stem, played, history)
    # the whole fight's luck from the events as played held in a list, as it was
    start, final = played[0][2], played[-1][2]
    events = [
        luck_module.free(event)
        for _, event, _, _ in played
        if event is not None and not isinstance(event, FightStarted | Retract | Amend)
    ]
    characters, why = luck_module.fight_luck(start, events, final)
    made.luck = msgspec.structs.replace(made.luck, characters=characters, why_sampled=why)
    return made


def streamed(path: Path) -> tuple[Report, str, str, str]:
    """The report as `woundlog report` and the report page make it now: the value, and its
    Markdown, HTML page and fragment written out from the spooled chronicle."""
    made, spool = Application.without_store().report_spooled(path, tracks=True)
    with spool:
        markdown = "".join(markdown_pieces(made, spool.chapters()))
        page = "".join(html_pieces(made, spool.chapters(), tracks=spool.tracks))
        fragment = "".join(
            fragment_pieces(made, spool.chapters(), timeline="./", tracks=spool.tracks)
        )
        tracks = [Track(character=t.character, counter=t.counter, points=list(t.points))
                  for t in spool.tracks]  # fmt: skip
    return msgspec.structs.replace(made, tracks=tracks), markdown, page, fragment


def assert_the_same(path: Path) -> None:
    old = the_old_way(path)
    made, markdown, page, fragment = streamed(path)
    assert markdown == report_markdown(old)
    assert page == report_html(old)
    assert fragment == report_fragment(old, timeline="./")
    # the value too, but for the chronicle, which went to the spool
    assert msgspec.structs.replace(made, chronicle=old.chronicle) == old
    assert Application.without_store().report(path) == old


@SETTINGS
@given(log=mordheim_logs(undo=True, named=False) | mordheim_logs(undo=True, named=True))
def test_a_streamed_report_is_the_old_report_byte_for_byte(log: list[Event], folder: Path) -> None:
    assert_the_same(written(log, folder))


@settings(SETTINGS, max_examples=10)
@given(log=mordheim_logs(undo=True, named=True), steps=st.integers(0, 40))
def test_the_events_written_aside_give_the_same_luck(
    log: list[Event], steps: int, folder: Path
) -> None:
    """The whole fight's what-if, its events past the first FIGHT_STEPS + 1 not kept but for
    the ticks that end it, written aside and read back (`spool.EventSpool`), exact or sampled
    as the list of them was; the health tracks past a few points written aside too
    (`spool.TrackPoints`)."""
    path = written(log, folder)
    with (
        mock.patch.object(luck_module, "FIGHT_STEPS", steps),
        mock.patch.object(luck_module, "SAMPLE_STEPS", luck_module.FEWEST_SAMPLES * steps),
        mock.patch.object(spool_module.TrackPoints, "BUFFERED", 1 + steps // 8),
    ):
        assert_the_same(path)


def test_the_ticks_that_end_the_fight_are_read_back_freed_held_or_written_aside() -> None:
    """Past the head, a run of ticks is held as it comes and written aside past TICKS_HELD;
    another event drops the run; what is read back is each kept event as `freed` makes it."""

    def freed(event: Event) -> Event:
        return msgspec.structs.replace(event, rolls={}) if event.rolls else event

    def tick(n: int) -> Event:
        return TurnStarted(round=n, rolls={"recovery@grim": [n % 6 + 1]})

    hit = Hit(target="grim", damage=1, rolls={"injury": [3]})
    for held_at_most in (2, 3, 100):
        with mock.patch.object(spool_module, "TICKS_HELD", held_at_most):
            spool = spool_module.EventSpool(head=2)
            events = [hit, tick(1), *(tick(n) for n in range(2, 9))]
            for event in events:
                spool.add(event, freed)
            for _ in range(2):  # read again
                assert list(spool) == [freed(event) for event in events]
            assert len(spool) == 9 and spool[0] == freed(hit) and spool[8] == tick(8)
            spool.add(hit, freed)  # the ticks before it are dropped
            assert spool.ticks == [] and spool.file is None and len(spool) == 10
            spool.close()


@pytest.mark.parametrize("log", LOGS, ids=lambda path: path.stem)
def test_every_shipped_and_test_log_is_reported_as_before(log: Path, tmp_path: Path) -> None:
    path = tmp_path / log.name
    path.write_bytes(log.read_bytes())
    assert_the_same(path)


@SETTINGS
@given(log=mordheim_logs(undo=True))
def test_readings_past_the_listed_ones_are_counted_as_they_would_be_read(
    log: list[Event], folder: Path
) -> None:
    path = written(log, folder)
    with file_fight(path) as opened:
        version = opened.version
        stream = list(opened.events(1, version))
        before = None
        for event, state, changes in replayed(stream, opened.undo_resolution(version)):
            if changes.dice and event is not None and before is not None:
                read = luck_module.readings(before, event, changes)
                assert luck_module.reading_count(before, changes) == len(read)
            before = state


def test_dnd5e_readings_are_counted_as_they_would_be_read(tmp_path: Path) -> None:
    """Past DICE_LISTED the report counts readings: on the logs of every ruleset it ships, as
    many as it would have listed."""
    counted = 0
    for log in LOGS:
        with file_fight(log) as opened:
            version = opened.version
            before = None
            stream = list(opened.events(1, version))
            for event, state, changes in replayed(stream, opened.undo_resolution(version)):
                if changes.dice and event is not None and before is not None:
                    read = luck_module.readings(before, event, changes)
                    assert luck_module.reading_count(before, changes) == len(read)
                    counted += len(read)
                before = state
    assert counted > 50


# --- memory: nothing the report keeps grows with the fight ---------------------------------


def long_fight(rounds: int) -> list[Event]:
    """Two Mordheim warbands for `rounds` rounds: each side's recovery phase, its fighter's
    blow on the enemy's other fighter (1 wound, so each blow rolls the injury die, given as
    a 1: knocked down, to stand again at the next recovery phase), a harmless blow, the end
    of its turn; the GM takes back the first blow at the end."""
    log: list[Event] = [FightStarted(ruleset="mordheim", seed=7, name="long")]
    sides = {"reavers": ("grim", "ulf"), "skaven": ("snik", "tikk")}
    for side, fighters in sides.items():
        log += [CharacterJoined(character=c, side=side, stats={"wounds": 1}) for c in fighters]
    for round_ in range(1, rounds + 1):
        for side, (attacker, _) in sides.items():
            target = next(t for s, (_, t) in sides.items() if s != side)
            log.append(TurnStarted(round=round_, side=side))
            log.append(Hit(target=target, damage=1, attacker=attacker, rolls={"injury": [1]}))
            log.append(Hit(target=target, damage=0, attacker=attacker))
            log.append(TurnEnded(round=round_, side=side))
    log.append(Retract(event="#7", reason="the wrong fighter"))
    return log


def held(made: OnePass) -> dict[str, int]:
    """The size of every collection the one pass keeps, and of the collections in them, by
    where it is kept (`count.numbers.rounds_down[]`: all the rounds-down entries together)."""
    sizes: dict[str, int] = {}

    def walk(value: object, name: str, depth: int) -> None:
        if depth > 6 or isinstance(value, msgspec.Struct | str | bytes | int):
            return
        if isinstance(value, list | tuple | set | frozenset | dict):
            sizes[name] = sizes.get(name, 0) + len(value)
            for item in value.values() if isinstance(value, dict) else value:
                walk(item, name + "[]", depth + 1)
        elif hasattr(value, "__dict__") and not callable(value):
            for inner, kept in vars(value).items():
                if name == "chronicle" and inner == "written":
                    continue  # the test's own record of what was told
                walk(kept, f"{name}.{inner}" if name else inner, depth + 1)

    walk(made, "", 0)
    return sizes


class Told:
    """A chronicle's destination that notes, for each line, how many events had been read."""

    def __init__(self, read: list[int]) -> None:
        self.read = read
        self.lines: list[tuple[int, int]] = []  # (the line's event, events read then)

    def chapter(self, round: int) -> None:
        pass

    def line(self, line: Line) -> None:
        self.lines.append((line.seq, self.read[0]))


def read_once(path: Path) -> tuple[OnePass, Told]:
    """The report's one pass over the fight in `path`, as the application drives it, with the
    chronicle told to a `Told`."""
    read = [0]
    told = Told(read)
    with file_fight(path) as opened:
        final = opened.undo_resolution()
        seqs, ids = final.named_seqs, final.named_ids
        made = OnePass(
            "long",
            told,
            named=lambda seq, event: seq in seqs or event.id in ids,
            tracks=False,
        )
        for stored, event, state, changes, history in opened.steps_and_history():
            read[0] += 1
            made.played(stored, event, state, changes)
            made.told(stored, history)
    made.done()
    return made, told


def test_nothing_the_report_keeps_grows_with_the_fight(tmp_path: Path) -> None:
    """A fight four times as long leaves every list, dict and set the one pass keeps as long
    as it was (the readings it lists and the what-if's events held as objects at their caps):
    the chronicle goes out as it is told, an undo's sentences are kept only of the events an
    undo names, rounds down are counted, not listed."""
    sizes = []
    with (
        mock.patch.object(one_pass_module, "DICE_LISTED", 5),
        mock.patch.object(luck_module, "FIGHT_STEPS", 19),
        mock.patch.object(luck_module, "SAMPLE_STEPS", luck_module.FEWEST_SAMPLES * 19),
    ):
        for rounds in (40, 160):
            path = tmp_path / f"long{rounds}.jsonl"
            path.write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in long_fight(rounds)))
            made, _ = read_once(path)
            sizes.append(held(made))
    assert sizes[0] == sizes[1]
    assert sizes[1]["dice"] == 5 and sizes[1]["whatif.head"] == 20
    assert sizes[1]["chronicle.told"] == 1  # `#7`, which the retract names


def test_the_chronicle_is_written_out_as_each_event_is_read(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in long_fight(10)))
    _, told = read_once(path)
    assert len(told.lines) > 40
    assert all(seq == read for seq, read in told.lines)


# --- the front ends -------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["md", "html"])
def test_the_cli_writes_the_report_as_it_was(shape: str, tmp_path: Path) -> None:
    log = LOGS[0]
    old = the_old_way(log)
    expected = report_markdown(old) if shape == "md" else report_html(old)
    out = tmp_path / f"report.{shape}"
    runner = CliRunner()
    result = runner.invoke(cli, ["report", str(log), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text() == expected
    dash = runner.invoke(cli, ["report", str(log), "-o", "-", "--format", shape])
    assert dash.exit_code == 0 and dash.stdout == expected
    printed = runner.invoke(cli, ["report", str(log), "--format", shape])
    assert printed.exit_code == 0 and printed.stdout == expected.rstrip("\n") + "\n"


def test_a_chronicle_spool_reads_back_its_chapters_again() -> None:
    with ChronicleSpool() as spool:
        spool.chapter(0)
        spool.line(Line(seq=2, text="Grim joins.\nA second line."))
        spool.chapter(3)
        spool.chapter(3)  # a round told again after one with no line (an explicit round)
        spool.line(Line(seq=9, text='"Quoted" \u00e9 and more'))
        for _ in range(2):
            assert [(r, list(lines)) for r, lines in spool.chapters()] == [
                (0, [Line(seq=2, text="Grim joins.\nA second line.")]),
                (3, []),
                (3, [Line(seq=9, text='"Quoted" \u00e9 and more')]),
            ]


@pytest.mark.parametrize("small", [False, True])
def test_a_chronicle_spool_gives_each_chapter_as_lines_or_as_its_text(small: bool) -> None:
    """A chapter read back as its lines, or as its text (the lines with a space between, what
    the renderers write), or partly as lines and the rest skipped, leaves the next chapter
    whole; its text and lines as told, whatever their characters, held or written aside
    (`small`: a few characters held, a few integers buffered)."""
    told = [
        (0, ["Grim joins.\nA second line.", "", "\u00e9\u20ac\U0001f5e1 \r\n end"]),
        (1, []),
        (2, [f"Line {n} \u00e9." for n in range(40)]),
        (3, ['"Quoted" & <b>']),
    ]
    with (
        mock.patch.object(spool_module, "HELD", 5 if small else spool_module.HELD),
        mock.patch.object(spool_module.Ints, "BUFFERED", 3 if small else 4096),
        ChronicleSpool() as spool,
    ):
        seq = 0
        for round_, texts in told:
            spool.chapter(round_)
            for text in texts:
                seq += 1
                spool.line(Line(seq=seq, text=text))
        expected, seq = [], 0
        for round_, texts in told:
            lines = [Line(seq=seq + n, text=text) for n, text in enumerate(texts, 1)]
            expected.append((round_, lines))
            seq += len(texts)
        for _ in range(2):  # read again
            assert [(r, list(lines)) for r, lines in spool.chapters()] == expected
            assert [(r, "".join(lines.text())) for r, lines in spool.chapters()] == [
                (r, " ".join(line.text for line in lines)) for r, lines in expected
            ]
            partly = []
            for r, lines in spool.chapters():
                partly.append((r, next(iter(lines), None)))  # the rest passed over
            assert partly == [(r, lines[0] if lines else None) for r, lines in expected]
            halves = []
            for r, lines in spool.chapters():
                first = list(itertools.islice(iter(lines), 1))
                halves.append((r, first, "".join(lines.text())))
            rest = [" ".join(line.text for line in lines[1:]) for _, lines in expected]
            assert halves == [
                (r, lines[:1], " " * (len(lines) > 1) + text)
                for (r, lines), text in zip(expected, rest, strict=True)
            ]
