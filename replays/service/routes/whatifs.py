"""`/fights/{fight}/odds` and `/branch`: what might happen next, and what might have happened,
as a fight of its own. A viewer's odds question is work on the server's cores: it runs through
the odds' gate (limits.py), within the service's bound (`bounded_odds`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import Parameter

from woundlog.core.odds import Budget
from woundlog.core.odds import TooLarge as OddsTooLarge
from woundlog.events import UsageError, convert
from woundlog.events.model import SAFE_INT

from ...application import Application, FightId, NothingAsked
from ...application.values import Role
from ...whatif import MAX_TICKS, Odds
from ..bodies import decoded, strictly
from ..guards import SECURITY, Service, as_seen, authorize, gated, grant_of, held, run
from ..limits import ODDS_LIVE, SAMPLE_STEPS, WORK_LIMIT, OddsRefused
from ..openapi import BRANCHED_AGAIN
from ..schemas import BranchRequest, Created, OddsRequest
from ..writes import made


class WhatIfsController(Controller):
    path = "/fights/{fight:str}"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @get("/odds", role=Role.VIEWER)
    async def fight_odds(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        events: Annotated[
            str | None, Parameter(description="The what-if's events: a JSON list.")
        ] = None,
        hit: Annotated[list[str] | None, Parameter(description="TARGET:DAMAGE[:ATTACKER]")] = None,
        ticks: Annotated[int, Parameter(ge=0, le=MAX_TICKS)] = 0,
        character: list[str] | None = None,
        samples: Annotated[int | None, Parameter(ge=1, le=SAFE_INT)] = None,
        at: Annotated[int | None, Parameter(ge=1, le=SAFE_INT)] = None,
    ) -> Response[Odds]:
        """The exact chance of every outcome of a what-if (viewer): `events`, then each `hit`, then
        `ticks` rounds of turns, from now or event `at`; estimated from `samples` replays if asked.
        In the query, or as the same fields in a JSON body (not both). A question too large to
        answer is 422 as soon as the work reaches its bound, saying which bound and what would be
        answered; more than two at once for one token is 429 (Retry-After). Where the fight keeps
        its monsters' hit points from viewers, a viewer's what-if aimed at one is 403, and its
        answer leaves them out."""
        query = {
            "events": events, "hit": hit, "ticks": ticks or None, "character": character,
            "samples": samples, "at": at,
        }  # fmt: skip
        asked = odds_asked(await request.body(), query)
        work = partial(bounded_odds, app, fight, asked)
        if grant_of(request).role is Role.VIEWER:  # odds read the numbers a viewer is kept from
            await run(app.check_viewer_whatif, fight, asked.events, asked.hit)
        seen = as_seen(request, app, fight)
        return Response(await gated(request, lambda stop: seen(work(stop=stop))))

    @post(
        "/branch",
        status_code=201,
        role=Role.GM,
        responses={200: BRANCHED_AGAIN},
    )
    async def branch_fight(
        self,
        request: Request[Any, Any, Any],
        service: NamedDependency[Service],
        fight: FightId,
        data: BranchRequest,
    ) -> Response[Created]:
        """A new fight `as` (gm of this one): this fight's log up to event `at` (default: all),
        then the events `then`; the answer holds its gm and viewer tokens, shown once. A fight
        already there under that name is 409, its tokens untouched: a branch never replaces or
        re-tokens a fight it does not own (the admin's token may: 200 with a new pair for a branch
        already made the same way, a retry)."""
        data = strictly(await request.body(), BranchRequest)
        owner = grant_of(request).covers(data.as_)  # the admin's token; a gm's covers its own
        async with held(request):
            return await made(service, data.as_, service.fights.branch, fight, data, owner)


def odds_asked(body: bytes, query: Mapping[str, object]) -> OddsRequest:
    """The what-if, from the JSON body or from the query (`None`: a field not given), not both."""
    given = {name: value for name, value in query.items() if value is not None}
    if body.strip():
        if given:
            raise UsageError(
                f"the what-if is in the body and in the query ({', '.join(given)}): send one"
            )
        return decoded(body, OddsRequest, "the body")
    events = given.get("events")
    if isinstance(events, str):
        given["events"] = decoded(events.encode(), list[dict[str, Any]], "`events`")
    try:
        return msgspec.convert(given, OddsRequest)
    except msgspec.ValidationError as error:  # past a bound: the asker's to change
        raise UsageError(f"the query: {error}") from None


def bounded_odds(
    app: Application, fight: str, asked: OddsRequest, stop: Callable[[], None] | None = None
) -> Odds:
    """The odds of a what-if from the fight now (or at `asked.at`), within WORK_LIMIT reducer
    steps and ODDS_LIVE paths held, exact or estimated; a question past either is refused
    (422) when the work reaches it, saying what would be answered. `stop` is called as the
    work goes and may raise to end it (the request's deadline)."""
    state = app.state(fight, asked.at)
    events = [convert(item, index=index) for index, item in enumerate(asked.events)]
    try:
        whatif = app.whatif(state, events, hits=asked.hit, ticks=asked.ticks)
    except NothingAsked:
        raise UsageError("say what happens: `events`, `hit` or `ticks`") from None
    app.check_batch_size(len(whatif))
    most = max(1, WORK_LIMIT // (SAMPLE_STEPS * len(whatif)))
    if asked.samples is not None and asked.samples > most:
        raise OddsRefused(
            f"samples={asked.samples}: a what-if of {len(whatif)} events is estimated from "
            f"at most {most:,} samples here (ask for fewer, or about fewer events)",
            most_samples=most,
        )
    budget = Budget(WORK_LIMIT, live=ODDS_LIVE, stop=stop)
    try:
        return app.odds(
            state, whatif, characters=asked.character, samples=asked.samples, budget=budget
        )
    except OddsTooLarge as too_large:
        way_out = (
            "ask for fewer samples, or about fewer events"
            if asked.samples is not None
            else f"ask about fewer events, or estimate it with samples=N (at most {most:,} here)"
        )
        raise OddsRefused(
            f"this what-if takes {too_large.figure}: {way_out}", most_samples=most
        ) from None
