"""Codecs for events: JSON, MessagePack and JSON Lines; errors name line, event and field."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

import msgspec

from .errors import StructuralError
from .model import Event, EventBase

_json_decoder = msgspec.json.Decoder(Event)
_json_encoder = msgspec.json.Encoder()
_msgpack_decoder = msgspec.msgpack.Decoder(Event)
_msgpack_encoder = msgspec.msgpack.Encoder()


class _IdOnly(msgspec.Struct):
    id: str | None = None


_id_decoder = msgspec.json.Decoder(_IdOnly)
_AT_PATH = re.compile(r"^(?P<message>.*?)(?: - at `(?P<path>[^`]*)`)?$", re.DOTALL)
_NAMED_FIELD = re.compile(r"(?:missing required|unknown) field `(?P<name>[^`]+)`")


def event_ref(event: EventBase, seq: int) -> str:
    """The name of the event at position `seq`: its own id, else `#seq`."""
    return event.id if event.id is not None else f"#{seq}"


def _structural(exc: msgspec.MsgspecError, raw: bytes | None, line: int | None) -> StructuralError:
    match = _AT_PATH.match(str(exc))
    assert match is not None
    event: str | None = None
    if raw is not None:
        try:
            event = _id_decoder.decode(raw).id
        except msgspec.MsgspecError:
            event = None
    message, path = match["message"], match["path"]
    named = _NAMED_FIELD.search(message)
    if named is not None:  # msgspec points at the object; the field itself is more useful
        path = f"{path or '$'}.{named['name']}"
    if isinstance(exc, msgspec.DecodeError) and not isinstance(exc, msgspec.ValidationError):
        message = f"not a JSON event: {message}"
    return StructuralError(message, event=event, line=line, field=path)


def decode_json(data: bytes | str, *, line: int | None = None) -> Event:
    """Decode one JSON event; a StructuralError names the line, the event's id and the field."""
    try:
        return _json_decoder.decode(data)
    except msgspec.MsgspecError as exc:
        raw = data.encode() if isinstance(data, str) else data
        raise _structural(exc, raw, line) from None


def encode_json(event: EventBase) -> bytes:
    return _json_encoder.encode(event)


def decode_msgpack(data: bytes) -> Event:
    try:
        return _msgpack_decoder.decode(data)
    except msgspec.MsgspecError as exc:
        raise _structural(exc, None, None) from None


def encode_msgpack(event: EventBase) -> bytes:
    return _msgpack_encoder.encode(event)


def canonical(event: EventBase) -> bytes:
    """Bytes equal exactly when two events say the same thing (key order does not matter)."""
    return msgspec.json.encode(event, order="sorted")


def convert(obj: object, *, index: int | None = None) -> Event:
    """Validate an already-parsed object (a dict from another program) into an event."""
    try:
        event: Event = msgspec.convert(obj, Event)
        return event
    except msgspec.MsgspecError as exc:
        given_id = obj.get("id") if isinstance(obj, dict) else None
        err = _structural(exc, None, None)
        err.event = given_id if isinstance(given_id, str) else None
        err.index = index
        raise err from None


def iter_jsonl(lines: Iterable[bytes]) -> Iterator[tuple[int, Event]]:
    """Decode JSON Lines one at a time: (line number, event). Blank lines are skipped."""
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            yield number, decode_json(raw, line=number)


def read_jsonl(path: str | Path) -> Iterator[tuple[int, Event]]:
    """Stream the events of a `.jsonl` file; memory does not grow with the file."""
    with open(path, "rb") as f:
        yield from iter_jsonl(f)


def write_jsonl(out: IO[bytes], events: Iterable[EventBase]) -> None:
    for event in events:
        out.write(_json_encoder.encode(event))
        out.write(b"\n")
