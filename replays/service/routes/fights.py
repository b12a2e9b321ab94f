"""`/fights`: start a fight (its tokens in the answer), list the fights a token may see, delete
one (admin). A fight's own address, `/fights/{fight}/`, is also its timeline page to a browser
(pages.py): the page's GET and the deletion share the path, each with its own guard. Both are
plain handlers, not controllers: Litestar gives each controller on a path its own OPTIONS
handler, and two on one path collide."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, delete, get, post
from litestar.di import NamedDependency
from litestar.params import Parameter

from ...application import Application, FightId, FightsPage, NewFight
from ...application.values import Role
from ..bodies import strictly
from ..fights import Keyed
from ..guards import SECURITY, Service, authorize, grant_of, run
from ..idempotency import HEADER, MAX_KEY, check_key, request_digest
from ..limits import LIST_MAX
from ..openapi import CREATED_AGAIN, problems
from ..schemas import Created
from ..writes import made, wake


class FightsController(Controller):
    path = "/fights"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @post(
        "",
        status_code=201,
        role=Role.ADMIN,
        responses={200: CREATED_AGAIN, **problems(401, 403, 409, 413, 422, 503)},
    )
    async def create_fight(
        self,
        request: Request[Any, Any, Any],
        service: NamedDependency[Service],
        data: NewFight,
        idempotency_key: Annotated[
            str | None,
            Parameter(
                header=HEADER,
                min_length=1,
                max_length=MAX_KEY,
                description="A random key (a UUID) naming this request: a retry with the same key "
                "and body gets the first answer again, the same tokens, for 24 hours. The same key "
                "with another body is 422.",
            ),
        ] = None,
    ) -> Response[Created]:
        """Start a fight (admin token); the answer holds its gm and viewer tokens, shown only once.

        Safe to retry. With an `Idempotency-Key`, a retry is answered exactly as the first request
        was (same status, same tokens). Without one, the same request for a fight already there with
        the same settings answers 200 with a new pair of tokens, which replaces the pair of any
        earlier answer."""
        data = strictly(await request.body(), NewFight)
        key = None
        if idempotency_key is not None:
            key = Keyed(check_key(idempotency_key), request_digest(msgspec.json.encode(data)))
        return await made(service, data.fight, service.fights.create, data, key)

    @get("", role=Role.VIEWER, responses=problems(401, 422, 503))
    async def list_fights(
        self,
        request: Request[Any, Any, Any],
        app: NamedDependency[Application],
        offset: Annotated[int, Parameter(ge=0, le=2**31)] = 0,
        limit: Annotated[int, Parameter(ge=1, le=LIST_MAX)] = 100,
    ) -> FightsPage:
        """The fights this token may see: every fight for the admin token, in the store's order
        (page on with `offset=next`); a gm or viewer token's own fight."""
        return await run(app.fights, offset, limit, only=grant_of(request).fight)


@delete(
    "/fights/{fight:str}",
    status_code=204,
    role=Role.ADMIN,
    guards=[authorize],
    tags=["fights"],
    security=SECURITY,
    responses=problems(401, 403, 404, 422, 503),
)
async def delete_fight(service: NamedDependency[Service], fight: FightId) -> None:
    """Delete the fight (admin): its whole log, its tokens, import cursors and stream tickets,
    in one transaction; its open streams end with a `deleted` message. A retry, the fight
    being gone, is 404."""
    await run(service.fights.delete, fight)
    wake(service, fight)
