"""Codecs and structural validation at the boundary (DESIGN.md sections 3 and 5)."""

from __future__ import annotations

import io
import json

import msgspec
import pytest
from hypothesis import given, settings

from woundlog.events import (
    EVENT_TYPES,
    Event,
    FightStarted,
    StructuralError,
    canonical,
    decode_json,
    decode_msgpack,
    encode_json,
    encode_msgpack,
    iter_jsonl,
    json_schema,
    write_jsonl,
)
from woundlog.events.model import SAFE_INT

from ..strategies import any_event as unbounded_event


def _seed_on_the_wire(event: Event) -> Event:
    # tests/strategies.py draws seeds from the whole int64 range, past the wire's 0..2**53-1
    if isinstance(event, FightStarted) and not 0 <= event.seed <= SAFE_INT:
        return msgspec.structs.replace(event, seed=event.seed % (SAFE_INT + 1))
    return event


any_event = unbounded_event.map(_seed_on_the_wire)


@settings(max_examples=300)
@given(any_event)
def test_every_event_round_trips_through_json(event: Event) -> None:
    assert decode_json(encode_json(event)) == event


@settings(max_examples=300)
@given(any_event)
def test_every_event_round_trips_through_messagepack(event: Event) -> None:
    assert decode_msgpack(encode_msgpack(event)) == event


@settings(max_examples=100)
@given(any_event)
def test_every_event_round_trips_through_json_lines(event: Event) -> None:
    out = io.BytesIO()
    write_jsonl(out, [event, event])
    assert [e for _, e in iter_jsonl(out.getvalue().splitlines(keepends=True))] == [event, event]


def test_every_event_type_is_in_the_union_and_the_schema() -> None:
    schema = json.dumps(json_schema())
    for kind in EVENT_TYPES:
        assert f'"{kind.__struct_config__.tag}"' in schema


def test_defaults_are_left_out_when_encoding() -> None:
    event = decode_json(b'{"type": "hit", "target": "grim", "damage": 1}')
    assert encode_json(event) == b'{"type":"hit","target":"grim","damage":1}'


def test_canonical_form_ignores_key_order() -> None:
    a = decode_json(b'{"type":"hit","target":"g","damage":1,"rolls":{"a":[1],"b":[2]}}')
    b = decode_json(b'{"damage":1,"rolls":{"b":[2],"a":[1]},"target":"g","type":"hit"}')
    assert canonical(a) == canonical(b)


@pytest.mark.parametrize(
    ("line", "field", "words"),
    [
        (b'{"type":"hit","id":"h1","target":"grim","damage":-1}', "$.damage", ">= 0"),
        (b'{"type":"hit","target":"grim"}', "$.damage", "missing"),
        (b'{"type":"hit","target":"grim","damage":"2"}', "$.damage", "int"),
        (b'{"type":"punch","target":"grim"}', "$.type", "punch"),
        (b'{"type":"hit","target":"grim","damage":1,"dmg":2}', "$.dmg", "unknown"),
        (
            b'{"type":"hit","target":"grim","damage":1,"rolls":{"injury":[1001]}}',
            "$.rolls[...][0]",
            "<= 1000",
        ),
        (b'{"type":"hit","id":"#3","target":"grim","damage":1}', "$.id", "#"),
        (b'{"type":"retract","event":"#0"}', "$.event", ""),
        (b'{"type":"turn_ended","side":"a","character":"b"}', None, "not both"),
        (b'{"type":"fight_started","ruleset":"mordheim","at":"yesterday"}', "$.at", "datetime"),
        (
            b'{"type":"amend","event":"#2","replacement":{"type":"retract","event":"#1"}}',
            "$.replacement.type",
            "retract",
        ),
    ],
)
def test_structural_errors_name_the_line_the_field_and_what_was_expected(
    line: bytes, field: str | None, words: str
) -> None:
    with pytest.raises(StructuralError) as err:
        decode_json(line, line=7)
    assert err.value.line == 7
    if field is not None:
        assert err.value.field == field
    assert words in err.value.message
    assert "line 7" in str(err.value)


def test_a_structural_error_names_the_event_id_when_it_has_one() -> None:
    with pytest.raises(StructuralError) as err:
        decode_json(b'{"type":"hit","id":"h1","target":"grim","damage":-1}')
    assert err.value.event == "h1"


def test_text_that_is_not_json_is_refused_as_such() -> None:
    with pytest.raises(StructuralError, match="not a JSON event"):
        decode_json(b"hit grim 2", line=3)


def test_the_schema_is_a_json_schema_of_the_tagged_union() -> None:
    schema = json_schema()
    assert schema["$schema"].startswith("https://json-schema.org/")
    msgspec.json.encode(schema)


# --- examples the mutation run found missing ---------------------------------------------------


def test_an_event_is_named_by_its_id_else_by_its_position() -> None:
    from woundlog.events import Hit, event_ref

    assert event_ref(Hit(id="h1", target="grim", damage=1), 3) == "h1"
    assert event_ref(Hit(target="grim", damage=1), 3) == "#3"


def test_a_messagepack_event_with_a_bad_id_is_refused_naming_the_field() -> None:
    from woundlog.events import Hit

    with pytest.raises(StructuralError, match="#") as err:
        decode_msgpack(encode_msgpack(Hit(id="#3", target="grim", damage=1)))
    assert err.value.field == "$.id"
    assert err.value.message == decode_error(b'{"type":"hit","id":"#3","target":"g","damage":1}')


def test_a_converted_event_with_a_bad_id_is_refused_naming_the_field_and_index() -> None:
    from woundlog.events import convert

    with pytest.raises(StructuralError) as err:
        convert({"type": "hit", "id": "#3", "target": "grim", "damage": 1}, index=4)
    assert (err.value.field, err.value.index, err.value.event) == ("$.id", 4, "#3")
    assert err.value.message == decode_error(b'{"type":"hit","id":"#3","target":"g","damage":1}')


def decode_error(line: bytes) -> str:
    with pytest.raises(StructuralError) as err:
        decode_json(line)
    return err.value.message


# -- one decoder per family: a fight's events and a campaign's ------------------------------------


def test_a_fight_and_a_campaign_each_decode_to_their_own_family() -> None:
    from woundlog.events import Retract, decode_campaign_json
    from woundlog.events.campaign import CampaignStarted

    assert decode_campaign_json(b'{"type":"campaign_started","ruleset":"dnd5e"}') == (
        CampaignStarted(ruleset="dnd5e")
    )
    assert decode_campaign_json(b'{"type":"retract","event":"#2"}') == Retract(event="#2")
    assert decode_json(b'{"type":"retract","event":"#2"}') == Retract(event="#2")


@pytest.mark.parametrize(
    ("line", "family", "told"),
    [
        (b'{"type":"campaign_started","ruleset":"dnd5e"}', "fight", "with `woundlog campaign`"),
        (b'{"type":"hit","target":"grim","damage":1}', "campaign", "record it in the fight"),
        (b'{"type":"amend","event":"#2","replacement":{"type":"fight_ended"}}', "campaign",
         "a fight's event"),
    ],
)  # fmt: skip
def test_an_event_of_the_other_family_is_refused_saying_what_it_is(
    line: bytes, family: str, told: str
) -> None:
    from woundlog.events import decode_campaign_json

    decode = decode_json if family == "fight" else decode_campaign_json
    with pytest.raises(StructuralError, match="event, not a") as caught:
        decode(line, line=7)
    assert told in caught.value.message
    assert (caught.value.line, caught.value.field) == (7, "$.type")


def test_an_unknown_type_is_still_refused_as_msgspec_words_it() -> None:
    with pytest.raises(StructuralError, match="Invalid value 'bite'") as caught:
        decode_json(b'{"type":"bite"}')
    assert caught.value.field == "$.type"
