"""The `/campaigns` routes: a campaign's roster over HTTP, each route a call of the Application's
campaign use cases (replays/application/campaigns.py) in a worker thread.

Tokens are the fights' model (application/tokens.py), keyed by the campaign's stream id
(`campaign~NAME`, which no fight id can be): the admin token starts a campaign, which answers
with a gm token (writes) and a viewer token (reads) of that campaign alone.

A request that reads one stream into another must be allowed on both, so that no token reads a
log it was not given: recording a fight into a campaign takes, besides the campaign's gm token,
a token of that fight in `Woundlog-Fight-Token`; joining a fight from a campaign's roster takes,
besides the fight's gm token, a token of the campaign in `Woundlog-Campaign-Token`; an import
naming a campaign (`?campaign=`) writes into it, so takes the campaign's gm token in that header.
The admin token needs neither.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, post
from litestar.connection import ASGIConnection
from litestar.exceptions import NotFoundException, PermissionDeniedException
from litestar.handlers import BaseRouteHandler
from litestar.params import Parameter

from woundlog.events import UsageError
from woundlog.events.campaign import Died, Rest, Retired, TimePassed, Treatment
from woundlog.events.fight_ids import campaign_stream, check_fight_id
from woundlog.events.model import SAFE_INT

from ..application import Application, FightId
from ..application.values import (
    CampaignAppended,
    CampaignHistory,
    CampaignUndone,
    CampaignView,
    Role,
)
from ..campaign import Consequences
from ..fight import Appended
from ..report.campaign import CampaignReport
from .bodies import strictly
from .campaign_schemas import (
    Between,
    CampaignCreated,
    CampaignUndoRequest,
    JoinFromCampaign,
    MemberRequest,
    NewCampaign,
    PlayedRequest,
)
from .guards import (
    CAMPAIGN_TOKEN,
    FIGHT_TOKEN,
    SECURITY,
    also_allowed,
    authorize,
    credentials,
    run,
    service,
)
from .limits import REPORT_MAX
from .openapi import problems

SINCE_MAX = 100
"""The most fights one consequences question names."""


async def authorize_campaign(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """A guard: 401 no or unknown token, 404 unknown campaign, 403 a token of another fight or
    campaign, or of a role that cannot do this."""
    needed: Role = handler.opt["role"]
    grant = await credentials(connection, handler)
    connection.state.grant = grant
    campaign: str | None = connection.path_params.get("campaign")
    if campaign is None:
        if grant.role is not Role.ADMIN:
            raise PermissionDeniedException("starting a campaign takes the admin token")
        return
    stream = campaign_stream(campaign)
    if not await run(_version, connection, stream):
        raise NotFoundException(f"no campaign `{campaign}`")
    if not grant.covers(stream):
        raise PermissionDeniedException(f"this token is not one of campaign `{campaign}`")
    if not grant.allows(needed):
        raise PermissionDeniedException(f"a {grant.role.value} token cannot do this")


def _version(connection: ASGIConnection[Any, Any, Any, Any], stream: str) -> int:
    return service(connection).fights.store().version(stream)


CAMPAIGN: dict[str, Any] = {
    "guards": [authorize_campaign],
    "security": SECURITY,
    "tags": ["campaigns"],
}


def of_a_campaign(role: Role, *also: int) -> dict[str, Any]:
    return {"role": role, "responses": problems(401, 403, 404, 409, 422, 503, *also), **CAMPAIGN}


Name = Annotated[str, Parameter(min_length=1, max_length=190)]


@post("/campaigns", status_code=201, role=Role.ADMIN, responses=problems(401, 403, 409, 422, 503),
      **CAMPAIGN)  # fmt: skip
async def create_campaign(request: Request[Any, Any, Any], data: NewCampaign) -> Response[Any]:
    """Start a campaign (admin token); the answer holds its gm and viewer tokens, shown once. A
    retry with the same `id` is 200 with a new pair, which replaces the earlier pair."""
    data = strictly(await request.body(), NewCampaign)
    created, new = await run(_create, request, data)
    return Response(created, status_code=201 if new else 200)


def _create(request: Request[Any, Any, Any], data: NewCampaign) -> tuple[CampaignCreated, bool]:
    fights = service(request).fights
    appended = fights.app.campaign_new(
        data.campaign, data.ruleset, name=data.name, by=data.by, note=data.note, event_id=data.id
    )
    gm, viewer = fights.tokens.issue(campaign_stream(data.campaign))
    answer = CampaignCreated(
        campaign=data.campaign, version=appended.version, gm_token=gm, viewer_token=viewer
    )
    return answer, not appended.skipped


@get("/campaigns/{campaign:str}/record", **of_a_campaign(Role.VIEWER))
async def show_campaign(
    request: Request[Any, Any, Any],
    campaign: Name,
    at: Annotated[int | None, Parameter(ge=1, le=SAFE_INT)] = None,
) -> CampaignView:
    """Every member's record (viewer): current stats under their own names, injuries with the
    fight and event each was taken in, death, retirement; now or at the campaign's event `at`.
    `stale`: the later fights that began from a record no longer true."""
    return await run(service(request).fights.app.campaign_show, campaign, at)


@get("/campaigns/{campaign:str}/history", **of_a_campaign(Role.VIEWER))
async def campaign_history(
    request: Request[Any, Any, Any],
    campaign: Name,
    member: Annotated[str | None, Parameter(min_length=1, max_length=200)] = None,
) -> CampaignHistory:
    """The campaign's log event by event, with what each did to each member's record (viewer);
    with `member`, the events that concern that member alone, across fights."""
    return await run(service(request).fights.app.campaign_history, campaign, member)


@post("/campaigns/{campaign:str}/members", status_code=200, **of_a_campaign(Role.GM))
async def join_member(
    request: Request[Any, Any, Any], campaign: Name, data: MemberRequest
) -> CampaignAppended:
    """A character joins the roster with their starting stats and gear (gm)."""
    data = strictly(await request.body(), MemberRequest)
    app = service(request).fights.app
    return await run(lambda: app.campaign_join(
        campaign, data.member, name=data.name, side=data.side, kind=data.kind, stats=data.stats,
        gear=data.gear, by=data.by, note=data.note, event_id=data.id,
    ))  # fmt: skip


@post("/campaigns/{campaign:str}/fights", status_code=200, **of_a_campaign(Role.GM))
async def fight_played(
    request: Request[Any, Any, Any],
    campaign: Name,
    data: PlayedRequest,
    fight_token: Annotated[
        str | None,
        Parameter(
            header=FIGHT_TOKEN,
            max_length=200,
            description="A token of the fight (any role): the campaign reads its log.",
        ),
    ] = None,
) -> CampaignAppended:
    """Fight `fight` was played (gm of the campaign, and a token of the fight in
    `Woundlog-Fight-Token`): its result enters the roster by folding the fight's log, so a later
    undo in that fight flows into every record after it."""
    data = strictly(await request.body(), PlayedRequest)
    check_fight_id(data.fight)
    await also_allowed(request, FIGHT_TOKEN, data.fight, f"fight `{data.fight}`")
    app = service(request).fights.app
    members = None if data.members is None else dict(data.members)
    return await run(lambda: app.campaign_record(
        campaign, data.fight, members, by=data.by, note=data.note, event_id=data.id
    ))  # fmt: skip


BETWEEN = msgspec.json.Decoder(Between)
"""The between-fight events a body may be: a tagged union, read by its own decoder."""


@post("/campaigns/{campaign:str}/between", status_code=200, **of_a_campaign(Role.GM))
async def between_fights(
    request: Request[Any, Any, Any], campaign: Name, data: Between
) -> CampaignAppended:
    """A between-fight event (gm), written as in the campaign's log: `rest` (`kind`, `member`,
    `amount`), `treatment` (`member`, `injury`, `means`, `amount`), `time_passed` (`days`),
    `retired` (`member`, `reason`) or `died` (`member`, `cause`)."""
    event = strictly(await request.body(), BETWEEN)
    app = service(request).fights.app
    return await run(_between, app, campaign, event)


def _between(app: Application, campaign: str, event: Between) -> CampaignAppended:
    common: dict[str, Any] = {
        "by": event.by,
        "note": event.note,
        "event_id": event.id,
        "at": event.at,
    }
    if isinstance(event, Rest):
        return app.campaign_rest(
            campaign, event.kind, member=event.member, amount=event.amount, **common
        )
    if isinstance(event, Treatment):
        return app.campaign_treat(
            campaign, event.member, injury=event.injury, means=event.means, amount=event.amount,
            **common,
        )  # fmt: skip
    if isinstance(event, TimePassed):
        return app.campaign_time(campaign, event.days, **common)
    if isinstance(event, Retired):
        return app.campaign_retire(campaign, event.member, reason=event.reason, **common)
    assert isinstance(event, Died)
    return app.campaign_died(campaign, event.member, cause=event.cause, **common)


@post("/campaigns/{campaign:str}/undo", status_code=200, **of_a_campaign(Role.GM))
async def undo_campaign(
    request: Request[Any, Any, Any], campaign: Name, data: CampaignUndoRequest | None = None
) -> CampaignUndone:
    """Retract an event of the campaign's log (gm; default: its newest live one), with its
    consequences across the campaign. An undo in one of its fights is that fight's
    (`POST /fights/{fight}/undo`); `GET .../consequences?since=FIGHT:VERSION` then reports what
    it changed."""
    asked = data or CampaignUndoRequest()
    app = service(request).fights.app
    return await run(lambda: app.campaign_undo(
        campaign, asked.event, reason=asked.reason, by=asked.by, undo_id=asked.id
    ))  # fmt: skip


@get("/campaigns/{campaign:str}/consequences", **of_a_campaign(Role.VIEWER))
async def campaign_consequences(
    request: Request[Any, Any, Any],
    campaign: Name,
    since: Annotated[
        list[str] | None,
        Parameter(max_items=SINCE_MAX, description="FIGHT:VERSION, the fight as it stood then"),
    ] = None,
) -> Consequences:
    """What the campaign's fights as they stand now change against the fights at the versions
    `since` names (viewer): each member's stats from which fight on ("Grundi: Starting Wounds
    8 -> 10 from fight f3 on"), and the later fights that began from a record no longer true."""
    fights_at = _since(since or [])
    return await run(service(request).fights.app.campaign_consequences, campaign, fights_at)


@get("/campaigns/{campaign:str}/report", **of_a_campaign(Role.VIEWER, 413))
async def campaign_report(request: Request[Any, Any, Any], campaign: Name) -> CampaignReport:
    """Each member's numbers summed over the fights the campaign records (viewer), per member
    and in all, with the fights listed: the JSON `woundlog campaign report --json` prints. Luck
    and chronicle are each fight's own (`GET /fights/{fight}/report`). Fights of more than
    50,000 events in all are 413."""
    app = service(request).fights.app
    return await run(lambda: app.campaign_report(campaign, most=REPORT_MAX))


def _since(given: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for item in given:
        fight, _, version = item.rpartition(":")
        if not fight or not version.isdigit() or int(version) > SAFE_INT:
            raise UsageError(f"since={item!r}: give FIGHT:VERSION, such as `since=f2:14`")
        found[check_fight_id(fight)] = int(version)
    return found


@post("/fights/{fight:str}/join", status_code=200, role=Role.GM,
      responses=problems(401, 403, 404, 409, 422, 503), guards=[authorize], security=SECURITY,
      tags=["fights", "campaigns"])  # fmt: skip
async def join_from_campaign(
    request: Request[Any, Any, Any],
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
    app = service(request).fights.app
    return await run(lambda: app.join_from_campaign(
        fight, data.character, data.campaign, member=data.member, at=data.at, by=data.by,
        event_id=data.id,
    ))  # fmt: skip


HANDLERS = [
    create_campaign,
    show_campaign,
    campaign_history,
    join_member,
    fight_played,
    between_fights,
    undo_campaign,
    campaign_consequences,
    campaign_report,
    join_from_campaign,
]
"""The `/campaigns` routes (and `join_from_campaign`, a fight's route under the fights' guard)."""
