"""woundlog.events: what happened. Event vocabulary, codecs, schema, stores; no game rules.

The public names are imported on first use, not with the package, as replays/__init__.py does,
so that start-up stays quick: a module that needs the errors alone (`events.errors`,
`events.fight_ids`, the importers' registry) imports this package first, and should not load
msgspec and every event Struct with it.
"""

from __future__ import annotations

from .lazy import lazy_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at every start
if TYPE_CHECKING:
    from .codec import (
        canonical,
        convert,
        decode_campaign_json,
        decode_document,
        decode_json,
        decode_msgpack,
        encode_json,
        encode_msgpack,
        event_ref,
        iter_jsonl,
        read_jsonl,
        write_jsonl,
    )
    from .errors import (
        BatchRefused,
        ConflictError,
        RefusedError,
        RuleError,
        StructuralError,
        UsageError,
        WoundlogError,
    )
    from .model import (
        EVENT_TYPES,
        FACTS,
        WIRE_VERSION,
        Amend,
        CharacterJoined,
        Check,
        Choice,
        Event,
        EventBase,
        FightEnded,
        FightStarted,
        GameEvent,
        Heal,
        Hit,
        Retract,
        TurnEnded,
        TurnStarted,
        UndoEvent,
        type_name,
    )
    from .schema import json_schema

_HOME = {  # each public name, and the module of this package that defines it
    "canonical": "codec",
    "convert": "codec",
    "decode_campaign_json": "codec",
    "decode_document": "codec",
    "decode_json": "codec",
    "decode_msgpack": "codec",
    "encode_json": "codec",
    "encode_msgpack": "codec",
    "event_ref": "codec",
    "iter_jsonl": "codec",
    "read_jsonl": "codec",
    "write_jsonl": "codec",
    "BatchRefused": "errors",
    "ConflictError": "errors",
    "RefusedError": "errors",
    "RuleError": "errors",
    "StructuralError": "errors",
    "UsageError": "errors",
    "WoundlogError": "errors",
    "EVENT_TYPES": "model",
    "FACTS": "model",
    "WIRE_VERSION": "model",
    "Amend": "model",
    "CharacterJoined": "model",
    "Check": "model",
    "Choice": "model",
    "Event": "model",
    "EventBase": "model",
    "FightEnded": "model",
    "FightStarted": "model",
    "GameEvent": "model",
    "Heal": "model",
    "Hit": "model",
    "Retract": "model",
    "TurnEnded": "model",
    "TurnStarted": "model",
    "UndoEvent": "model",
    "type_name": "model",
    "json_schema": "schema",
}


__getattr__, __dir__ = lazy_names(__name__, globals(), _HOME)


__all__ = [
    "EVENT_TYPES",
    "FACTS",
    "WIRE_VERSION",
    "Amend",
    "BatchRefused",
    "CharacterJoined",
    "Check",
    "Choice",
    "ConflictError",
    "Event",
    "EventBase",
    "FightEnded",
    "FightStarted",
    "GameEvent",
    "Heal",
    "Hit",
    "RefusedError",
    "Retract",
    "RuleError",
    "StructuralError",
    "TurnEnded",
    "TurnStarted",
    "UndoEvent",
    "UsageError",
    "WoundlogError",
    "canonical",
    "convert",
    "decode_campaign_json",
    "decode_document",
    "decode_json",
    "decode_msgpack",
    "encode_json",
    "encode_msgpack",
    "event_ref",
    "iter_jsonl",
    "json_schema",
    "read_jsonl",
    "type_name",
    "write_jsonl",
]
