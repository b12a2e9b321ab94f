"""`GET /fights/{fight}/report` and its HTML fragment over real HTTP (issue 30): the viewer's,
the same Report the CLI's `--json` prints, bounded by the fight's length."""

from __future__ import annotations

import httpx
import msgspec

from .conftest import new_fight
from .server import bearer

# Grim (3 wounds) takes 4: the wound to zero and one past it roll injury dice 2, then 6
HIT = {
    "type": "hit", "target": "grim", "damage": 4, "attacker": "snikkit",
    "rolls": {"injury": [2, 6]},
}  # fmt: skip


def test_a_viewer_reads_the_report(client: httpx.Client) -> None:
    fight = new_fight(client, "report-1")
    assert client.post("/fights/report-1/events", json=HIT, headers=fight.gm).status_code == 200
    assert client.get("/fights/report-1/report").status_code == 401
    answer = client.get("/fights/report-1/report", headers=fight.viewer)
    assert answer.status_code == 200, answer.text
    report = answer.json()
    grim, snikkit = report["characters"]
    assert (grim["tally"]["hits_taken"], grim["tally"]["damage_taken"]) == (1, 4)
    assert snikkit["put_out"] == [
        {"seq": 4, "character": "grim", "by": "snikkit", "state": "out_of_action"}
    ]
    assert report["luck"]["dice"][0]["at_least"] == {"num": 11, "den": 36}
    assert report["length"] == {"rounds": 0, "events": 4, "undo_events": 0, "undone": 0, "void": 0}


def test_the_fragment_is_html_with_the_charts_and_a_link_to_the_timeline(
    client: httpx.Client,
) -> None:
    fight = new_fight(client, "report-2")
    fragment = client.get("/fights/report-2/report/fragment", headers=fight.viewer)
    assert fragment.status_code == 200
    assert fragment.headers["content-type"].startswith("text/html")
    assert fragment.text.count("<svg") == 3 and 'id="timeline-link" href="./"' in fragment.text
    wrong = client.get("/fights/report-2/report/fragment", headers=bearer("wrong"))
    assert wrong.status_code == 401


def test_the_fragment_is_streamed_and_is_the_report_written_whole(client: httpx.Client) -> None:
    """Issue 42: the GM's fragment is sent as it is written out (chunked, no length known
    before), the chronicle read back from where the report wrote it aside; byte for byte the
    fragment of the report the JSON route answers. A viewer's, redacted, is streamed too."""
    from woundlog.replays.render.html import report_fragment
    from woundlog.replays.report import Report

    fight = new_fight(client, "report-3", wounds=9)
    blows = [{"type": "turn_started", "round": r, "side": "reavers"} for r in (1, 2)] + [
        {"type": "hit", "target": "grim", "damage": 1, "attacker": "snikkit"}
    ] * 3
    for blow in blows:
        assert client.post("/fights/report-3/events", json=blow, headers=fight.gm).is_success
    retract = {"type": "retract", "event": "#5", "reason": "missed"}
    assert client.post("/fights/report-3/events", json=retract, headers=fight.gm).is_success
    for who in (fight.gm, fight.viewer):
        with client.stream("GET", "/fights/report-3/report/fragment", headers=who) as answer:
            assert answer.status_code == 200
            assert answer.headers.get("transfer-encoding") == "chunked"
            assert "content-length" not in answer.headers
            streamed = answer.read().decode()
        value = client.get("/fights/report-3/report", headers=who)
        made = msgspec.json.decode(value.content, type=Report)
        assert streamed == report_fragment(made, timeline="./")
        assert "took back" in streamed
