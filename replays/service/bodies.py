"""How a route reads its request: its body with JSON's own types, as woundlog reads a file
(`strictly`), one item or a list (`listed`), and before any handler, what the body's own
decoding lets through or words badly refused (`as_sent`, the app's `before_request`)."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from litestar import Request

from woundlog.events import StructuralError, UsageError, decode_document

T = TypeVar("T")

BOM = b"\xef\xbb\xbf"

EventsBody = dict[str, Any] | list[Any]
"""One event or a list of events: validated one by one (see schemas.py), so kept loose here."""


def strictly(body: bytes, kind: type[T] | msgspec.json.Decoder[T]) -> T:
    """The body as `kind` (a type, or the decoder of a union), with JSON's own types: Litestar
    converts a body leniently (a `"seed": "7"` would be taken as 7), woundlog takes numbers as
    numbers, as on every route."""
    return decoded(body, kind, "the body")


def decoded(raw: bytes, kind: type[T] | msgspec.json.Decoder[T], what: str) -> T:
    """`raw` JSON as `kind` (a type, or the decoder of a union), or a 422 naming `what` and
    where it is wrong."""
    try:
        if isinstance(kind, msgspec.json.Decoder):
            return kind.decode(raw)
        return msgspec.json.decode(raw, type=kind)
    except msgspec.ValidationError as error:
        raise UsageError(f"{what}: {error}") from None
    except msgspec.DecodeError as error:
        raise UsageError(f"{what} is not JSON: {error}") from None


def listed(body: object) -> list[object]:
    """A body of one item (an event, a record) or a list of them, as a list."""
    return body if isinstance(body, list) else [body]


async def as_sent(request: Request[Any, Any, Any]) -> None:
    """Before any handler reads its body (Litestar's `before_request`, after the guards): refuse
    what the body's own decoding lets through or words badly, as `woundlog` refuses it in a
    file: a key given twice (JSON keeps the last one silently), a byte order mark (which the
    decoder calls "invalid character (byte 0)"), JSON nested too deep. A 422 naming it."""
    body = await request.body()
    if not body.strip():  # an undo may send none
        return
    try:
        decode_document(body)
    except StructuralError as error:
        if error.field is None and not body.startswith(BOM):
            return  # not JSON at all: Litestar's own decoding answers it, 400
        raise
