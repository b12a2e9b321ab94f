"""`/fights/{fight}/tokens`: a fight's tokens, handed out, listed and revoked. The pair `POST
/fights` hands out (`gm`, `viewer`) is reissued or revoked whole by the admin; more tokens are
named, each beside the others (issue 26)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, delete, get, post
from litestar.di import NamedDependency

from ...application import Application, FightId
from ...application.values import Issued, Role, TokenInfo, TokenName
from ..bodies import strictly
from ..guards import SECURITY, Service, authorize, grant_of, run
from ..openapi import problems
from ..schemas import Created, TokenRequest

ANSWERS = problems(401, 403, 404, 422, 503)
"""What a route of one fight that takes no body may answer, besides its own."""


class TokensController(Controller):
    path = "/fights/{fight:str}/tokens"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @post("", status_code=200, role=Role.ADMIN, responses=ANSWERS)
    async def reissue_tokens(self, service: NamedDependency[Service], fight: FightId) -> Created:
        """A new gm and viewer token for the fight (admin), shown once; the old pair stops
        working at once, and so do its stream tickets."""
        reissued = await run(service.fights.reissue, fight)
        service.notifier.notify(fight)  # its streams look again now: the old pair's end
        return reissued

    @delete("", status_code=204, role=Role.ADMIN, responses=ANSWERS)
    async def revoke_tokens(self, service: NamedDependency[Service], fight: FightId) -> None:
        """Revoke the fight's gm and viewer tokens (admin), and its stream tickets; only the admin
        token reaches the fight until `POST /fights/{fight}/tokens` issues a new pair."""
        await run(service.fights.revoke, fight)
        service.notifier.notify(fight)  # its streams look again now, and end

    @get("", role=Role.GM, responses=ANSWERS)
    async def list_tokens(
        self, app: NamedDependency[Application], service: NamedDependency[Service], fight: FightId
    ) -> list[TokenInfo]:
        """The fight's tokens (gm or admin), oldest first: each one's name, role and when it was
        issued, never the token (only its hash is kept)."""
        return await run(app.tokens_of, fight, service.fights.tokens)

    @post(
        "/{name:str}",
        status_code=201,
        role=Role.GM,
        responses=problems(401, 403, 404, 409, 422, 503),
    )
    async def issue_token(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        name: TokenName,
        data: TokenRequest | None = None,
    ) -> Issued:
        """A new token named `name` for the fight, beside its others, shown once (body
        `{"role": "viewer"}`, the default, or `"gm"`): a gm token may issue viewer tokens, the
        admin's either. A name the fight holds already is 409: revoke it first (so a retry after a
        lost answer is 409 too, and the token it made stays unknown: revoke it and ask again)."""
        asked = strictly(await request.body(), TokenRequest) if data is not None else TokenRequest()
        role, by = Role(asked.role), grant_of(request).role
        return await run(app.hand_out, fight, service.fights.tokens, role, name, by)

    @delete("/{name:str}", status_code=204, role=Role.GM, responses=ANSWERS)
    async def revoke_token(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        name: TokenName,
    ) -> None:
        """Revoke the fight's token `name` (a gm token may revoke viewer tokens, the admin's any),
        and the fight's stream tickets (a page whose token still works asks for a new one), and
        ends the streams it opened; the fight's other tokens keep working. An unknown name is
        404, naming the ones there are."""
        await run(app.revoke_token, fight, service.fights.tokens, name, grant_of(request).role)
        service.notifier.notify(fight)  # its streams look again now: the revoked one's end
