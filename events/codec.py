"""Codecs for events: JSON, MessagePack and JSON Lines; errors name line, event and field."""

from __future__ import annotations

import datetime
import itertools
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Generic, NamedTuple, TypeVar

import msgspec

from . import bounded
from .errors import StructuralError
from .model import (
    CAMPAIGN_TYPES,
    EVENT_TYPES,
    KNOWN_IDS,
    Amend,
    CampaignEvent,
    Event,
    EventBase,
    Retract,
    UndoEvent,
    all_cleared,
    misnamed,
)

E = TypeVar("E", bound=EventBase)
U = TypeVar("U", bound=EventBase)

# A tagged union per message family, a decoder per union (msgspec's way): a fight's log and a
# campaign's each have their own, so each decodes to its own type, and an event of the other
# family is refused as any unknown `type` is, by the decoder.
_json_decoder = msgspec.json.Decoder(Event)
_campaign_decoder = msgspec.json.Decoder(CampaignEvent)
_json_encoder = msgspec.json.Encoder()
_encode = _json_encoder.encode  # bound once: decode_json calls it for every line
_msgpack_decoder = msgspec.msgpack.Decoder(Event)
_msgpack_encoder = msgspec.msgpack.Encoder()


class _IdOnly(msgspec.Struct):
    id: str | None = None


class _TypeOnly(msgspec.Struct):
    type: str | None = None


_id_decoder = msgspec.json.Decoder(_IdOnly)
_type_decoder = msgspec.json.Decoder(_TypeOnly)
# Patterns for errors only, compiled by `re` when first used (and kept in its cache): a start
# that reads no bad event compiles none of them.
_AT_PATH = r"(?s)^(?P<message>.*?)(?: - at (?P<key>`key` in )?`(?P<path>[^`]*)`)?$"
_BOM = b"\xef\xbb\xbf"
_NAMED_FIELD = r"(?:missing required|unknown) field `(?P<name>[^`]+)`"


def event_ref(event: EventBase, seq: int) -> str:
    """The name of the event at position `seq`: its own id, else `#seq`."""
    return event.id if event.id is not None else f"#{seq}"


def _structural(exc: msgspec.MsgspecError, raw: bytes | None, line: int | None) -> StructuralError:
    match = re.match(_AT_PATH, str(exc))
    assert match is not None
    event: str | None = None
    if raw is not None:
        try:
            event = _id_decoder.decode(raw).id
        except (msgspec.MsgspecError, RecursionError):  # the id is a help, not a must
            event = None
    message, path = match["message"], match["path"]
    if match["key"]:  # msgspec refused a key of the object at `path`
        message = f"{message} (a key)"
    named = re.search(_NAMED_FIELD, message)
    if named is not None:  # msgspec points at the object; the field itself is more useful
        path = f"{path or '$'}.{named['name']}"
    if isinstance(exc, msgspec.DecodeError) and not isinstance(exc, msgspec.ValidationError):
        message = f"not a JSON event: {message}"
    return StructuralError(message, event=event, line=line, field=path)


class Family(Generic[E, U]):
    """One message family: the decoder of its tagged union; the decoder of its undo events alone,
    for the rows a store picks out as undo events; and what an event of another family (whose
    `type` the family's decoder refuses, as it refuses any it does not know) is told."""

    __slots__ = ("decoder", "elsewhere", "foreign", "undo_decoder")

    def __init__(
        self,
        decoder: msgspec.json.Decoder[E],
        undo_decoder: msgspec.json.Decoder[U],
        foreign: Iterable[type[EventBase]],
        elsewhere: str,
    ) -> None:
        self.decoder = decoder
        self.undo_decoder = undo_decoder
        self.foreign = frozenset(str(kind.__struct_config__.tag) for kind in foreign)
        self.elsewhere = elsewhere

    def decode(self, data: bytes | str, *, line: int | None = None) -> E:
        """One JSON event of this family, checked as `decode_json` checks a fight's."""
        return _decode(self.decoder, self, data, line)

    def decode_undo(self, data: bytes | str, *, line: int | None = None) -> U:
        """One JSON undo event of this family, checked as `decode`."""
        return _decode(self.undo_decoder, self, data, line)


FIGHT: Family[Event, UndoEvent] = Family(
    _json_decoder,
    msgspec.json.Decoder(UndoEvent),
    CAMPAIGN_TYPES,
    "a campaign's event, not a fight's: record it with `woundlog campaign`",
)
"""A fight's log: `Event`; its undo events `retract` and `amend`."""
CAMPAIGN: Family[CampaignEvent, Retract] = Family(
    _campaign_decoder,
    msgspec.json.Decoder(Retract),
    (kind for kind in EVENT_TYPES if kind is not Retract),  # `retract` is both families'
    "a fight's event, not a campaign's: record it in the fight, then `fight_played`",
)
"""A campaign's log: `CampaignEvent` (events/campaign.py); its undo event `retract`."""


def _of_the_other_family(
    error: StructuralError, family: Family[Any, Any], raw: bytes
) -> StructuralError:
    """`error`, saying so when the event is one of the other family's (whose `type` the
    family's decoder refuses as it refuses any it does not know)."""
    if error.field != "$.type":
        return error
    try:
        given = _type_decoder.decode(raw).type
    except (msgspec.MsgspecError, RecursionError):
        return error
    if given not in family.foreign:
        return error
    return StructuralError(
        f"`{given}` is {family.elsewhere}", event=error.event, line=error.line, field=error.field
    )


def decode_json(data: bytes | str, *, line: int | None = None) -> Event:
    """Decode one JSON event of a fight; a StructuralError names the line, the event's id and
    the field.

    Refused besides what the types refuse: a key given twice in one object (JSON leaves it
    open; msgspec would keep the last), nesting too deep to read, a byte order mark."""
    return _decode(_json_decoder, FIGHT, data, line)


def decode_campaign_json(data: bytes | str, *, line: int | None = None) -> CampaignEvent:
    """Decode one JSON event of a campaign, checked as `decode_json` checks a fight's."""
    return _decode(_campaign_decoder, CAMPAIGN, data, line)


def _decode(
    decoder: msgspec.json.Decoder[E], family: Family[Any, Any], data: bytes | str, line: int | None
) -> E:
    raw = data.encode() if isinstance(data, str) else data
    try:
        event = decoder.decode(raw)
    except msgspec.MsgspecError as exc:
        if raw.startswith(_BOM):
            raise StructuralError(
                "starts with a UTF-8 byte order mark (BOM): save the file as UTF-8 without one",
                line=line,
            ) from None
        raise _of_the_other_family(_structural(exc, raw, line), family, raw) from None
    except RecursionError:
        raise StructuralError(
            "nested too deeply to read (an event nests a few levels, a table at most "
            "16): not a woundlog event",
            line=line,
            field=_deep_field(raw),
        ) from None
    bad = misnamed(event)
    if bad is not None:
        raise StructuralError(bad[1], event=event.id, line=line, field=bad[0])
    # A line as woundlog writes it is the event's own encoding (and a newline), which holds each
    # key once: one encode and a compare clear it, in C. Other lines count their colons.
    encoded = _encode(event)
    if (len(raw) - len(encoded) > 2 or not raw.startswith(encoded)) and not _colons_clear(
        raw, event, encoded
    ):
        _refuse_duplicate_keys(raw, event, line)
    return event


def _colons_clear(raw: bytes, event: EventBase, encoded: bytes) -> bool:
    """True when no object of `raw` can repeat a key, as the colons tell (cheap, in C).

    Every key is followed by one colon, so `raw` holds at least one colon per key plus those in
    its strings. The event's encoding holds each distinct key once (fewer if a default was
    spelled out) and the same strings, so a repeated key leaves `raw` with more colons than the
    encoding. Two things can add colons to the encoding: an escape in `raw` (`\\u003a`: a
    backslash sends the line to the full check) and a time offset written `+0100` (one colon
    per non-UTC `at`, allowed for)."""
    if raw.find(b"\\") >= 0:
        return False
    slack = _offset_colons(event.at)
    if type(event) is Amend:
        slack += _offset_colons(event.replacement.at)
    return raw.count(b":") + slack <= encoded.count(b":")


def _offset_colons(at: datetime.datetime | None) -> int:
    return 0 if at is None or at.utcoffset() == datetime.timedelta(0) else 1


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its key-value pairs in order, repeats kept."""


def _refuse_duplicate_keys(raw: bytes, event: EventBase | None, line: int | None) -> None:
    """Parse `raw` again keeping every key (slow; only for lines the cheap test cannot clear)
    and refuse the first key an object repeats, naming where it is."""
    import json  # here: msgspec reads every other line, and `json` loads three modules

    try:
        parsed = json.loads(raw, object_pairs_hook=_Pairs)
    except RecursionError:
        raise StructuralError("nested too deeply to read", line=line) from None
    pending: list[tuple[object, str]] = [(parsed, "$")]
    while pending:
        value, path = pending.pop()
        if isinstance(value, _Pairs):
            seen: set[str] = set()
            for key, item in value:
                if key in seen:
                    raise StructuralError(
                        f"key `{key}` is given twice in one object (JSON does not say which "
                        "counts): give it once",
                        event=None if event is None else event.id,
                        line=line,
                        field=f"{path}.{key}",
                    )
                seen.add(key)
                pending.append((item, f"{path}.{key}"))
        elif isinstance(value, list):
            pending.extend((item, f"{path}[{i}]") for i, item in enumerate(value))


_TOKENS = rb'"(?:[^"\\]|\\.)*"|[\[\]{}]'  # compiled on first use, as _AT_PATH
_READABLE_DEPTH = 64
"""How deep the error for a too deeply nested line looks for the field to name."""


def _deep_field(raw: bytes) -> str | None:
    """The field where `raw` nests past what an event needs, for an error that names it;
    found by scanning brackets and strings, without recursion (on the error path only)."""
    keys: list[str | None] = []  # per open bracket: the key it is the value of (objects)
    key: str | None = None
    for token in re.finditer(_TOKENS, raw):
        text = token[0]
        if text.startswith(b'"'):
            if raw[token.end() :].lstrip()[:1] == b":":
                key = text[1:-1].decode(errors="replace")
            continue
        if text in (b"[", b"{"):
            keys.append(key)
            key = None
            if len(keys) > _READABLE_DEPTH:  # name the field down to where arrays begin
                named = keys[1 : keys.index(None, 1) if None in keys[1:] else None]
                return "".join(["$", *(f".{k}" for k in named)])
        elif keys:
            keys.pop()
    return None


def decode_document(data: bytes | str, *, line: int | None = None) -> Any:
    """Decode JSON that is not an event yet (a request body, another program's records) into
    plain values, refusing as an event is refused what no schema catches later: nesting too
    deep to read, a key given twice, a byte order mark. Errors are StructuralErrors."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        if raw.startswith(_BOM):
            raise StructuralError(
                "starts with a UTF-8 byte order mark (BOM): save the file as UTF-8 without one",
                line=line,
            ) from None
        raise StructuralError(f"not JSON: {exc}", line=line) from None
    except RecursionError:
        raise StructuralError(
            "nested too deeply to read", line=line, field=_deep_field(raw)
        ) from None
    if raw.find(b"\\") >= 0 or raw.count(b":") > msgspec.json.encode(value).count(b":"):
        _refuse_duplicate_keys(raw, None, line)  # the colons cannot clear it: see _colons_clear
    return value


def encode_json(event: EventBase) -> bytes:
    return _json_encoder.encode(event)


def decode_msgpack(data: bytes) -> Event:
    try:
        event: Event = _msgpack_decoder.decode(data)
    except msgspec.MsgspecError as exc:
        raise _structural(exc, None, None) from None
    except RecursionError:
        raise StructuralError("nested too deeply to read: not a woundlog event") from None
    bad = misnamed(event)
    if bad is not None:
        raise StructuralError(bad[1], field=bad[0])
    return event


def encode_msgpack(event: EventBase) -> bytes:
    return _msgpack_encoder.encode(event)


def canonical(event: EventBase) -> bytes:
    """Bytes equal exactly when two events say the same thing (key order does not matter)."""
    return msgspec.json.encode(event, order="sorted")


def convert(obj: object, *, index: int | None = None) -> Event:
    """Validate an already-parsed object (a dict from another program) into an event."""
    try:
        event: Event = msgspec.convert(obj, Event)
    except msgspec.MsgspecError as exc:
        given_id = obj.get("id") if isinstance(obj, dict) else None
        err = _structural(exc, None, None)
        err.event = given_id if isinstance(given_id, str) else None
        err.index = index
        raise err from None
    bad = misnamed(event)
    if bad is not None:
        raise StructuralError(bad[1], event=event.id, field=bad[0], index=index)
    return event


BLOCK = 1 << 12
"""Bytes of JSON Lines decoded in one call: some sixty events of a fight (a block ends at the
end of a line, so it may be one line longer). Bounded, so memory stays flat however long the
file; small, because a block's events live together, and a few hundred young objects at once
set off the garbage collector, which then walks them all."""


def iter_jsonl(lines: Iterable[bytes], *, start: int = 1) -> Iterator[tuple[int, Event]]:
    """Decode JSON Lines, each as a binary file gives it (with its newline): (line number,
    event). Blank lines are skipped.

    Each line is checked exactly as `decode_json` checks it, and a line it refuses is refused
    by `decode_json` itself, with its message; lines are decoded in blocks (`_decoded`), so
    the plain lines of a replay take a few calls a block, not a few a line."""
    number = start
    for block in _line_blocks(lines):
        text = _as_text(block)
        yield from _one_by_one(block, number) if text is None else _decoded(text, number).events
        number += len(block)


def read_jsonl(path: str | Path) -> Iterator[tuple[int, Event]]:
    """Stream the events of a `.jsonl` file, as `iter_jsonl` decodes them; memory does not
    grow with the file."""
    for block in read_jsonl_blocks(path):
        yield from block


def read_jsonl_blocks(path: str | Path) -> Iterator[Iterator[tuple[int, Event]]]:
    """`read_jsonl` a block of lines at a time: each block's (line number, event), decoded
    and checked as `read_jsonl` does, for a reader that loops over a block's events itself
    rather than through one more generator an event. A block's lines are refused only as its
    events are taken (a reader that stops early refuses no line past where it stops)."""
    for block in read_jsonl_decoded(path):
        yield block.events


class Decoded(NamedTuple):
    """A block of lines, decoded (`_decoded`): how many lines it holds, and its events as
    (line number, event) each, refused as they are taken. `plain`, when each line of the block
    is its event's own encoding, its ids cleared, is the list of those events, one a line in
    order from the block's first line `start` (none refused); else None."""

    start: int
    lines: int
    plain: list[Event] | None
    events: Iterator[tuple[int, Event]]


def read_jsonl_decoded(path: str | Path) -> Iterator[Decoded]:
    """`read_jsonl_blocks`, each block as `Decoded`: a reader may take a plain block's events
    straight from its list (no tuple made an event) and work a line out from its place."""
    with open(path, "rb") as f:
        number = 1
        for text in bounded.blocks(f, path, BLOCK):
            block = _decoded(text, number)
            yield block
            number += block.lines


def _line_blocks(lines: Iterable[bytes]) -> Iterator[list[bytes]]:
    """`lines` in lists of about BLOCK bytes (the last may be shorter)."""
    block: list[bytes] = []
    size = 0
    for raw in lines:
        block.append(raw)
        size += len(raw)
        if size >= BLOCK:
            yield block
            block, size = [], 0
    if block:
        yield block


_NEWLINES = itertools.repeat(b"\n")


def _as_text(block: list[bytes]) -> bytes | None:
    """`block` joined, when splitting that at newlines gives `block` back, as a file's lines:
    each line but the last ends with its newline (so holds one at least) and there are no more
    newlines than that; else None (a line of str, or with a newline inside, or an empty last)."""
    last = block[-1]
    try:
        if not last or not all(map(bytes.endswith, block[:-1], _NEWLINES)):
            return None
        text = b"".join(block)
    except TypeError:  # a line of str, or of another type that is not bytes
        return None
    return text if text.count(b"\n") == len(block) - 1 + last.endswith(b"\n") else None


_block_decoder = msgspec.json.Decoder(list[Event])


def _decoded(text: bytes, start: int) -> Decoded:
    """The number of lines of `text` (split at newlines; the last may lack its newline), and
    what `_one_by_one` yields or raises for them, found with a few calls for all of them
    (`Decoded`, its `plain` list when the fast way below clears the whole block).

    The lines, joined by commas, are decoded as one array in one call, and each event is
    encoded again. When the encodings, joined by newlines, are `text` itself (and every id is
    one cleared by its pattern's quick test), the events are yielded as they are: an encoding
    holds each key once, no escape (an id spelled with `\\u`), no BOM and no newline, so each
    line is exactly its event's own encoding, which `_one_by_one` clears without `decode_json`
    too. Else each line is compared with its event's encoding on its own, and a line that
    differs, or whose ids are not cleared, takes `_one_by_one`, and so `decode_json`'s full check. A
    block that does not decode as an array of as many events as lines (a line msgspec refuses,
    a blank line, a line of two events) takes `_one_by_one` whole. So every event, line
    number, refusal and message is the one-line path's own."""
    body = text[:-1] if text.endswith(b"\n") else text
    try:
        events: list[Event] = _block_decoder.decode(b"[%b]" % body.replace(b"\n", b","))
    except (msgspec.MsgspecError, RecursionError):
        events = []
    encoded = list(map(_encode, events))
    if (
        events
        and b"\n".join(encoded) == body
        and all_cleared(events)  # (no events, cleared all the same: a blank line's block)
    ):
        return Decoded(start, len(events), events, zip(itertools.count(start), events))
    lines = body.split(b"\n")
    ends = [b"\n"] * (len(lines) - 1) + [text[len(body) :]]  # each line's newline, if it has one
    if len(events) != len(lines):
        return Decoded(start, len(lines), None, _one_by_one(map(bytes.__add__, lines, ends), start))
    each = _each_line(zip(itertools.count(start), lines, events, encoded, ends))
    return Decoded(start, len(lines), None, each)


def _each_line(
    lines: Iterable[tuple[int, bytes, Event, bytes, bytes]],
) -> Iterator[tuple[int, Event]]:
    """(number, line, its event, the event's encoding, its newline) each: a line equal to the
    encoding, with ids cleared, is its event; every other line goes to `_one_by_one`."""
    seen = KNOWN_IDS
    for number, line, event, own, end in lines:
        if line == own and seen[type(event)](event):
            yield number, event
        else:
            yield from _one_by_one((line + end,), number)


def _one_by_one(lines: Iterable[bytes], start: int) -> Iterator[tuple[int, Event]]:
    """Decode JSON Lines one at a time. A plain line (one that decodes, whose ids their quick
    test clears, and that is its event's own encoding, as woundlog writes it) is cleared here
    without a call to `decode_json`; every other line is decoded by it."""
    decode, encode, seen = _json_decoder.decode, _encode, KNOWN_IDS
    for number, raw in enumerate(lines, start=start):
        try:
            event: Event = decode(raw)
        except (msgspec.MsgspecError, RecursionError):
            if raw.strip():
                yield number, decode_json(raw, line=number)  # raises, saying why
            continue
        if seen[type(event)](event):
            encoded = encode(event)
            if len(raw) - len(encoded) <= 2 and raw.startswith(encoded):
                yield number, event  # the rest of the line is its newline: msgspec took it
                continue
        yield number, decode_json(raw, line=number)


def write_jsonl(out: IO[bytes], events: Iterable[EventBase]) -> None:
    for event in events:
        out.write(_json_encoder.encode(event))
        out.write(b"\n")
