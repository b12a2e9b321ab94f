"""`/fights/{fight}/players-view`: what the fight's viewer tokens are shown of the GM's
characters' hit points (`hidden`, `bands`, `shown`), the GM's setting, kept beside the fight
(application/redaction.py says what each shows and where it is enforced)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, get, put
from litestar.di import NamedDependency

from ...application import Application, FightId
from ...application.redaction import PlayersView
from ...application.values import Role
from ..bodies import strictly
from ..guards import SECURITY, Service, authorize, run
from ..openapi import problems
from ..schemas import PlayersViewRequest

ANSWERS = problems(401, 403, 404, 422, 503)


class PlayersViewController(Controller):
    path = "/fights/{fight:str}/players-view"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @get("", role=Role.VIEWER, responses=ANSWERS)
    async def players_view(self, app: NamedDependency[Application], fight: FightId) -> PlayersView:
        """What the fight's viewer tokens are shown of the GM's characters' hit points (viewer):
        `hidden`, `bands` (the default: Healthy, Hurt, Bloodied, Defeated) or `shown`."""
        return await run(app.players_view, fight)

    @put("", role=Role.GM, responses=ANSWERS)
    async def set_players_view(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        data: PlayersViewRequest,
    ) -> PlayersView:
        """Set what the fight's viewer tokens are shown of the GM's characters' hit points (gm):
        every read of a viewer token from then on, its live stream's next messages included.
        Setting it again to the same is harmless."""
        data = strictly(await request.body(), PlayersViewRequest)
        shown = await run(app.set_players_view, fight, data.monsters)
        service.notifier.seen_otherwise(fight)  # its streams' next messages by the new one
        return shown
