"""Issue 37: the one gate (`limits.WorkGate`). A request's deadline holds while it is queued,
not only once a worker is free; a client that goes away gives its token's slot back at once
and its work stops at its next check; each route's budget is declared in one table."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from woundlog.replays.service.limits import (
    ODDS,
    ClientGone,
    Lane,
    WorkBudget,
    WorkGate,
    WorkTimedOut,
    route_of,
)

from .test_odds_bounds import run_apart


def test_a_queued_request_is_refused_at_its_deadline_while_the_worker_is_still_busy() -> None:
    """Before, the deadline was checked only once a worker was free: with both workers held
    by long work, a queued request waited without limit."""
    gate = WorkGate(per_token=2, workers=1)
    release = threading.Event()
    started = threading.Event()
    ran: list[str] = []

    def long_work(stop: Callable[[], None]) -> str:
        started.set()
        release.wait(timeout=30)
        return "long"

    def queued_work(stop: Callable[[], None]) -> str:
        ran.append("queued")
        return "queued"

    async def main() -> tuple[BaseException | None, float, bool]:
        refused: BaseException | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(gate.run, "viewer-a", long_work)
            await anyio.to_thread.run_sync(started.wait, 10)
            began = time.monotonic()
            try:
                await gate.run("viewer-b", queued_work, WorkBudget(0.3, lane=ODDS))
            except WorkTimedOut as exc:
                refused = exc
            waited = time.monotonic() - began
            still_busy = not release.is_set()
            release.set()
        return refused, waited, still_busy

    refused, waited, still_busy = run_apart(main)
    assert isinstance(refused, WorkTimedOut) and "waiting for a worker" in str(refused)
    assert still_busy and waited < 10  # refused while the long work still ran
    assert ran == []  # never worked on
    assert gate.running == {}


def test_a_client_that_goes_away_gives_its_slot_back_and_its_work_stops() -> None:
    gate = WorkGate(per_token=1, workers=2)
    hang_up = anyio.Event()
    checking = threading.Event()

    async def receive() -> dict[str, Any]:
        await hang_up.wait()
        return {"type": "http.disconnect"}

    def endless(stop: Callable[[], None]) -> str:
        while True:  # stopped only by `stop`
            checking.set()
            stop()
            time.sleep(0.01)

    async def main() -> tuple[BaseException | None, str]:
        gone: BaseException | None = None

        async def first() -> None:
            nonlocal gone
            try:
                await gate.run("viewer-a", endless, None, receive)
            except ClientGone as exc:
                gone = exc

        async with anyio.create_task_group() as group:
            group.start_soon(first)
            await anyio.to_thread.run_sync(checking.wait, 10)
            assert gate.running == {"viewer-a": 1}
            hang_up.set()
            with anyio.fail_after(10):
                while gate.running:
                    await anyio.sleep(0.01)
            # the slot is back: the same token is served again
            again = await gate.run("viewer-a", lambda stop: "again")
        return gone, again

    gone, again = run_apart(main)
    assert isinstance(gone, ClientGone) and again == "again"
    assert gate.running == {}


def test_each_lane_counts_a_tokens_slots_apart() -> None:
    gate = WorkGate()
    reads = Lane("reads", workers=2, per_token=1)

    async def main() -> list[int]:
        return [
            await gate.run("t", lambda stop: 1, WorkBudget(5, lane=reads)),
            await gate.run("t", lambda stop: 2),
        ]

    assert run_apart(main) == [1, 2]
    assert gate.running == {}


@pytest.mark.parametrize(
    ("scope", "route"),
    [
        ({"method": "GET", "path_template": "/fights/{fight:str}/report"},
         "GET /fights/{fight}/report"),
        ({"method": "POST", "path_template": "/fights/{fight:str}/import/{format:str}"},
         "POST /fights/{fight}/import/{format}"),
        ({"method": "GET", "path_template": "/health"}, "GET /health"),
    ],
)  # fmt: skip
def test_a_request_is_named_as_the_openapi_document_names_its_route(
    scope: dict[str, str], route: str
) -> None:
    assert route_of(scope) == route


def test_the_readme_lists_every_routes_budget_from_the_gates_own_table() -> None:
    """The README's table of routes and budgets is `budget_rows()`, made from the table the
    gate reads: a budget changed in one place and not the other fails here."""
    from pathlib import Path

    from woundlog.replays.service.limits import budget_rows, budgets

    readme = (Path(__file__).parents[3] / "README.md").read_text()
    table = readme.partition("**Routes and their budgets**")[2].partition("\n\n")[2]
    table = table.partition("\n\n")[0]
    assert table.splitlines() == budget_rows()
    for route in budgets():
        assert f"`{route}`" in table, route
