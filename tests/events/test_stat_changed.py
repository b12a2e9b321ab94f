"""`stat_changed` on the wire: its fields, bounds and patterns, its JSON Schema, and its round
trip through every codec."""

from __future__ import annotations

import json

import msgspec
import pytest

from woundlog.events import (
    StatChanged,
    StructuralError,
    decode_json,
    decode_msgpack,
    encode_json,
    encode_msgpack,
    json_schema,
)
from woundlog.events.model import MAGNITUDE, misnamed, unprintable

AID = (
    b'{"type":"stat_changed","id":"aid-1","character":"mira","stat":"hp","value":25,"reason":"Aid"}'
)


def test_a_stat_change_decodes_with_its_fields_and_encodes_back_as_it_was() -> None:
    event = decode_json(AID)
    assert event == StatChanged(id="aid-1", character="mira", stat="hp", value=25, reason="Aid")
    assert json.loads(encode_json(event)) == json.loads(AID)
    assert decode_json(encode_json(event)) == event
    assert decode_msgpack(encode_msgpack(event)) == event


def test_a_stat_change_without_a_reason_leaves_it_out() -> None:
    event = StatChanged(character="mira", stat="hp", value=13)
    assert json.loads(encode_json(event)) == {
        "type": "stat_changed",
        "character": "mira",
        "stat": "hp",
        "value": 13,
    }


def test_the_schema_documents_the_stat_change_and_its_bounds() -> None:
    schema = json_schema()
    defined = schema["$defs"]["StatChanged"]
    assert defined["required"] == ["type", "character", "stat", "value"]
    assert defined["properties"]["type"] == {"enum": ["stat_changed"]}
    value = defined["properties"]["value"]
    assert (value["minimum"], value["maximum"]) == (-MAGNITUDE, MAGNITUDE)
    assert defined["properties"]["character"]["pattern"] == "^[^\\s]+$"
    assert defined["properties"]["stat"]["minLength"] == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"value": MAGNITUDE + 1}, "$.value"),
        ({"value": "25"}, "$.value"),
        ({"stat": ""}, "$.stat"),
        ({"stat": "h" * 201}, "$.stat"),
        ({"reason": "r" * 2001}, "$.reason"),
        ({"delta": 5}, "$.delta"),
    ],
)
def test_a_stat_change_past_its_bounds_is_refused_naming_the_field(
    change: dict[str, object], field: str
) -> None:
    raw = {**json.loads(AID), **change}
    with pytest.raises(StructuralError) as refused:
        decode_json(json.dumps(raw))
    assert refused.value.field == field


def test_a_stat_change_needs_its_character_stat_and_value() -> None:
    for missing in ("character", "stat", "value"):
        raw = {k: v for k, v in json.loads(AID).items() if k != missing}
        with pytest.raises(StructuralError) as refused:
            decode_json(json.dumps(raw))
        assert refused.value.field == f"$.{missing}"


def test_a_character_id_with_a_space_is_refused_naming_the_field() -> None:
    with pytest.raises(StructuralError) as refused:
        decode_json(AID.replace(b'"mira"', b'"mi ra"'))
    assert refused.value.field == "$.character"
    assert misnamed(StatChanged(character="mira", stat="hp", value=1)) is None


def test_a_stat_or_reason_holding_a_control_character_is_unprintable() -> None:
    for field in ("stat", "reason", "character"):
        event = msgspec.structs.replace(decode_json(AID), **{field: "a\x1b[2Jb"})
        bad = unprintable(event)
        assert bad is not None and bad[0] == f"$.{field}"
    assert unprintable(decode_json(AID)) is None
