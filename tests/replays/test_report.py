"""The report of a fight (issue 30), over a real SQLite file: numbers counted by hand from
three rulesets' logs, luck against hand-derived chances and against sampling, the chronicle."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from importlib.resources import files
from pathlib import Path

import pytest

from woundlog.events.codec import read_jsonl
from woundlog.replays.application import Application, TooLarge
from woundlog.replays.render.markdown import chronicle_markdown as markdown
from woundlog.replays.render.markdown import luck_row
from woundlog.replays.report import Blow, Report, Tally
from woundlog.replays.report import luck as luck_module
from woundlog.replays.report.luck import highest, tens_units, total

ROOT = Path(__file__).resolve().parent.parent.parent
LOGS = ROOT / "tests" / "data" / "report"
BUNDLED = Path(str(files("woundlog.replays") / "data"))
FIRE_CHASM = BUNDLED / "warhammer_quest_fire_chasm.jsonl"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "fights.db")) as opened:
        yield opened


def reported(app: Application, log: Path) -> Report:
    app.import_log("f", [event for _, event in read_jsonl(log)])
    return app.report("f")


def by_id(report: Report) -> dict[str, object]:
    return {one.character: one for one in report.characters}


# --- numbers, counted by hand from each log ------------------------------------------------


def test_mordheim_numbers_leave_the_retracted_club_out(app: Application) -> None:
    report = reported(app, LOGS / "mordheim_ditch.jsonl")
    grim, snik, ulf = (by_id(report)[c] for c in ("grim", "snik", "ulf"))
    # Grim: hit Snik for 1 (#6); hit by the troll for 1 (#8): stunned, face up at #10, up at #13
    assert grim.tally == Tally(
        hits_dealt=1, damage_dealt=1, hits_taken=1, damage_taken=1, stunned=1, knocked_down=1,
        rounds_down=2,
    )  # fmt: skip
    assert (grim.put_out_by, grim.put_out) == ([], [])
    # Ulf: Snik for 2 and out of action (#7); the troll's club (#11) was taken back
    assert ulf.tally == Tally(hits_dealt=1, damage_dealt=2)
    assert ulf.put_out == [Blow(seq=7, character="snik", by="ulf", state="out_of_action")]
    assert snik.tally == Tally(hits_taken=2, damage_taken=3)
    assert snik.put_out_by == ulf.put_out
    reavers, skaven = report.sides
    assert (reavers.side, reavers.characters, reavers.standing) == ("reavers", ["grim", "ulf"], 2)
    assert reavers.tally == Tally(
        hits_dealt=2, damage_dealt=3, hits_taken=1, damage_taken=1, stunned=1, knocked_down=1,
        rounds_down=2,
    )  # fmt: skip
    assert (skaven.standing, skaven.tally.damage_taken) == (0, 3)
    length = report.length
    assert (length.rounds, length.events, length.undo_events, length.undone, length.void) == (
        3, 13, 1, 1, 0,
    )  # fmt: skip


def test_dnd5e_numbers_count_the_fall_the_heal_and_the_kill(app: Application) -> None:
    report = reported(app, LOGS / "dnd5e_ford.jsonl")
    tor, ina, gob = (by_id(report)[c] for c in ("tor", "ina", "gob"))
    # Tor: 4 to Gob; 12 from Gob, down (#7), a failed save in round 2 (#8), healed 5 (#9)
    assert tor.tally == Tally(
        hits_dealt=1, damage_dealt=4, hits_taken=1, damage_taken=12, heals_taken=1,
        healing_taken=5, downed=1, rounds_down=2,
    )  # fmt: skip
    assert tor.put_out_by == [Blow(seq=7, character="tor", by="gob", state="downed")]
    assert ina.tally == Tally(hits_dealt=1, damage_dealt=3, heals_given=1, healing_given=5)
    assert ina.put_out == [Blow(seq=10, character="gob", by="ina", state="dead")]
    assert gob.tally == Tally(hits_dealt=1, damage_dealt=12, hits_taken=2, damage_taken=7)
    assert [(s.side, s.standing, s.tally.damage_dealt) for s in report.sides] == [
        ("party", 2, 7),
        ("goblins", 0, 12),
    ]
    assert report.length.rounds == 2
    hp = {track.character: track.points for track in report.tracks}
    assert hp["tor"] == [(2, 10), (7, 0), (9, 5)]
    assert hp["gob"] == [(4, 7), (6, 3), (10, 0)]


def test_fire_chasm_numbers(app: Application) -> None:
    report = reported(app, FIRE_CHASM)
    chars = by_id(report)
    dealt = {c: (chars[c].tally.hits_dealt, chars[c].tally.damage_dealt) for c in chars}
    # counted from the log: arrow-slip (Skarsnik on Elwen for 3) is retracted
    assert dealt == {
        "grundi": (5, 12), "elwen": (2, 2), "magnus": (0, 0), "brakk": (0, 0),
        "skarsnik": (1, 2), "snotgit": (1, 4), "grishnak": (3, 21), "gorbag": (1, 11),
    }  # fmt: skip
    taken = {c: (chars[c].tally.hits_taken, chars[c].tally.damage_taken) for c in chars}
    assert taken == {
        "grundi": (1, 10), "elwen": (1, 9), "magnus": (3, 8), "brakk": (1, 11),
        "skarsnik": (2, 2), "snotgit": (3, 4), "grishnak": (2, 8), "gorbag": (0, 0),
    }  # fmt: skip
    assert (chars["elwen"].tally.heals_given, chars["elwen"].tally.healing_given) == (2, 7)
    assert (chars["magnus"].tally.heals_taken, chars["magnus"].tally.healing_taken) == (2, 5)
    assert chars["brakk"].put_out_by == [
        Blow(seq=20, character="brakk", by="gorbag", state="downed"),
        Blow(seq=24, character="brakk", by=None, state="dead"),  # Downed 1 at the end of turn
    ]
    assert [(b.seq, b.character, b.state) for b in chars["grundi"].put_out] == [
        (17, "skarsnik", "dead"), (18, "snotgit", "downed"), (28, "grishnak", "downed"),
        (30, "snotgit", "downed"), (31, "snotgit", "dead"),
    ]  # fmt: skip
    assert (chars["snotgit"].tally.downed, chars["snotgit"].tally.stabilised) == (2, 1)
    length = report.length
    assert (length.rounds, length.events, length.undo_events, length.undone) == (2, 33, 1, 1)


def test_a_report_past_its_bound_is_refused_before_any_work(app: Application) -> None:
    app.import_log("f", [event for _, event in read_jsonl(LOGS / "mordheim_ditch.jsonl")])
    with pytest.raises(TooLarge, match="13 events; a report here takes at most 12"):
        app.report("f", most=12)
    assert app.report("f", most=13).length.events == 13


# --- luck -----------------------------------------------------------------------------------


def test_highest_of_two_d6_showing_6_is_11_in_36() -> None:
    _, reading, value, at_least, at_most = highest([2, 6], 6)
    assert (reading, value, at_least, at_most) == ("highest", 6, Fraction(11, 36), 1)
    # 2 or more on the highest of two d6: all but (1, 1); 2 or less: (1,1), (1,2), (2,1), (2,2)
    assert highest([2, 1], 6)[3:] == (Fraction(35, 36), Fraction(4, 36))


def test_d66_and_totals_counted_by_hand() -> None:
    assert tens_units([6, 6], 6)[2:] == (66, Fraction(1, 36), 1)
    assert tens_units([1, 6], 6)[2:] == (16, Fraction(31, 36), Fraction(6, 36))
    # two d3 totalling 5: (2,3), (3,2), (3,3) are 5 or more; all but (3,3) are 5 or less
    assert total([2, 3], 3)[2:] == (5, Fraction(3, 9), Fraction(8, 9))


def test_the_mordheim_injury_roll_of_6_on_two_dice_reads_11_in_36(app: Application) -> None:
    report = reported(app, LOGS / "mordheim_ditch.jsonl")
    dice = [
        (d.seq, d.purpose, d.dice, d.reading, str(d.at_least), str(d.at_most))
        for d in report.luck.dice
    ]
    assert dice == [
        (7, "injury", [2, 6], "highest", "11/36", "1/1"),
        (8, "injury", [3], "die", "2/3", "1/2"),  # the retracted club (#11) rolled nothing
    ]
    # Snik, 1 wound, hit for 2: out of action unless both dice are 1-4: 1 - (4/6)^2 = 5/9
    assert report.luck.unluckiest is not None
    assert (report.luck.unluckiest.seq, report.luck.unluckiest.character) == (7, "snik")
    assert str(report.luck.unluckiest.chance) == "5/9"
    # Grim's stun: a 3-4, or a 5-6 for worse: 4/6 at least as bad; 1-4 at least as good
    assert report.luck.luckiest is not None
    assert (report.luck.luckiest.seq, str(report.luck.luckiest.chance)) == (8, "2/3")


def test_fight_luck_is_exact_for_a_short_fight(app: Application) -> None:
    report = reported(app, LOGS / "mordheim_ditch.jsonl")
    luck = {one.character: one for one in report.luck.characters}
    assert report.luck.why_sampled is None
    assert all(one.method == "exact" for one in luck.values())
    # Snik ends out of action: 5/9 of the ways #7 can go (hand-derived above)
    assert (str(luck["snik"].as_bad), str(luck["snik"].as_good)) == ("5/9", "1/1")
    # Grim ends up again unless #8's die takes him out of action (5-6): 2/3 as well as that
    assert (str(luck["grim"].as_bad), str(luck["grim"].as_good)) == ("1/1", "2/3")


def test_sampled_fight_luck_agrees_with_the_exact_figures(
    app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(luck_module, "FIGHT_STEPS", 1)  # too small to enumerate anything
    report = reported(app, LOGS / "mordheim_ditch.jsonl")
    assert report.luck.why_sampled is not None and "sampled" in report.luck.why_sampled
    luck = {one.character: one for one in report.luck.characters}
    snik, grim = luck["snik"], luck["grim"]
    assert snik.method == "sampled" and snik.samples is not None and snik.samples >= 30
    assert snik.as_bad_low and snik.as_bad_high and grim.as_good_low and grim.as_good_high
    assert snik.as_bad_low.fraction() <= Fraction(5, 9) <= snik.as_bad_high.fraction()
    assert grim.as_good_low.fraction() <= Fraction(2, 3) <= grim.as_good_high.fraction()
    # Told as counts of the samples, never as a reduced fraction that reads as exact
    row = luck_row(snik)
    count = snik.as_bad.fraction() * snik.samples
    assert count.denominator == 1
    assert f"| {count} of {snik.samples} (" in row and "%" in row
    assert "/" not in row.split("|")[3]


def test_fire_chasm_luck_moments(app: Application) -> None:
    luck = reported(app, FIRE_CHASM).luck
    # Elwen's D66 of 66 (What Doesn't Kill Me) is the one result of 36 that keeps her up
    assert luck.luckiest is not None
    assert (luck.luckiest.seq, luck.luckiest.character, str(luck.luckiest.chance)) == (
        22, "elwen", "1/36",
    )  # fmt: skip
    # Brakk's Downed roll of 1 at the end of turn 1: he dies on a 1 of a d6
    assert luck.unluckiest is not None
    assert (luck.unluckiest.seq, luck.unluckiest.character, str(luck.unluckiest.chance)) == (
        24, "brakk", "1/6",
    )  # fmt: skip
    d66 = [d for d in luck.dice if d.seq == 22]
    assert [(d.reading, d.value, str(d.at_least)) for d in d66] == [("tens_units", 66, "1/36")]
    brakk = [d for d in luck.dice if d.seq == 24 and d.character == "brakk"]
    assert [(d.value, str(d.at_most)) for d in brakk] == [(1, "1/6")]


# --- the chronicle --------------------------------------------------------------------------


def test_chronicle_tells_the_undo_by_what_it_took_back(app: Application) -> None:
    report = reported(app, LOGS / "mordheim_ditch.jsonl")
    rounds = {chapter.round: [line.text for line in chapter.lines] for chapter in report.chronicle}
    assert list(rounds) == [0, 1, 2, 3]
    assert rounds[0] == ["Grim joins (upright).", "Snik joins (upright).", "Ulf joins (upright)."]
    assert rounds[2][-1] == (
        "The GM took back: Troll hits Ulf for 1: Ulf loses 1 wound (1 -> 0), 1 past zero; injury "
        "roll 1 knocked down: knocked down; attacker `troll` is not a character of this fight "
        "(the troll missed)."
    )
    text = markdown(report.name, report.chronicle)
    assert text.startswith("## The ditch\n\n### Before the first round\n\nGrim joins")
    assert "club" not in text and "#11" not in text  # no ids


def test_the_readme_shows_the_goblin_ambush_chronicle_as_woundlog_tells_it(
    app: Application,
) -> None:
    """The README's chronicle is the bundled goblin ambush's, as `woundlog report` tells it,
    undo and all."""
    report = reported(app, BUNDLED / "dnd5e_goblin_ambush.jsonl")
    told = markdown(report.name, report.chronicle)
    assert "The GM took back: " in told
    readme = (ROOT / "README.md").read_text()
    assert f"```markdown\n{told}```\n" in readme


def test_chronicle_tells_an_amend_and_a_retracted_retract(app: Application) -> None:
    report = reported(app, BUNDLED / "mordheim_undo.jsonl")
    lines = [line.text for chapter in report.chronicle for line in chapter.lines]
    hit = "Brand hits Hilde for 1: Hilde loses 1 wound (1 -> 0), 1 past zero; injury roll 3"
    assert lines[-3:] == [
        f"{hit} stunned: stunned.",
        f"The GM took back: {hit} stunned: stunned (Brand's blow missed).",
        f"The GM gave back: {hit} stunned: stunned (it hit after all: retracting the retract "
        "restores the hit).",
    ]
    amended = next(line for line in lines if "the die showed 2" in line)
    assert amended.endswith(
        "Played as amended, it left Ulf knocked down rather than out of action."
    )
