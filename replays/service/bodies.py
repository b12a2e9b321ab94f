"""How a route reads its body: with JSON's own types, as woundlog reads a file (`strictly`),
refusing what the body's decoding lets through (`as_sent`, app.py's `before_request`)."""

from __future__ import annotations

from typing import TypeVar

import msgspec

from woundlog.events import UsageError

T = TypeVar("T")

BOM = b"\xef\xbb\xbf"


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
