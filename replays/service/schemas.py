"""What the HTTP service takes and gives: msgspec Structs, so the OpenAPI schema is drawn from them.

Events themselves are not redeclared here: a request's events are decoded as plain JSON and then
validated one by one with `woundlog.events.convert`, so that a refusal names each event's index in
the batch, its id and its field (a whole-body decode would stop at the first bad event).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from woundlog.events import WoundlogError
from woundlog.events.model import MAGNITUDE, ORDER_LENGTH, EventRef, Id, Name, Rolls, Text

from ..application import FightId
from ..whatif import MAX_TICKS


class Created(msgspec.Struct, kw_only=True):
    """The fight's tokens: shown once, kept only as hashes. 201 for a new fight; 200 when the
    fight was already there with the same settings (a retry), with a new pair that replaces the
    old one."""

    fight: str
    version: int
    seed: int
    gm_token: str
    viewer_token: str


class StreamTicket(msgspec.Struct, kw_only=True):
    """Opens `GET /fights/{fight}/stream?ticket=...` of this fight alone, read-only, for
    `expires_in` seconds (then ask for another): for a browser's EventSource, which cannot send
    an Authorization header."""

    ticket: str
    expires_in: int
    stream: str  # the stream's path, ticket included


class UndoRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`POST /fights/{fight}/undo`: the event to retract (id or `#N`); none: the newest live."""

    event: EventRef | None = None
    reason: Text = ""
    by: Name | None = None
    id: Id | None = None  # the retract's own id: a retried undo with it undoes once


class NextRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`POST /fights/{fight}/next`: nothing, or the table's dice (`{"death_save@mirabel": [14]}`:
    a die of one character goes to his turn's tick, the end of the current turn or the start of
    the next; a die of no character to the start), and the next's own id (its `turn_started`'s;
    its `turn_ended`'s is the same with `:end`): a retried next with it moves the turn on once."""

    rolls: Rolls = {}
    id: Annotated[str, Meta(min_length=1, max_length=196)] | None = None


class TurnOrderRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`POST /fights/{fight}/turn-order`: the order from here on, as character ids (or names)
    first to last, or as initiative values (`{"grim": 15}`: higher first, ties by join order);
    one of the two. Everyone not named follows, by the initiative they joined with."""

    order: Annotated[list[Name], Meta(max_length=ORDER_LENGTH)] = []
    initiative: (
        Annotated[
            dict[Name, Annotated[int, Meta(ge=-MAGNITUDE, le=MAGNITUDE)]],
            Meta(max_length=ORDER_LENGTH),
        ]
        | None
    ) = None
    id: Id | None = None  # the turn_order's own id: a retry with it is the same event


MAX_WHATIF = 1000
"""Events a what-if or a branch may add: a batch's limit."""
Shorthand = Annotated[str, Meta(min_length=1, max_length=401)]  # a character, or TARGET:D:ATTACKER


class OddsRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`GET /fights/{fight}/odds`: a what-if (`events`, then `hit`s, then `ticks` rounds) from the
    fight now or at event `at`; exact, or estimated from `samples` replays."""

    events: Annotated[list[dict[str, Any]], Meta(max_length=MAX_WHATIF)] = []
    hit: Annotated[list[Shorthand], Meta(max_length=MAX_WHATIF)] = []  # TARGET:DAMAGE[:ATTACKER]
    ticks: Annotated[int, Meta(ge=0, le=MAX_TICKS)] = 0
    character: Annotated[list[Shorthand], Meta(max_length=64)] = []  # default: everyone
    samples: Annotated[int, Meta(ge=1, le=2**53 - 1)] | None = None  # the work bound says more
    at: Annotated[int, Meta(ge=1, le=2**53 - 1)] | None = None


class BranchRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, rename={"as_": "as"}):
    """`POST /fights/{fight}/branch`: a new fight `as`, a copy of this one's log up to event `at`
    (default: all of it), then the what-if events `then`."""

    as_: FightId
    at: Annotated[int, Meta(ge=1, le=2**53 - 1)] | None = None
    then: Annotated[list[dict[str, Any]], Meta(max_length=MAX_WHATIF)] = []


class TokenRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`POST /fights/{fight}/tokens/{name}`: the role of the new token (a gm token may ask for
    viewer tokens only)."""

    role: Literal["viewer", "gm"] = "viewer"


class PlayersViewRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """`PUT /fights/{fight}/players-view`: what viewer tokens are shown of monsters' hit points."""

    monsters: Literal["hidden", "bands", "shown"]


class Health(msgspec.Struct, kw_only=True):
    status: str = "ok"


class Refusal(msgspec.Struct, kw_only=True):
    """One refused event (or one bad part of a request)."""

    error: str
    message: str
    index: int | None = None  # place in the batch
    event: str | None = None  # the event's id, or #N
    field: str | None = None  # a msgspec-style path: `$.damage`


class ErrorBody(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Every error response, an RFC 9457 problem (`application/problem+json`): `status`,
    `title` (the status's name) and `detail` (what went wrong, for a person), and besides them
    the fields clients of woundlog read: `error` (the kind: `ConflictError`, `BatchRefused`,
    ...), `message` (the same text as `detail`), the fight's `current_version` on a 409, the
    most samples an estimate may take (`most_samples`) on an odds question refused as too
    large, and for refused events each of them in `errors`."""

    type: str = "about:blank"  # the problem is what the status says; `error` names its kind
    title: str = ""
    status: int = 0
    detail: str = ""
    error: str
    message: str
    current_version: int | None = None  # 409: the fight's version now
    most_samples: int | None = None  # 422 of `GET /odds`: the most samples of this what-if
    errors: list[Refusal] = []


def refusal(error: WoundlogError) -> Refusal:
    return Refusal(
        error=type(error).__name__,
        message=error.message,
        index=error.index,
        event=error.event,
        field=error.field,
    )
