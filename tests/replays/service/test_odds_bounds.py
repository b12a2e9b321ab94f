"""Issue 24: a viewer's odds question is bounded by its work, not by how it is asked: a hit's
damage as the wire bounds it, reducer steps and paths held as the work goes, a time limit, and
at most two at once per token."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import anyio
import httpx
import pytest
from litestar.exceptions import TooManyRequestsException

from woundlog.replays.service import limits
from woundlog.replays.service.limits import OddsGate, OddsTimedOut

from .conftest import new_fight
from .server import Server

T = TypeVar("T")


def run_apart(main: Callable[[], Awaitable[T]]) -> T:
    """`anyio.run(main)` in a thread of its own: the session's Playwright (the pages' tests)
    keeps an event loop running in the main thread, where a second one cannot start."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(anyio.run, main).result()


def test_a_hit_past_the_wire_bound_is_422_at_once(server: Server) -> None:
    """The reproduction: `hit=grim:99999999999` on grim of 2 wounds ran 4 minutes, 3.1 GB."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "bound-1", wounds=2)
        answer = client.get(
            "/fights/bound-1/odds", params={"hit": "grim:99999999999"}, headers=fight.viewer
        )
        assert answer.status_code == 422, answer.text
        assert "damage is at most 1,000,000" in answer.json()["message"]
        for bad in ("grim:1_000", "grim:²", "grim: 5"):
            odd = client.get("/fights/bound-1/odds", params={"hit": bad}, headers=fight.viewer)
            assert odd.status_code == 422, (bad, odd.text)


def test_a_huge_hit_in_a_json_body_is_refused_at_the_step_budget_with_the_figure(
    server: Server,
) -> None:
    """Damage 600 in a JSON body took 170 s before its 422: now the step budget stops it while
    its dice paths are a few dice long, and says how far it got and what would be answered."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "bound-2", wounds=2)
        for damage in (600,):
            body = {"events": [{"type": "hit", "target": "grim", "damage": damage}]}
            answer = client.request("GET", "/fights/bound-2/odds", json=body, headers=fight.viewer)
            assert answer.status_code == 422, answer.text
            message = answer.json()["message"]
            assert "more than 50,000 reducer steps (reached 50," in message
            assert "estimate it with samples=N" in message
            # one event, 2 steps at least per sampled event: 50,000 // 2 samples at most
            assert answer.json()["most_samples"] == 25_000
        sampled = client.request(
            "GET",
            "/fights/bound-2/odds",
            json={"hit": ["grim:600"], "samples": 2000},
            headers=fight.viewer,
        )
        assert sampled.status_code == 200, sampled.text  # the way out it names works
        assert sampled.json()["samples"] == 2000
        too_many = client.request(
            "GET",
            "/fights/bound-2/odds",
            json={"hit": ["grim:600"], "samples": 25_001},
            headers=fight.viewer,
        )
        assert too_many.status_code == 422, too_many.text
        assert too_many.json()["most_samples"] == 25_000


def run_gate(gate: OddsGate, token: str, work: Callable[[Callable[[], None]], int]) -> int:
    async def main() -> int:
        return await gate.run(token, work)

    return run_apart(main)


def test_a_third_odds_request_of_one_token_is_429_with_retry_after() -> None:
    gate = OddsGate(per_token=2, workers=4)
    release = threading.Event()
    started = threading.Barrier(3)

    def slow(stop: Callable[[], None]) -> int:
        started.wait(timeout=10)
        release.wait(timeout=10)
        return 1

    async def main() -> tuple[list[int], TooManyRequestsException | None, int]:
        answers: list[int] = []
        refused: TooManyRequestsException | None = None

        async def one() -> None:
            answers.append(await gate.run("viewer-a", slow))

        async with anyio.create_task_group() as group:
            group.start_soon(one)
            group.start_soon(one)
            await anyio.to_thread.run_sync(started.wait, 10)  # both are running
            try:
                await gate.run("viewer-a", slow)
            except TooManyRequestsException as exc:
                refused = exc
            other = await gate.run("viewer-b", lambda stop: 2)  # another token is not held up
            release.set()
        return answers, refused, other

    answers, refused, other = run_apart(main)
    assert answers == [1, 1] and other == 2
    assert refused is not None and refused.headers == {"Retry-After": "1"}
    assert gate.running == {}  # every slot given back


def test_odds_work_past_its_time_limit_is_stopped_by_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "ODDS_TIME_S", -1.0)  # already past
    ran = []

    def work(stop: Callable[[], None]) -> int:
        ran.append(1)
        return 1

    with pytest.raises(OddsTimedOut, match="ran past its -1 s limit"):
        run_gate(OddsGate(), "viewer-a", work)
    assert ran == []  # waited its whole time for a worker: never started


def test_the_readme_states_the_bounds_the_code_holds() -> None:
    """One constant per bound, in Python; the README's bounds table shows those constants, each
    in its row and column (the page has none of its own: it is told `most_samples`)."""
    from importlib.resources import files
    from pathlib import Path

    from woundlog.core.odds import LIMIT, LIVE
    from woundlog.events.bounded import MAX_DOCUMENT, MAX_LINE, MAX_TABLES
    from woundlog.replays.application import TIMELINE_MAX
    from woundlog.replays.cli.session import MAX_LINE as PLAY_LINE
    from woundlog.replays.service.app import MAX_BATCH, MAX_BODY
    from woundlog.replays.service.limits import (
        LIST_MAX,
        ODDS_LIVE,
        ODDS_PER_TOKEN,
        ODDS_TIME_S,
        REPORT_MAX,
        SAMPLE_STEPS,
        WORK_LIMIT,
    )
    from woundlog.replays.serving import Limits

    readme = (Path(__file__).parents[3] / "README.md").read_text()
    table = readme.partition("**Bounds.**")[2].partition("\n\n")[2].partition("\n\n")[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines()]
    assert rows[0] == ["bound", "CLI", "service", "past it"], table
    assert len(rows) > 2 and all(len(row) == 4 for row in rows), table

    def cells(bound: str) -> tuple[str, str]:
        """The CLI's and the service's cells of the one row whose bound begins with `bound`."""
        [(cli, service)] = [(c, s) for b, c, s, _ in rows[2:] if b.startswith(bound)]
        return cli, service

    mib = 1024 * 1024
    limits = Limits()
    assert cells("odds and what-ifs: reducer steps") == (f"{LIMIT:,}", f"{WORK_LIMIT:,}")
    assert cells("odds: dice paths and states held at once") == (f"{LIVE:,}", f"{ODDS_LIVE:,}")
    assert cells("odds: samples of an estimate") == (
        "",
        f"{WORK_LIMIT:,} // ({SAMPLE_STEPS} x events)",
    )
    assert cells("odds and reports running at once, per token") == (
        "",
        f"{ODDS_PER_TOKEN}, each stopped after {ODDS_TIME_S:g} s",
    )
    assert cells("events in a fight's or a campaign's report") == ("", f"{REPORT_MAX:,}")
    assert cells("events in a timeline window") == ("", f"{TIMELINE_MAX:,}")
    assert cells("fights listed a page") == ("", f"{LIST_MAX:,}")
    assert cells("a request body; events in one append") == (
        "",
        f"{MAX_BODY // mib} MiB; {MAX_BATCH:,}",
    )
    assert cells(
        "a line of a log file; another program's file; a `--tables` file; a line typed to `play`"
    ) == (
        f"{MAX_LINE // mib} MiB; {MAX_DOCUMENT // mib} MiB; {MAX_TABLES // mib} MiB; "
        f"{PLAY_LINE // 1024} KiB",
        "",
    )
    assert cells("connections; time to send a request's head, its body") == (
        "",
        f"{limits.max_connections:,} (`--max-connections`); "
        f"{limits.header_timeout_s:g} s, {limits.body_timeout_s:g} s",
    )
    web = Path(str(files("woundlog.replays") / "web"))
    for script in web.glob("*.js"):
        assert f"{WORK_LIMIT:_}" not in script.read_text(), script  # no copy on the page
