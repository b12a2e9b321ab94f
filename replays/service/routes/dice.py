"""`/fights/{fight}/dice-asked`: dice at the table. Which die the rules would ask for next for
an event the GM means to record, with the dice the table has rolled for it so far, so a page
asks the table for each by name and sides before it appends the event (application/dice.py)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, post
from litestar.di import NamedDependency

from woundlog.events.model import Rolls

from ...application import Application, FightId
from ...application.dice import DiceAsked
from ...application.values import Role
from ..guards import SECURITY, authorize, run
from ..openapi import problems


class NextDice(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`POST /fights/{fight}/next/dice-asked`: the table's dice for the next turn so far, as
    `POST /fights/{fight}/next` takes them."""

    rolls: Rolls = {}


class DiceController(Controller):
    path = "/fights/{fight:str}"
    tags = ("fights",)
    guards = (authorize,)
    security = SECURITY

    @post("/dice-asked", status_code=200, role=Role.GM, responses=problems(401, 403, 404, 422))
    async def dice_asked(
        self, app: NamedDependency[Application], fight: FightId, data: dict[str, Any]
    ) -> DiceAsked:
        """The next die the rules would ask for this event on the fight as it stands (gm): the
        event as `POST /events` takes one, with the dice rolled so far in `rolls`. `die` names
        its purpose, sides, the character it is for, the `rolls` key to give it under and the
        ruleset's word for it; null when the given dice are all it needs. Nothing is written;
        an event the rules refuse is refused (422) as its append would be."""
        return await run(app.dice_asked, fight, data)

    @post("/next/dice-asked", status_code=200, role=Role.GM, responses=problems(401, 403, 404, 422))
    async def next_dice_asked(
        self, app: NamedDependency[Application], fight: FightId, data: NextDice | None = None
    ) -> DiceAsked:
        """The next die the rules would ask for the next turn (gm): the end of the turn under
        way and the start of the next, as `POST /next` would append them, with the table's
        dice so far in `rolls` as it takes them. Nothing is written."""
        return await run(app.next_dice_asked, fight, (data or NextDice()).rolls)
