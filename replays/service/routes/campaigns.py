"""`/campaigns`: a campaign's roster over HTTP, each route a call of the application's campaign
use cases (replays/application/campaigns.py, campaign_views.py) in a worker thread.

Tokens are the fights' model (application/tokens.py), keyed by the campaign's stream id
(`campaign~NAME`, which no fight id can be): the admin token starts a campaign, which answers
with a gm token (writes) and a viewer token (reads) of that campaign alone.

A request that reads one stream into another must be allowed on both, so that no token reads a
log it was not given: recording a fight into a campaign takes, besides the campaign's gm token,
a token of that fight in `Woundlog-Fight-Token`; joining a fight from a campaign's roster takes,
besides the fight's gm token, a token of the campaign in `Woundlog-Campaign-Token` (events.py);
an import naming a campaign (`?campaign=`) writes into it, so takes the campaign's gm token in
that header. The admin token needs neither.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.di import NamedDependency
from litestar.params import Parameter

from woundlog.events import UsageError
from woundlog.events.fight_ids import campaign_stream, check_fight_id
from woundlog.events.model import SAFE_INT

from ...application import Application
from ...application.values import (
    CampaignAppended,
    CampaignHistory,
    CampaignUndone,
    CampaignView,
    Issued,
    Role,
    TokenName,
)
from ...campaign import Consequences
from ...report.campaign import CampaignReport
from ..bodies import strictly
from ..campaign_schemas import (
    Between,
    CampaignCreated,
    CampaignUndoRequest,
    MemberRequest,
    NewCampaign,
    PlayedRequest,
)
from ..guards import (
    FIGHT_TOKEN,
    SECURITY,
    Service,
    also_allowed,
    as_campaign_seen,
    authorize_campaign,
    gated,
    grant_of,
    run,
)
from ..limits import REPORT_MAX
from ..openapi import problems
from ..schemas import TokenRequest

SINCE_MAX = 100
"""The most fights one consequences question names."""

Name = Annotated[str, Parameter(min_length=1, max_length=190)]
ANSWERS = problems(401, 403, 404, 409, 422, 503)
"""What a route of one campaign may answer, besides its own."""
BETWEEN = msgspec.json.Decoder(Between)
"""The between-fight events a body may be: a tagged union, read by its own decoder."""


class CampaignsController(Controller):
    path = "/campaigns"
    tags = ("campaigns",)
    guards = (authorize_campaign,)
    security = SECURITY

    @post("", status_code=201, role=Role.ADMIN, responses=problems(401, 403, 409, 422, 503))
    async def create_campaign(
        self, request: Request[Any, Any, Any], service: NamedDependency[Service], data: NewCampaign
    ) -> Response[Any]:
        """Start a campaign (admin token); the answer holds its gm and viewer tokens, shown once. A
        retry with the same `id` is 200 with a new pair, which replaces the earlier pair."""
        data = strictly(await request.body(), NewCampaign)
        created, new = await run(started, service, data)
        return Response(created, status_code=201 if new else 200)

    @post(
        "/{campaign:str}/tokens/{name:str}",
        status_code=201,
        role=Role.GM,
        responses=problems(401, 403, 404, 409, 422, 503),
    )
    async def issue_campaign_token(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        campaign: Name,
        name: TokenName,
        data: TokenRequest | None = None,
    ) -> Issued:
        """A new token named `name` for the campaign's page, beside its others, shown once (body
        `{"role": "viewer"}`, the default, or `"gm"`): a gm token of the campaign may issue
        viewer tokens, the admin's either; `woundlog share --campaign` does the same. A name the
        campaign holds already is 409."""
        asked = strictly(await request.body(), TokenRequest) if data is not None else TokenRequest()
        role, by = Role(asked.role), grant_of(request).role
        keeper = service.fights.tokens
        return await run(app.hand_out_campaign, campaign, keeper, role, name, by)

    @get("/{campaign:str}/record", role=Role.VIEWER, responses=ANSWERS)
    async def show_campaign(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        campaign: Name,
        at: Annotated[int | None, Parameter(ge=1, le=SAFE_INT)] = None,
    ) -> Response[CampaignView]:
        """Every member's record (viewer: a member of a GM's kind as the campaign's players'
        view says): current stats under their own names, injuries with the fight and event each
        was taken in, death, retirement; now or at the campaign's event `at`. `stale`: the later
        fights that began from a record no longer true."""
        seen = as_campaign_seen(request, app, campaign)
        return Response(
            await gated(request, lambda stop: seen(app.campaign_show(campaign, at, stop=stop)))
        )

    @get("/{campaign:str}/history", role=Role.VIEWER, responses=ANSWERS)
    async def campaign_history(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        campaign: Name,
        member: Annotated[str | None, Parameter(min_length=1, max_length=200)] = None,
    ) -> Response[CampaignHistory]:
        """The campaign's log event by event, with what each did to each member's record (viewer,
        as the campaign's players' view says); with `member`, the events that concern that
        member alone, across fights."""
        seen = as_campaign_seen(request, app, campaign)
        return Response(
            await gated(
                request, lambda stop: seen(app.campaign_history(campaign, member, stop=stop))
            )
        )

    @post("/{campaign:str}/members", status_code=200, role=Role.GM, responses=ANSWERS)
    async def join_member(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        campaign: Name,
        data: MemberRequest,
    ) -> CampaignAppended:
        """A character joins the roster with their starting stats and gear (gm)."""
        data = strictly(await request.body(), MemberRequest)
        return await gated(
            request,
            lambda stop: app.campaign_join(
                campaign, data.member, name=data.name, side=data.side, kind=data.kind,
                stats=data.stats, gear=data.gear, by=data.by, note=data.note, event_id=data.id,
                stop=stop,
            ),
        )  # fmt: skip

    @post("/{campaign:str}/fights", status_code=200, role=Role.GM, responses=ANSWERS)
    async def fight_played(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
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
        members = None if data.members is None else dict(data.members)
        return await gated(
            request,
            lambda stop: app.campaign_record(
                campaign,
                data.fight,
                members,
                by=data.by,
                note=data.note,
                event_id=data.id,
                stop=stop,
            ),
        )

    @post("/{campaign:str}/between", status_code=200, role=Role.GM, responses=ANSWERS)
    async def between_fights(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        campaign: Name,
        data: Between,
    ) -> CampaignAppended:
        """A between-fight event (gm), written as in the campaign's log: `rest` (`kind`, `member`,
        `amount`), `treatment` (`member`, `injury`, `means`, `amount`), `repair` (`member`,
        `item`), `time_passed` (`days`),
        `retired` (`member`, `reason`) or `died` (`member`, `cause`)."""
        between = strictly(await request.body(), BETWEEN)
        return await gated(request, lambda stop: app.campaign_between(campaign, between, stop=stop))

    @post("/{campaign:str}/undo", status_code=200, role=Role.GM, responses=ANSWERS)
    async def undo_campaign(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        campaign: Name,
        data: CampaignUndoRequest | None = None,
    ) -> CampaignUndone:
        """Retract an event of the campaign's log (gm; default: its newest live one), with its
        consequences across the campaign. An undo in one of its fights is that fight's
        (`POST /fights/{fight}/undo`); `GET .../consequences?since=FIGHT:VERSION` then reports what
        it changed."""
        asked = data or CampaignUndoRequest()
        return await gated(
            request,
            lambda stop: app.campaign_undo(
                campaign,
                asked.event,
                reason=asked.reason,
                by=asked.by,
                undo_id=asked.id,
                stop=stop,
            ),
        )

    @get("/{campaign:str}/consequences", role=Role.VIEWER, responses=ANSWERS)
    async def campaign_consequences(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        campaign: Name,
        since: Annotated[
            list[str] | None,
            Parameter(max_items=SINCE_MAX, description="FIGHT:VERSION, the fight as it stood then"),
        ] = None,
    ) -> Response[Consequences]:
        """What the campaign's fights as they stand now change against the fights at the versions
        `since` names (viewer, as the campaign's players' view says): each member's stats from
        which fight on ("Grundi: Starting Wounds 8 -> 10 from fight f3 on"), and the later
        fights that began from a record no longer true."""
        since_at = fights_at(since or [])
        seen = as_campaign_seen(request, app, campaign)
        return Response(
            await gated(
                request, lambda stop: seen(app.campaign_consequences(campaign, since_at, stop=stop))
            )
        )

    @get("/{campaign:str}/report", role=Role.VIEWER, responses={**ANSWERS, **problems(413)})
    async def campaign_report(
        self, request: Request[Any, Any, Any], app: NamedDependency[Application], campaign: Name
    ) -> Response[CampaignReport]:
        """Each member's numbers summed over the fights the campaign records (viewer: a member
        of a GM's kind without the damage and healing it took, nor the total's), per member
        and in all, with the fights listed: the JSON `woundlog campaign report --json` prints. Luck
        and chronicle are each fight's own (`GET /fights/{fight}/report`). Fights of more than
        50,000 events in all are 413."""
        seen = as_campaign_seen(request, app, campaign)
        return Response(
            await gated(
                request,
                lambda stop: seen(app.campaign_report(campaign, most=REPORT_MAX, stop=stop)),
            )
        )


def started(service: Service, data: NewCampaign) -> tuple[CampaignCreated, bool]:
    """The campaign `data` starts, and its gm and viewer tokens (whether it is new: a retry of
    the same start gets a new pair)."""
    appended = service.app.campaign_new(
        data.campaign, data.ruleset, name=data.name, by=data.by, note=data.note, event_id=data.id
    )
    gm, viewer = service.fights.tokens.issue(campaign_stream(data.campaign))
    answer = CampaignCreated(
        campaign=data.campaign, version=appended.version, gm_token=gm, viewer_token=viewer
    )
    return answer, not appended.skipped


def fights_at(given: list[str]) -> dict[str, int]:
    """`since=FIGHT:VERSION` items as {fight: version}."""
    found: dict[str, int] = {}
    for item in given:
        fight, _, version = item.rpartition(":")
        if not fight or not version.isdigit() or int(version) > SAFE_INT:
            raise UsageError(f"since={item!r}: give FIGHT:VERSION, such as `since=f2:14`")
        found[check_fight_id(fight)] = int(version)
    return found
