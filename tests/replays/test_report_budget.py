"""Issue 37: a report has one budget for the whole report. 300 one-wound characters each hit
for 1000 gave each of the 300 moments its own 20,000 reducer steps (163 s a report); now the
moments share REPORT_STEPS, those past it are left out, and the report says so in its JSON,
its Markdown and its HTML."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from woundlog.events import convert
from woundlog.replays.application import Application
from woundlog.replays.render.html import report_fragment
from woundlog.replays.render.markdown import report_markdown
from woundlog.replays.report.luck import MOMENT_STEPS, REPORT_STEPS

BUDGET_S = 10.0
"""The service's declared time for a report (limits.budgets): the CLI's report shares its
steps, so it answers well within it."""


def hard_hits(characters: int, damage: int) -> list[dict[str, object]]:
    """The probe's fight: `characters` one-wound Mordheim characters, each hit for `damage`."""
    events: list[dict[str, object]] = [{"type": "fight_started", "ruleset": "mordheim", "seed": 1}]
    events += [
        {
            "type": "character_joined",
            "character": f"c{n}",
            "side": "ab"[n % 2],
            "stats": {"wounds": 1},
        }
        for n in range(characters)
    ]
    events += [{"type": "hit", "target": f"c{n}", "damage": damage} for n in range(characters)]
    return events


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Application]:
    with Application.opened(str(tmp_path / "fights.db")) as opened:
        yield opened


def stored(app: Application, fight: str, events: list[dict[str, object]]) -> None:
    app.import_log(fight, [convert(event, index=n) for n, event in enumerate(events)])


def test_a_report_of_300_characters_hit_for_1000_leaves_the_moments_past_its_budget_out(
    app: Application,
) -> None:
    stored(app, "probe", hard_hits(300, 1000))
    began = time.monotonic()
    report = app.report("probe")
    assert time.monotonic() - began < BUDGET_S
    luck = report.luck
    # each moment takes its whole MOMENT_STEPS: REPORT_STEPS covers that many, then no more
    weighed = REPORT_STEPS // MOMENT_STEPS
    assert luck.moments_left_out == 300 - weighed
    assert luck.moments_left_out_from == 1 + 300 + weighed + 1  # fight_started, joins, hits
    assert luck.why_left_out is not None and f"{REPORT_STEPS:,} reducer steps" in luck.why_left_out
    as_json = msgspec.json.decode(msgspec.json.encode(report))
    assert as_json["luck"]["moments_left_out"] == 300 - weighed
    assert "Not every moment was weighed" in report_markdown(report)
    assert "Not every moment was weighed" in report_fragment(report, timeline="./")
    assert len(report.characters) == 300  # the numbers are whole: only moments are left out


def test_a_small_report_weighs_every_moment_and_says_nothing_of_it(app: Application) -> None:
    stored(app, "small", hard_hits(3, 1))
    report = app.report("small")
    assert (report.luck.moments_left_out, report.luck.why_left_out) == (0, None)
    assert "Not every moment was weighed" not in report_markdown(report)


def test_a_report_stops_at_its_deadline(app: Application) -> None:
    """The service's gate hands the report a `stop` that raises past its time: it is called
    as the fight is folded and as the moments are weighed."""
    stored(app, "probe", hard_hits(40, 1000))
    calls: list[int] = []

    class Late(Exception):
        pass

    def stop() -> None:
        calls.append(1)
        if len(calls) > 3:
            raise Late

    stopping: Callable[[], None] = stop
    with pytest.raises(Late):
        app.report("probe", stop=stopping)
