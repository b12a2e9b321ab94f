"""`/fights/{fight}`: a fight's log and state: events appended, read and undone, another
program's records imported, a campaign member joined from its roster."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import Parameter

from woundlog.core import FightState
from woundlog.events import UsageError
from woundlog.events.fight_ids import campaign_stream
from woundlog.events.model import SAFE_INT

from ...application import Application, EventsPage, FightId
from ...application.values import Role
from ...fight import Appended
from ..bodies import EventsBody, listed, strictly
from ..campaign_schemas import JoinFromCampaign
from ..guards import (
    CAMPAIGN_TOKEN,
    SECURITY,
    Service,
    also_allowed,
    as_seen,
    authorize,
    held,
    run,
)
from ..limits import PAGE_MAX
from ..openapi import problems
from ..schemas import UndoRequest
from ..writes import appending


class EventsController(Controller):
    path = "/fights/{fight:str}"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @post("/events", status_code=200, role=Role.GM)
    async def append_events(
        self,
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        data: EventsBody,
        expected_version: Annotated[int | None, Parameter(ge=0, le=SAFE_INT)] = None,
    ) -> Appended:
        """Append one event or a list, atomically (gm). Events already there (same id, same content)
        are skipped, so a resend is harmless."""
        events, version = listed(data), expected_version
        return await appending(service, fight, app.record_json, events, expected_version=version)

    @get("/state", role=Role.VIEWER)
    async def fight_state(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        fight: FightId,
        at: Annotated[int | None, Parameter(ge=1, le=SAFE_INT)] = None,
    ) -> Response[FightState[Any]]:
        """Every character's state, now or as the fight stood at event `at` (viewer: the GM's
        characters' pools as the fight's players' view says, `GET .../players-view`)."""
        seen = as_seen(request, app, fight)
        return Response(await run(lambda: seen(app.state(fight, at))))

    @get("/events", role=Role.VIEWER)
    async def fight_events(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        fight: FightId,
        from_: Annotated[int, Parameter(query="from", ge=1, le=SAFE_INT)] = 1,
        limit: Annotated[int, Parameter(ge=1, le=PAGE_MAX)] = 1000,
    ) -> Response[EventsPage]:
        """The events from seq `from`, with their seq (viewer: what they tell of the GM's
        characters' numbers left out, as the players' view says); page on with `next`. `from`
        the next seq (what a client polling for new events asks) is an empty page; past it is
        422, as for the stream."""
        page = await run(app.events, fight, from_, limit)
        if from_ > page.version + 1:
            raise UsageError(
                f"from={from_}: fight `{fight}` has events 1 to {page.version}; read from one "
                f"of them, or from {page.version + 1} for what comes next"
            )
        return Response(await run(as_seen(request, app, fight), page))

    @post("/undo", status_code=200, role=Role.GM)
    async def undo(
        self,
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        data: UndoRequest | None = None,
    ) -> Appended:
        """Retract an event (default: the newest live one) (gm); the changes carry its
        consequences."""
        asked = data or UndoRequest()
        return await appending(
            service, fight, app.undo, asked.event, reason=asked.reason, by=asked.by,
            undo_id=asked.id,
        )  # fmt: skip

    @post("/import/{format:str}", status_code=200, role=Role.GM)
    async def import_records(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        format: str,
        data: EventsBody,
        campaign: Annotated[
            str | None,
            Parameter(
                min_length=1,
                max_length=190,
                description="A campaign to record the fight in (its gm token in "
                "`Woundlog-Campaign-Token`).",
            ),
        ] = None,
        campaign_token: Annotated[
            str | None,
            Parameter(
                header="Woundlog-Campaign-Token",
                max_length=200,
                description="The campaign's gm token, with `campaign`.",
            ),
        ] = None,
    ) -> Appended:
        """One record or a list in another program's format (`foundry`, `improved-initiative`,
        `avrae`), converted by its importer and appended (gm). An unknown format is 404, a
        malformed record 422 (nothing written).

        A record is a fact of the other program's table: an event of it that the fight's rules
        refuse (a heal on a character woundlog holds dead) is left out and named in `warnings`
        (its record, its event, the rules' reason), and the rest is appended, so the records after
        it still arrive; a blow or heal refused only for its attacker or healer is kept without
        them (id `...:unattributed`). Sending the same records again adds nothing.

        With `campaign`, the fight is then recorded in that campaign once (`recorded_in` says it
        was, this time), with its members who are characters of it under their own ids; a new
        fight plays the campaign's ruleset."""
        if campaign is not None:
            stream = campaign_stream(campaign)
            await also_allowed(request, CAMPAIGN_TOKEN, stream, f"campaign `{campaign}`", Role.GM)
        imports = app.import_records
        async with held(request):
            return await appending(service, fight, imports, format, listed(data), campaign=campaign)

    @post(
        "/join",
        status_code=200,
        role=Role.GM,
        responses=problems(401, 403, 404, 409, 422, 503),
        tags=["campaigns"],
    )
    async def join_from_campaign(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        data: JoinFromCampaign,
        campaign_token: Annotated[
            str | None,
            Parameter(
                header=CAMPAIGN_TOKEN,
                max_length=200,
                description="A token of the campaign (any role): the join reads its roster.",
            ),
        ] = None,
    ) -> Appended:
        """A campaign member joins the fight with their record at that point of the campaign (gm of
        the fight, and a token of the campaign in `Woundlog-Campaign-Token`); a dead or retired
        member is refused with the reason."""
        data = strictly(await request.body(), JoinFromCampaign)
        stream = campaign_stream(data.campaign)
        await also_allowed(request, CAMPAIGN_TOKEN, stream, f"campaign `{data.campaign}`")
        async with held(request) as stop:  # it reads the campaign's record: a campaign read
            return await appending(
                service, fight, app.join_from_campaign, data.character, data.campaign,
                member=data.member, at=data.at, by=data.by, event_id=data.id, stop=stop,
            )  # fmt: skip
