"""What a client can send is bounded (issue 11): every integer, string and collection on the wire
has a limit a person would accept, inside what JavaScript represents exactly, documented in the
JSON Schema; nesting too deep, a key given twice and a byte order mark are structural errors that
name the field, never a RecursionError or "the last one wins"."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.events import (
    Event,
    FightStarted,
    Hit,
    StructuralError,
    canonical,
    convert,
    decode_json,
    decode_msgpack,
    encode_json,
    json_schema,
    read_jsonl,
)
from woundlog.events.codec import decode_document
from woundlog.events.model import SAFE_INT

from ..strategies import any_event

HIT = {"type": "hit", "target": "grim", "damage": 1}
HEAL = {"type": "heal", "target": "grim", "amount": 1}
START = {"type": "fight_started", "ruleset": "mordheim"}
JOIN = {"type": "character_joined", "character": "grim"}
TICK = {"type": "turn_started"}


def line(*parts: dict[str, Any], **fields: Any) -> bytes:
    """One JSON event: the fields of `parts` then `fields`."""
    merged: dict[str, Any] = {}
    for part in parts:
        merged.update(part)
    return json.dumps({**merged, **fields}).encode()


def refused(raw: bytes) -> StructuralError:
    with pytest.raises(StructuralError) as caught:
        decode_json(raw, line=4)
    assert caught.value.line == 4
    return caught.value


# --- integers -----------------------------------------------------------------------------------

TOO_BIG = [
    (line(HIT, damage=1_000_001), "$.damage", "<= 1000000"),
    (line(HIT, damage=10**12), "$.damage", "<= 1000000"),
    (line(HIT, damage=2**70), "$.damage", "<= 1000000"),
    (line(HEAL, amount=1_000_001), "$.amount", "<= 1000000"),
    (line(JOIN, stats={"wounds": 1_000_001}), "$.stats[...]", "<= 1000000"),
    (line(JOIN, stats={"wounds": -1_000_001}), "$.stats[...]", ">= -1000000"),
    (line(TICK, round=1_000_001), "$.round", "<= 1000000"),
    (line(START, seed=2**53), "$.seed", f"<= {SAFE_INT}"),
    (line(START, seed=-1), "$.seed", ">= 0"),
    (line(START, options={"house": 10**7}), "$.options[...]", "<= 1000000"),
    (line(HIT, strike_chance=1001), "$.strike_chance", "<= 1000"),
    (line(HIT, hit_strength=1_000_001), "$.hit_strength", "<= 1000000"),
    (line(HEAL, items=1001), "$.items", "<= 1000"),
    (line(HEAL, check=-1_000_001), "$.check", ">= -1000000"),
    (line(HIT, rolls={"injury": [1001]}), "$.rolls[...][0]", "<= 1000"),
]


@pytest.mark.parametrize(("raw", "field", "bound"), TOO_BIG)
def test_an_integer_past_its_bound_is_refused_naming_the_field_and_the_bound(
    raw: bytes, field: str, bound: str
) -> None:
    error = refused(raw)
    assert (error.field, bound in error.message) == (field, True), error


@pytest.mark.parametrize(
    "raw",
    [
        line(HIT, damage=1_000_000, hit_strength=1_000_000, strike_chance=1000),
        line(HEAL, amount=1_000_000, items=1000, check=-1_000_000),
        line(JOIN, stats={"wounds": 1_000_000, "luck": -1_000_000}),
        line(START, seed=SAFE_INT, options={"house": -1_000_000}),
        line(TICK, round=1_000_000),
    ],
)
def test_integers_at_their_bounds_are_taken(raw: bytes) -> None:
    assert encode_json(decode_json(raw)) == encode_json(decode_json(encode_json(decode_json(raw))))


def test_the_seeds_woundlog_picks_are_inside_the_seed_bound() -> None:
    # the CLI and the service pick `secrets.randbelow(2**31)`
    assert isinstance(decode_json(line(START, seed=2**31 - 1)), FightStarted)


# --- strings and collections --------------------------------------------------------------------

LONG = [
    (line(JOIN, name="n" * 201), "$.name", "length <= 200"),
    (line(JOIN, side="s" * 201), "$.side", "length <= 200"),
    (line(JOIN, kind="k" * 201), "$.kind", "length <= 200"),
    (line(START, name="n" * 201), "$.name", "length <= 200"),
    (line(START, ruleset="r" * 201), "$.ruleset", "length <= 200"),
    (line(HIT, note="n" * 2001), "$.note", "length <= 2000"),
    (line(HIT, by="b" * 201), "$.by", "length <= 200"),
    (line(HIT, attacker="a" * 201), "$.attacker", "length <= 200"),
    (line(HEAL, means="m" * 201), "$.means", "length <= 200"),
    (line(HEAL, healer="h" * 201), "$.healer", "length <= 200"),
    (line(HEAL, wound="w" * 201), "$.wound", "length <= 200"),
    (line({"type": "retract", "event": "#1"}, reason="r" * 2001), "$.reason", "length <= 2000"),
    (line({"type": "choice", "character": "g"}, option="o" * 201), "$.option", "length <= 200"),
    (line(START, options={"house": "v" * 201}), "$.options[...]", "length <= 200"),
    (line(START, options={"h" * 201: True}), "$.options", "length <= 200 (a key)"),
    (line(JOIN, stats={"s" * 201: 1}), "$.stats", "length <= 200 (a key)"),
    (line(JOIN, gear={"hand": "i" * 201}), "$.gear[...]", "length <= 200"),
    (line(HIT, rolls={"p" * 402: [1]}), "$.rolls", "length <= 401 (a key)"),
]


@pytest.mark.parametrize(("raw", "field", "bound"), LONG)
def test_a_string_past_its_length_is_refused_naming_the_field_and_the_length(
    raw: bytes, field: str, bound: str
) -> None:
    error = refused(raw)
    assert (error.field, bound in error.message) == (field, True), error


MANY = [
    (line(HIT, rolls={f"p{i}": [1] for i in range(257)}), "$.rolls", "length <= 256"),
    (line(HIT, rolls={"injury": [1] * 1001}), "$.rolls[...]", "length <= 1000"),
    (line(JOIN, stats={f"s{i}": 1 for i in range(65)}), "$.stats", "length <= 64"),
    (line(JOIN, gear={f"g{i}": "x" for i in range(65)}), "$.gear", "length <= 64"),
    (line(START, options={f"o{i}": True for i in range(65)}), "$.options", "length <= 64"),
]


@pytest.mark.parametrize(("raw", "field", "bound"), MANY)
def test_a_collection_past_its_size_is_refused_naming_the_field_and_the_size(
    raw: bytes, field: str, bound: str
) -> None:
    error = refused(raw)
    assert (error.field, bound in error.message) == (field, True), error


def test_the_largest_collections_allowed_are_taken() -> None:
    rolls = {f"p{i}": [1] * 1000 for i in range(3)} | {f"q{i}": [1] for i in range(253)}
    assert len(decode_json(line(HIT, rolls=rolls)).rolls) == 256
    stats = {f"s{i}": 1 for i in range(64)}
    assert len(decode_json(line(JOIN, stats=stats, gear={k: "x" for k in stats})).stats) == 64


# --- tables -------------------------------------------------------------------------------------


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


TABLES = [
    ({"x": nested(17)}, "$.tables.x" + "[0]" * 16, "deeper than 16 levels"),
    ({"x": {"rows": [{"a": nested(15)}]}}, "$.tables.x.rows[0].a" + "[0]" * 13, "deeper than 16"),
    ({"x": list(range(10_001))}, "$.tables", "more than 10000 values"),
    ({"x": [{"y": list(range(100))} for _ in range(100)]}, "$.tables", "more than 10000"),
    ({"x": ["t" * 2001]}, "$.tables.x[0]", "longer than 2000 characters"),
    ({"x": {"k" * 201: 1}}, "$.tables.x", "key is longer than 200"),
    ({"x": [2**53]}, "$.tables.x[0]", "2**53"),
    ({"x": [-(2**53)]}, "$.tables.x[0]", "2**53"),
    ({"x": [-(2**60)]}, "$.tables.x[0]", "2**53"),
]


@pytest.mark.parametrize(("tables", "field", "bound"), TABLES)
def test_tables_past_their_bounds_are_refused_naming_where(
    tables: dict[str, Any], field: str, bound: str
) -> None:
    raw = line(START).replace(b"}", b', "tables": ' + json.dumps(tables).encode() + b"}")
    error = refused(raw)
    assert (error.field, bound in error.message) == (field, True), error
    with pytest.raises(StructuralError, match=re.escape(bound)) as caught:  # from the service
        convert({**START, "tables": tables}, index=2)
    assert (caught.value.field, caught.value.index) == (field, 2)


def test_a_table_number_that_is_not_finite_is_refused() -> None:
    # JSON cannot say it (msgspec refuses 1e400 as out of range); a program's objects can
    with pytest.raises(StructuralError, match="not finite") as caught:
        convert({**START, "tables": {"x": [float("inf")]}})
    assert caught.value.field == "$.tables.x[0]"


def test_tables_at_their_bounds_are_taken() -> None:
    tables = {"x": nested(16), "y": ["t" * 2000, SAFE_INT, -SAFE_INT, 1.5, None, True]}
    started = decode_json(line(START, tables=tables))
    assert isinstance(started, FightStarted) and started.tables == tables


DEEP = b"[" * 1000 + b"]" * 1000


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (
            b'{"type":"fight_started","ruleset":"mordheim","tables":{"x":' + DEEP + b"}}",
            "$.tables.x",
        ),
        (
            b'{"type":"amend","event":"#2","replacement":{"type":"hit","target":"g","damage":1,'
            b'"note":' + b'{"a":' * 1000 + b"1" + b"}" * 1000 + b"}}",
            "$.replacement.note",
        ),
        (b'{"type":"hit","target":"g","damage":1,"x":' + DEEP + b"}", "$.x"),
        (b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}", "$.x"),
    ],
)
def test_nesting_a_thousand_levels_deep_is_a_structural_error_not_a_recursion_error(
    raw: bytes, field: str
) -> None:
    error = refused(raw)
    if "nested too deeply" in error.message:
        assert error.field == field
    else:  # msgspec stopped at the wrong type before it went deep
        assert error.field is not None and error.field.startswith(field)


def test_messagepack_nested_too_deep_is_a_structural_error() -> None:
    with pytest.raises(StructuralError, match="nested too deeply"):
        decode_msgpack(b"\x81\xa1x" + b"\x91" * 100_000 + b"\xc0")  # {"x": [[[...]]]}


def test_the_schema_documents_every_bound() -> None:
    defs = json_schema()["$defs"]
    assert defs["Hit"]["properties"]["damage"]["maximum"] == 1_000_000
    assert defs["Heal"]["properties"]["amount"]["maximum"] == 1_000_000
    assert defs["FightStarted"]["properties"]["seed"]["maximum"] == SAFE_INT
    assert defs["FightStarted"]["properties"]["options"]["maxProperties"] == 64
    assert "16 levels" in defs["FightStarted"]["properties"]["tables"]["description"]
    stats = defs["CharacterJoined"]["properties"]["stats"]
    assert (stats["maxProperties"], stats["additionalProperties"]["minimum"]) == (64, -1_000_000)
    rolls = defs["Hit"]["properties"]["rolls"]
    assert (rolls["maxProperties"], rolls["additionalProperties"]["maxItems"]) == (256, 1000)
    assert defs["TurnStarted"]["properties"]["round"]["anyOf"][0]["maximum"] == 1_000_000

    def integers(node: Any) -> list[dict[str, Any]]:
        if isinstance(node, dict):
            own = [node] if node.get("type") == "integer" else []
            return own + [i for v in node.values() for i in integers(v)]
        return [i for v in node for i in integers(v)] if isinstance(node, list) else []

    for integer in integers(defs):  # every integer of the schema is bounded, within 2**53
        assert -SAFE_INT <= integer["minimum"] <= integer["maximum"] <= SAFE_INT, integer


# --- duplicate keys -----------------------------------------------------------------------------

DUPLICATES = [
    (b'{"type":"hit","target":"g","damage":1,"damage":0}', "$.damage"),
    (b'{"type":"hit","target":"g","damage" : 1 , "damage":0}', "$.damage"),
    (b'{"type":"hit","target":"g","damage":1,"d\\u0061mage":0}', "$.damage"),
    (b'{"type":"hit","type":"hit","target":"g","damage":1}', "$.type"),
    (b'{"type":"hit","target":"g","damage":1,"rolls":{"a":[1],"a":[2]}}', "$.rolls.a"),
    (
        b'{"type":"hit","at":"2024-01-01T10:00:00+0100","target":"g","damage":1,"damage":0}',
        "$.damage",
    ),
    (
        b'{"type":"amend","event":"#2","replacement":{"type":"hit","target":"g","target":"h",'
        b'"damage":1}}',
        "$.replacement.target",
    ),
    (b'{"type":"fight_started","ruleset":"m","tables":{"x":[{"a":1,"a":2}]}}', "$.tables.x[0].a"),
    (
        b'{"type":"character_joined","character":"g","stats":{"wounds":1,"wounds":3}}',
        "$.stats.wounds",
    ),
    (b'{"type":"hit","target":"g","damage":1,"note":"a:b","note":"c"}', "$.note"),
    (b'{"type":"hit","target":"g","damage":1,"note":"c","note":"a:b"}', "$.note"),
]


@pytest.mark.parametrize(("raw", "field"), DUPLICATES)
def test_a_key_given_twice_is_refused_naming_it(raw: bytes, field: str) -> None:
    error = refused(raw)
    assert error.field == field
    assert "given twice" in error.message


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type":"hit","target":"g","damage":1,"note":null,"rolls":{}}',
        b'{"type":"hit","target":"g","damage":1,"note":"a:b:c"}',
        b'{"damage":1,"target":"g","type":"hit","at":"2024-01-01T10:00:00+01:00"}',
        b'{"type":"hit","target":"g","damage":1,"at":"2024-01-01T10:00:00-00:00"}',
        b'{"type":"hit","target":"g","damage":1,"note":"say \\"hi\\": \\u00e9"}',
        b'  {"type" : "hit", "target" : "g", "damage" : 1}  \r\n',
    ],
)
def test_lines_without_a_repeated_key_are_taken_however_written(raw: bytes) -> None:
    hit = decode_json(raw)
    assert isinstance(hit, Hit) and hit.damage == 1


def spelled_with_a_repeat(obj: dict[str, Any], key: str, first: Any) -> str:
    """`obj` as JSON with `key` given twice: `first`, then its own value."""
    pairs = [f"{json.dumps(key)}: {json.dumps(first)}"]
    pairs += [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items()]
    return "{" + ", ".join(pairs) + "}"


@settings(max_examples=200)
@given(event=any_event, data=st.data())
def test_any_event_with_any_key_given_twice_is_refused(event: Event, data: st.DataObject) -> None:
    obj = msgspec.to_builtins(event)
    if "seed" in obj:
        obj["seed"] %= SAFE_INT
    key = data.draw(st.sampled_from(sorted(obj)))
    first = data.draw(st.sampled_from([obj[key], None, 0, "x"]))
    with pytest.raises(StructuralError) as caught:
        decode_json(spelled_with_a_repeat(obj, key, first))
    if first == obj[key] and type(first) is type(obj[key]):  # else refused for its type first
        assert "given twice" in caught.value.message
        assert caught.value.field == f"$.{key}"


@settings(max_examples=200)
@given(event=any_event)
def test_any_event_written_another_way_is_still_taken(event: Event) -> None:
    obj = msgspec.to_builtins(event)
    if "seed" in obj:
        obj["seed"] %= SAFE_INT
    written = json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=True).replace("\n", "")
    assert canonical(decode_json(written)) == canonical(decode_json(json.dumps(obj)))


# --- byte order mark ----------------------------------------------------------------------------


def test_a_file_starting_with_a_byte_order_mark_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "fight.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + line(START) + b"\n" + line(HIT) + b"\n")
    with pytest.raises(StructuralError, match="byte order mark") as caught:
        list(read_jsonl(path))
    assert caught.value.line == 1


# --- JSON that is not an event yet: request bodies, other programs' records ----------------------


@pytest.mark.parametrize(
    ("raw", "field", "words"),
    [
        (b'{"records":' + DEEP + b"}", "$.records", "nested too deeply"),
        (b'[{"hook":"x","id":"a","id":"b"}]', "$[0].id", "given twice"),
        (b'{"a":{"b\\u0022":1,"b\\"":2}}', '$.a.b"', "given twice"),
        (b"\xef\xbb\xbf[]", None, "byte order mark"),
        (b"[1,", None, "not JSON"),
    ],
)
def test_a_document_is_refused_for_what_no_schema_would_catch(
    raw: bytes, field: str | None, words: str
) -> None:
    with pytest.raises(StructuralError, match=words) as caught:
        decode_document(raw, line=2)
    assert (caught.value.field, caught.value.line) == (field, 2)


def test_a_document_decodes_to_plain_values() -> None:
    raw = b'[{"hook": "x", "at": "10:00:00", "n": 1.5e3, "s": "a\\u00e9"}]'
    assert decode_document(raw) == json.loads(raw)


def test_nesting_of_objects_alone_is_named_down_to_sixty_four_levels() -> None:
    # the field named stops where the error stops looking (64 levels), not at the whole depth
    raw = b'{"type":"fight_started","ruleset":"mordheim","tables":{"t":' + b'{"a":' * 1000
    error = refused(raw + b"1" + b"}" * 1002)
    assert "nested too deeply" in error.message
    assert error.field == "$.tables.t" + ".a" * 62
