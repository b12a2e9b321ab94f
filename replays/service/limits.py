"""What a request may cost the server: the work gate and its budgets, and the bounds every
route and command shares. (What a connection may cost, its deadlines and file descriptors:
`connections.py`.)

Work that grows with its input (`WorkGate`, the one gate): every route declares its budget in
one table, `budgets()` (wall time from arrival, time queued included; reducer steps, events,
bytes where the work counts them), which the README's table is made from and the every-route
test holds each route to. Odds, reports, timelines, branches, imports and campaign reads and
records run through the gate: in a lane of worker threads of their own (`Lane`: so many at
once, so many per token, 429 past it), refused if they waited their whole time for a worker,
stopped at their deadline through the `stop` the work calls as it goes (`core.odds.Budget.stop`,
a report's fold), and given their token's slot back as soon as the client goes away.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from litestar.exceptions import TooManyRequestsException

from woundlog.core.odds import LIMIT as ODDS_LIMIT
from woundlog.events import UsageError

log = logging.getLogger("woundlog.service")
T = TypeVar("T")

WORK_LIMIT = ODDS_LIMIT // 10
"""The most reducer steps (an evaluation of an event, or a die handed to it) one odds request may
take, exact or estimated: a tenth of what the CLI allows, so that no viewer holds a worker
thread, or the server, for long. A larger question is refused, as soon as the work
gets there, with the figure and what would be answered."""
ODDS_LIVE = WORK_LIMIT
"""The most dice paths and fight states one odds request holds at once (each a few hundred
bytes)."""
SAMPLE_STEPS = 2
"""What a sampled event costs at least (its evaluation and one die): `samples` past
WORK_LIMIT // (SAMPLE_STEPS * events) is refused before any work."""
PAGE_MAX = 5000
"""The most events one `GET /events` returns."""
LIST_MAX = 200
"""The most fights one `GET /fights` lists (each costs two small reads)."""
REPORT_MAX = 50_000
"""The most events a fight's report (or a campaign's, per fight) is made of here: it folds the
fight and runs its dice through the odds engine, so a longer one would hold a worker for many
seconds."""


# --- the gate: work that grows with what a request asks ---------------------------------------

ODDS_PER_TOKEN = 2
"""Odds requests (and reports) one token may have running at once; past it, 429 with
Retry-After."""
ODDS_WORKERS = 2
"""Odds requests worked on at once by the whole process (one per core of a small server): the
rest wait their turn without a thread, so appends and reads keep anyio's other workers."""
ODDS_TIME_S = 10.0
"""How long an odds request may take, waiting for a worker included: past it, the work stops
at its next check of the budget and the request is refused (its step budget is under a second
on an idle server, so this is reached only when the server is overloaded)."""
ODDS_RETRY_S = 1
MAX_BODY = 1024 * 1024
"""The largest request body (`create_app`'s default)."""
MAX_BATCH = 1000
"""The most events one append, import or branch's `then` may hold (`create_app`'s default)."""
BRANCH_MAX = 10_000
"""The most events a branch may copy: a branch is a new fight whose log is validated as it is
written, about 0.15 ms an event, so a branch of a 100,000-event fight (15 s, 15 MiB) is
refused at once, naming `at` that would be answered. How many branches a fight may have is
not bounded apart: a branch costs what appending its events in ten batches would, which its
gm may do anyway; each one runs through the gate like any other write."""
READ_TIME_S = 5.0
"""What a bounded read may take (a page of events, the state, a token's list)."""
WRITE_TIME_S = 10.0
"""What a bounded write may take (an append of MAX_BATCH events, an undo, a deletion)."""


@dataclass(frozen=True)
class Lane:
    """Work of one kind that the gate runs: `workers` at once in the process, each in a thread
    of its own, `per_token` at once per token (429 past it)."""

    name: str
    workers: int
    per_token: int


ODDS = Lane("odds and reports", ODDS_WORKERS, ODDS_PER_TOKEN)
READS = Lane("long reads", 4, 4)
"""Timeline windows and campaign reads: what pages open, several at a time."""
WRITES = Lane("long writes", 2, 4)
"""Imports, branches and campaign records: writes that fold or copy a log."""


@dataclass(frozen=True)
class WorkBudget:
    """What one request may cost: `seconds` of wall time from its arrival at the gate (time
    queued for a worker included), and, where the work counts them, `steps` (reducer steps),
    `events` (events read or written) and `bytes` (bytes read). A request past one is refused
    as soon as its work gets there, naming the bound and how far it got. `lane`: the gate's
    lane it runs in; None, a bounded call in one of anyio's worker threads."""

    seconds: float
    steps: int | None = None
    events: int | None = None
    bytes: int | None = None
    lane: Lane | None = None
    note: str = ""


def _budgets() -> dict[str, WorkBudget]:
    from woundlog.core.odds import LIMIT as _  # noqa: F401 (the CLI's; the service's is a tenth)

    from ..application import TIMELINE_MAX
    from ..report.luck import REPORT_STEPS

    read = WorkBudget(READ_TIME_S)
    write = WorkBudget(WRITE_TIME_S, events=MAX_BATCH, bytes=MAX_BODY)
    odds = WorkBudget(ODDS_TIME_S, steps=WORK_LIMIT, lane=ODDS)
    report = WorkBudget(
        ODDS_TIME_S, steps=REPORT_STEPS, events=REPORT_MAX, lane=ODDS,
        note="moments past the steps are left out, and the report says so",
    )  # fmt: skip
    timeline = WorkBudget(ODDS_TIME_S, events=TIMELINE_MAX, lane=READS)
    imported = WorkBudget(WRITE_TIME_S, events=MAX_BATCH, bytes=MAX_BODY, lane=WRITES)
    branch = WorkBudget(
        WRITE_TIME_S, events=BRANCH_MAX + MAX_BATCH, bytes=MAX_BODY, lane=WRITES,
        note=f"it copies at most {BRANCH_MAX:,} events, then `then`",
    )  # fmt: skip
    campaign_read = WorkBudget(ODDS_TIME_S, lane=READS)
    campaign_write = WorkBudget(WRITE_TIME_S, bytes=MAX_BODY, lane=WRITES)
    return {
        "GET /health": read,
        "GET /fights": read,  # LIST_MAX fights a page
        "POST /fights": WorkBudget(WRITE_TIME_S, bytes=MAX_BODY),
        "DELETE /fights/{fight}": WorkBudget(WRITE_TIME_S),
        "GET /fights/{fight}/events": WorkBudget(READ_TIME_S, events=PAGE_MAX),
        "POST /fights/{fight}/events": write,
        "GET /fights/{fight}/state": WorkBudget(WRITE_TIME_S),
        "POST /fights/{fight}/import/{format}": imported,
        "POST /fights/{fight}/join": campaign_write,
        "POST /fights/{fight}/undo": WorkBudget(WRITE_TIME_S),
        "POST /fights/{fight}/dice-asked": WorkBudget(WRITE_TIME_S, bytes=MAX_BODY),
        "POST /fights/{fight}/next/dice-asked": WorkBudget(WRITE_TIME_S, bytes=MAX_BODY),
        "POST /fights/{fight}/next": WorkBudget(WRITE_TIME_S),
        "POST /fights/{fight}/turn-order": WorkBudget(WRITE_TIME_S, bytes=MAX_BODY),
        "GET /fights/{fight}/stream": WorkBudget(
            READ_TIME_S,
            note="to its first byte; then open until the client leaves or its token is revoked",
        ),
        "POST /fights/{fight}/stream-ticket": read,
        "GET /fights/{fight}/tokens": read,
        "POST /fights/{fight}/tokens": read,
        "DELETE /fights/{fight}/tokens": read,
        "POST /fights/{fight}/tokens/{name}": read,
        "DELETE /fights/{fight}/tokens/{name}": read,
        "GET /fights/{fight}/players-view": read,
        "PUT /fights/{fight}/players-view": WorkBudget(WRITE_TIME_S, bytes=MAX_BODY),
        "GET /fights/{fight}/odds": odds,
        "POST /fights/{fight}/branch": branch,
        "GET /fights/{fight}/report": report,
        "GET /fights/{fight}/report/fragment": report,
        "GET /fights/{fight}/timeline": timeline,
        "POST /campaigns": WorkBudget(WRITE_TIME_S, bytes=MAX_BODY),
        "GET /campaigns/{campaign}/record": campaign_read,
        "GET /campaigns/{campaign}/history": campaign_read,
        "GET /campaigns/{campaign}/report": WorkBudget(
            ODDS_TIME_S, events=REPORT_MAX, lane=READS, note="events of its fights in all"
        ),
        "GET /campaigns/{campaign}/consequences": campaign_read,
        "POST /campaigns/{campaign}/members": campaign_write,
        "POST /campaigns/{campaign}/fights": campaign_write,
        "POST /campaigns/{campaign}/between": campaign_write,
        "POST /campaigns/{campaign}/undo": campaign_write,
        "POST /campaigns/{campaign}/tokens/{name}": read,
        "GET /integrations/foundry/module.json": read,
        "GET /integrations/foundry/woundlog.zip": read,
        "GET /integrations/owlbear/manifest.json": read,
        "GET /integrations/owlbear/{name}": read,
        "GET /rulesets": read,
        "GET /rulesets/{name}": read,
    }


class _Budgets:
    """BUDGETS, made on first use (the report's steps live in replays/report)."""

    table: dict[str, WorkBudget] | None = None

    def __call__(self) -> dict[str, WorkBudget]:
        if self.table is None:
            self.table = _budgets()
        return self.table


budgets = _Budgets()
"""`budgets()`: every route of the service, "METHOD /path" as the OpenAPI document names it,
with its budget: the one table the gate reads, the README's budgets table shows and the
every-route test holds each route to. A route missing from it is refused by the gate and fails
that test."""


_TYPED = re.compile(r"\{(\w+):[^}]*\}")


def budget_rows() -> list[str]:
    """The README's table of budgets, a row per budget with every route that has it: made from
    `budgets()`, so the page cannot say other than the gate does."""
    rows: dict[WorkBudget, list[str]] = {}
    for route, budget in budgets().items():
        rows.setdefault(budget, []).append(f"`{route}`")
    lines = ["| routes | time, queued included | steps; events; bytes | run |", "|---|---|---|---|"]
    for budget, routes in rows.items():
        counted = [
            f"{budget.steps:,} steps" if budget.steps else "",
            f"{budget.events:,} events" if budget.events else "",
            f"{budget.bytes // 1024 // 1024} MiB" if budget.bytes else "",
        ]
        counts = "; ".join(each for each in counted if each)
        lane = budget.lane
        run = f"gate: {lane.name}, {lane.workers} at once, {lane.per_token} a token" if lane else ""
        seconds = f"{budget.seconds:g} s" + (f" ({budget.note})" if budget.note else "")
        lines.append(f"| {', '.join(routes)} | {seconds} | {counts} | {run} |")
    return lines


def route_of(scope: Any) -> str:
    """A request's route, as BUDGETS names it: `GET /fights/{fight}/report`."""
    template: str = scope.get("path_template") or scope.get("path", "")
    path = _TYPED.sub(r"{\1}", template)
    return f"{scope['method']} {path}"


def budget_of(scope: Any) -> WorkBudget:
    found = budgets().get(route_of(scope))
    if found is None:
        raise RuntimeError(f"{route_of(scope)} has no budget: declare one in limits.budgets")
    return found


class WorkTimedOut(UsageError):
    """Work past its budget's time."""


OddsTimedOut = WorkTimedOut  # its first name: odds were the first work through the gate


class ClientGone(UsageError):
    """The client went away while its work ran or waited: the work stops at its next check
    (and what is answered, nobody reads)."""


class OddsRefused(UsageError):
    """An odds question past the service's bound, with the most samples an estimate of the
    same what-if may take here (`most_samples` of the 422): the page offers that figure, so
    WORK_LIMIT and SAMPLE_STEPS have no copy outside this module."""

    def __init__(self, message: str, *, most_samples: int) -> None:
        super().__init__(message)
        self.most_samples = most_samples


Stop = Callable[[], None]


class WorkGate:
    """The one gate for work that grows with its input. Each lane (`Lane`) runs at most its
    `workers` at once, each request at most its lane's `per_token` at once per token (429
    past it). A request's deadline (its budget's `seconds`) runs from its arrival: one that
    waited its whole time for a worker is refused without being worked on, and one whose work
    runs past it is stopped at the work's next `stop()` (422). A client that goes away gives
    its token's slot back at once, and its work stops at its next `stop()`."""

    def __init__(self, per_token: int = ODDS_PER_TOKEN, workers: int = ODDS_WORKERS) -> None:
        self.per_token = per_token
        self.workers = workers
        self.running: dict[str, int] = {}
        """Per token and lane (`lane name:token`, the odds' lane by the token alone), the
        requests it has at the gate."""
        self._limiters: dict[str, tuple[anyio.CapacityLimiter, anyio.CapacityLimiter]] = {}

    def _lane(self, lane: Lane) -> Lane:
        if lane is ODDS:  # the odds' lane is the one the gate was made with
            return Lane(lane.name, self.workers, self.per_token)
        return lane

    async def run(
        self,
        token: str,
        work: Callable[[Stop], T],
        budget: WorkBudget | None = None,
        receive: Any = None,
    ) -> T:
        """`work(stop)` in a worker thread of `budget`'s lane (default: an odds question);
        `stop` raises past the budget's time, or once the client has gone (`receive`: the
        request's ASGI receive, read for its disconnect)."""
        async with self.held(token, budget, receive) as stop:
            lane = self._lane((budget.lane if budget else None) or ODDS)
            limiter = self._limiters[lane.name][1]
            return await anyio.to_thread.run_sync(partial(work, stop), limiter=limiter)

    @asynccontextmanager
    async def held(
        self, token: str, budget: WorkBudget | None = None, receive: Any = None
    ) -> AsyncIterator[Stop]:
        """A slot of the budget's lane, held for the block, which is given `stop` (see `run`);
        raises past the time before the block starts."""
        budget = budget or WorkBudget(ODDS_TIME_S, steps=WORK_LIMIT, lane=ODDS)
        lane = self._lane(budget.lane or ODDS)
        key = token if lane.name == ODDS.name else f"{lane.name}:{token}"
        held = self.running.get(key, 0)
        if held >= lane.per_token:
            what = "odds requests" if lane.name == ODDS.name else f"{lane.name}"
            raise TooManyRequestsException(
                f"this token has {held} {what} running, the most it may: send the next "
                "when one has answered",
                headers={"Retry-After": str(ODDS_RETRY_S)},
            )
        if lane.name not in self._limiters:  # made in the event loop that uses them
            self._limiters[lane.name] = (
                anyio.CapacityLimiter(lane.workers),
                anyio.CapacityLimiter(lane.workers),
            )
        slots, _ = self._limiters[lane.name]
        self.running[key] = held + 1
        given_back = False

        def give_back() -> None:
            nonlocal given_back
            if not given_back:
                given_back = True
                left = self.running[key] - 1
                if left:
                    self.running[key] = left
                else:
                    del self.running[key]

        deadline = time.monotonic() + budget.seconds
        gone = threading.Event()

        def stop() -> None:
            if gone.is_set():
                raise ClientGone("the client went away")
            if time.monotonic() > deadline:
                raise WorkTimedOut(
                    f"this request ran past its {budget.seconds:g} s limit (the server is "
                    "busy): ask again in a while, or ask a smaller question (fewer events or "
                    "samples)"
                )

        try:
            async with anyio.create_task_group() as watchers:
                queued = anyio.CancelScope(deadline=anyio.current_time() + budget.seconds)
                if receive is not None:
                    watchers.start_soon(_watch, receive, gone, give_back, queued)
                acquired = False
                with queued:
                    await slots.acquire()
                    acquired = True
                try:
                    if not acquired:
                        if gone.is_set():
                            raise ClientGone("the client went away while queued")
                        raise WorkTimedOut(
                            f"this request ran past its {budget.seconds:g} s limit waiting for "
                            "a worker (the server is busy): ask again in a while"
                        )
                    stop()  # waited its whole time for a worker: no work started
                    yield stop
                finally:
                    if acquired:
                        slots.release()
                    watchers.cancel_scope.cancel()
        except BaseExceptionGroup as group:  # one exception of the block, as it was raised
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        finally:
            give_back()


async def _watch(
    receive: Any, gone: threading.Event, give_back: Callable[[], None], queued: anyio.CancelScope
) -> None:
    """Reads the request's ASGI messages until its client goes away: then its token's slot is
    given back, its queueing ended and its work told to stop."""
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            break
    gone.set()
    give_back()
    queued.cancel()


OddsGate = WorkGate  # its first name
