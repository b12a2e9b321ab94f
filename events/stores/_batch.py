"""What every store decides the same way: which events of a batch to write, and what `#N` names.

Kept apart from the stores so the append rules of base.py are written once and a new store (the
PostgreSQL one) only has to say how it finds the events already stored under some ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ..codec import CAMPAIGN, FIGHT, Family, canonical, encode_json
from ..errors import ConflictError, StructuralError
from ..fight_ids import CAMPAIGN_PREFIX
from ..model import EventBase

StoredIds = Callable[[Collection[str]], Mapping[str, tuple[int, bytes]]]
"""Given ids, the ones already in the fight, each as (seq, canonical bytes of its event)."""


class Fresh(NamedTuple):
    """An event of the batch that is to be written, with the JSON the store keeps of it."""

    event: EventBase
    body: bytes


def family_of(stream: str) -> Family[Any, Any]:
    """The family of events a log holds, as its stream id says: a campaign's
    (`campaign~NAME`, fight_ids.campaign_stream) or a fight's."""
    return CAMPAIGN if stream.startswith(CAMPAIGN_PREFIX) else FIGHT


def nothing_stored(ids: Collection[str]) -> Mapping[str, tuple[int, bytes]]:
    """The StoredIds of a fight with no events yet."""
    return {}


_SEQ_REF = re.compile(r"#([1-9][0-9]*)")


def seq_of(ref: str) -> int | None:
    """N for a `#N` reference, None for an explicit id."""
    match = _SEQ_REF.fullmatch(ref)
    return int(match[1]) if match else None


def split_refs(refs: Iterable[str]) -> tuple[dict[int, str], set[str]]:
    """Sort `refs` into positions (seq -> the ref as written) and explicit ids.

    A malformed `#...` (say `#0`) can name no event, so it goes with the ids, where no stored id
    can match it (ids never start with `#`).
    """
    by_seq: dict[int, str] = {}
    ids: set[str] = set()
    for ref in refs:
        seq = seq_of(ref)
        if seq is None:
            ids.add(ref)
        else:
            by_seq[seq] = ref
    return by_seq, ids


def plan_append(
    fight: str,
    events: Sequence[EventBase],
    version: int,
    expected_version: int | None,
    stored_ids: StoredIds,
) -> list[Fresh]:
    """The events of the batch to write, in order; ConflictError if the batch must be refused,
    StructuralError if one of its events could not be read back as an event of the log's family
    (`family_of`: a fight event in a campaign's log, say).

    Call it inside the store's write lock, with the fight's current `version`, so that what it
    sees is still true when the returned events are written.
    """
    ids = {event.id for event in events if event.id is not None}
    stored = stored_ids(ids) if ids else {}
    in_batch: dict[str, tuple[int, bytes]] = {}
    family = family_of(fight)
    fresh: list[Fresh] = []
    for index, event in enumerate(events):
        body = _readable_json(event, index, family)
        if event.id is None:
            fresh.append(Fresh(event, body))
            continue
        content = canonical(event)
        if event.id in stored:
            seq, earlier = stored[event.id]
            already = f"event #{seq} of fight {fight!r}"
            _same_or_conflict(version, index, event.id, content, earlier, already)
        elif event.id in in_batch:
            first, earlier = in_batch[event.id]
            already = f"item {first} of the batch"
            _same_or_conflict(version, index, event.id, content, earlier, already)
        else:
            in_batch[event.id] = (index, content)
            fresh.append(Fresh(event, body))
    # A batch that is wholly already there is a retry of one that succeeded: its writer may hold a
    # version from before its own write, so the retry must not fail on it. An empty batch is no
    # retry of anything, so it still checks the version.
    if expected_version is not None and expected_version != version and (fresh or not events):
        raise ConflictError(
            f"fight {fight!r} is at version {version}, not the expected {expected_version}",
            current_version=version,
        )
    return fresh


def _readable_json(event: EventBase, index: int, family: Family[Any, Any]) -> bytes:
    """The event's JSON, once it is proven to decode back to an event of its `family`.

    A Struct built in Python skips the checks decoding makes (a negative damage, an id such as
    `#3`): stored as it is, it would make the whole fight unreadable.
    """
    body = encode_json(event)
    try:
        family.decode(body)
    except StructuralError as err:
        raise err.located(index=index) from None
    return body


def _same_or_conflict(
    version: int,
    index: int,
    event_id: str,
    content: bytes,
    earlier: bytes,
    already: str,
) -> None:
    """A reused id is fine for the same content (a retry) and a conflict for any other."""
    if content != earlier:
        raise ConflictError(
            f"id {event_id!r} is already {already}, with other content",
            current_version=version,
            event=event_id,
            index=index,
        )
