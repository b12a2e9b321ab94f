"""Ids are checked against their patterns after decoding, once per distinct string (issue 16):
the same refusals, with msgspec's own words, on every path woundlog decodes by."""

from __future__ import annotations

import json

import msgspec
import pytest

from woundlog.events import (
    StructuralError,
    convert,
    decode_json,
    decode_msgpack,
    encode_json,
    iter_jsonl,
)
from woundlog.events.model import CHARACTER_ID_PATTERN, EVENT_REF_PATTERN, ID_PATTERN
from woundlog.events.schema import json_schema

BAD_TARGET = b'{"type":"hit","target":"two words","damage":1}'


def test_a_target_refused_once_is_refused_again_after_good_ones_were_seen() -> None:
    decode_json(b'{"type":"hit","target":"grim","damage":1}')
    for _ in range(2):  # only strings that matched are remembered
        with pytest.raises(StructuralError, match="matching regex") as caught:
            decode_json(BAD_TARGET, line=4)
        assert (caught.value.field, caught.value.line) == ("$.target", 4)
        assert caught.value.message == f"Expected `str` matching regex {CHARACTER_ID_PATTERN!r}"


def test_an_amends_replacement_names_its_own_field() -> None:
    line = b'{"type":"amend","event":"#2","replacement":{"type":"hit","target":"a\\tb","damage":1}}'
    with pytest.raises(StructuralError, match="matching regex") as caught:
        decode_json(line)
    assert caught.value.field == "$.replacement.target"


@pytest.mark.parametrize(
    ("event", "field", "pattern"),
    [
        ({"type": "hit", "id": "#3", "target": "grim", "damage": 1}, "$.id", ID_PATTERN),
        ({"type": "retract", "event": "#0"}, "$.event", EVENT_REF_PATTERN),
        ({"type": "choice", "character": "a\u00a0b", "option": "x"}, "$.character", None),
        ({"type": "turn_ended", "character": " grim"}, "$.character", None),
    ],
)
def test_every_decoder_refuses_an_id_off_its_pattern(
    event: dict[str, object], field: str, pattern: str | None
) -> None:
    expected = f"Expected `str` matching regex {(pattern or CHARACTER_ID_PATTERN)!r}"
    for decode in (
        lambda: decode_json(json.dumps(event)),
        lambda: decode_msgpack(msgspec.msgpack.encode(event)),
        lambda: convert(event, index=3),
        lambda: list(iter_jsonl([json.dumps(event).encode() + b"\n"])),
    ):
        with pytest.raises(StructuralError, match="matching regex") as caught:
            decode()
        assert (caught.value.field, caught.value.message) == (field, expected)


def test_ids_that_keep_to_their_patterns_decode() -> None:
    for line in [
        b'{"type":"retract","id":"r1","event":"#12"}',
        b'{"type":"retract","event":"h#1"}',
        b'{"type":"hit","target":"#grim","damage":1}',  # a character id may begin with `#`
        b'{"type":"turn_started","round":1}',
    ]:
        assert json.loads(encode_json(decode_json(line))) == json.loads(line)  # ids as written


def test_the_schema_still_documents_the_id_patterns() -> None:
    schema = json.dumps(json_schema())
    for pattern in (ID_PATTERN, EVENT_REF_PATTERN, CHARACTER_ID_PATTERN):
        assert json.dumps(pattern) in schema


def test_iter_jsonl_refuses_what_decode_json_refuses_with_the_line() -> None:
    lines = [
        b'{"type":"fight_started","ruleset":"mordheim"}\n',
        b"\n",
        b'{"type":"hit","target":"grim","damage":1,"damage":2}\n',
    ]
    with pytest.raises(StructuralError, match="given twice") as caught:
        list(iter_jsonl(lines))
    assert (caught.value.line, caught.value.field) == (3, "$.damage")
