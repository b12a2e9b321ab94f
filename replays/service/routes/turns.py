"""`/fights/{fight}`: its turns: the next turn, and the turn order from here on (gm). Each one
call of the application (`application/turns.py`), safe to retry: with the event's `id`, or an
`Idempotency-Key`, a retry appends nothing more."""

from __future__ import annotations

import hashlib
from typing import Annotated

from litestar import Controller, post
from litestar.di import NamedDependency
from litestar.params import Parameter

from ...application import Application, FightId
from ...application.values import Role
from ...fight import Appended
from ..guards import SECURITY, Service, authorize
from ..idempotency import HEADER, MAX_KEY, check_key
from ..openapi import problems
from ..schemas import NextRequest, TurnOrderRequest
from ..writes import appending

IdempotencyKey = Annotated[
    str | None,
    Parameter(
        header=HEADER,
        min_length=1,
        max_length=MAX_KEY,
        description="A random key (a UUID) naming this request when the body gives no `id`: a "
        "retry with the same key appends nothing more (the events' ids are made from it).",
    ),
]


def keyed(event_id: str | None, key: str | None) -> str | None:
    """The id the request's events take: the body's, else one made from its Idempotency-Key
    (a digest: a key may hold what an id may not), else none."""
    if event_id is not None or key is None:
        return event_id
    return "key-" + hashlib.sha256(check_key(key).encode()).hexdigest()[:32]


class TurnsController(Controller):
    path = "/fights/{fight:str}"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @post("/next", status_code=200, role=Role.GM, responses=problems(401, 403, 404, 409, 422))
    async def next_turn(
        self,
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        data: NextRequest | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Appended:
        """End the current turn and start the next living character's in the turn order,
        wrapping to the next round after the last (gm): a `turn_ended` and a `turn_started` of
        one character each, appended together; the first starts round 1. The changes are the
        rules' start- and end-of-turn steps."""
        asked = data or NextRequest()
        eid = keyed(asked.id, idempotency_key)
        return await appending(service, fight, app.next_turn, rolls=asked.rolls, event_id=eid)

    @post("/turn-order", status_code=200, role=Role.GM, responses=problems(401, 403, 404, 409, 422))
    async def turn_order(
        self,
        app: NamedDependency[Application],
        service: NamedDependency[Service],
        fight: FightId,
        data: TurnOrderRequest,
        idempotency_key: IdempotencyKey = None,
    ) -> Appended:
        """The turn order from here on (gm), recorded as a `turn_order`: ids (or names) first to
        last, or initiative values; whose turn it is stays."""
        return await appending(
            service, fight, app.turn_order, data.order, initiative=data.initiative,
            event_id=keyed(data.id, idempotency_key),
        )  # fmt: skip
