"""JSON Lines decoded in blocks give exactly what the one-line path gives (DESIGN.md 3 and 5):
the same events, line numbers, refusals and messages, whatever lines a block holds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from woundlog.events import Event, StructuralError, codec, encode_json, iter_jsonl, read_jsonl
from woundlog.events.errors import WoundlogError

from .test_codec import any_event

GOOD = b'{"type":"fight_started","ruleset":"mordheim"}\n'
HIT = b'{"type":"hit","target":"grim","damage":1}\n'


def _outcome(events: Callable[[], Iterator[tuple[int, Event]]]) -> tuple[list[Any], Any]:
    """What a decoder yields before it stops, and how it stops: the error's type and every
    field a person reads."""
    seen: list[Any] = []
    try:
        for number, event in events():
            seen.append((number, encode_json(event)))
    except WoundlogError as err:
        return seen, (type(err), str(err), err.line, err.field, err.event)
    return seen, None


def _one_line_at_a_time(lines: list[bytes]) -> tuple[list[Any], Any]:
    """The reference: each line decoded by the one-line path, as before blocks."""
    return _outcome(lambda: codec._one_by_one(lines, 1))


def _hostile(event: Event) -> st.SearchStrategy[bytes]:
    """Lines made from one event: as woundlog writes it, and spelled every way that must take
    the full check or be refused."""
    own = encode_json(event)
    body = own[:-1]
    return st.sampled_from(
        [
            own + b"\n",
            own + b"\n",
            own + b"\n",
            own,  # a last line without its newline (or, mid-file, the generic reader's)
            own + b"  \n",  # trailing spaces
            own + b"\r\n",  # CRLF
            b"\xef\xbb\xbf" + own + b"\n",  # a byte order mark
            body + b',"note":"a","note":"b"}\n',  # a key given twice
            body + b',"n\\u006fte":"a"}\n',  # an escaped key
            b'{"type":"fight_ended","id":"\\u0067rim"}\n',  # an escaped id
            b'{"type":"hit","target":"a b","damage":1}\n',  # an id off its pattern
            b'{"type":"hit","target":"grim","damage":100000000000000000000000000}\n',
            b'{"type":"hit","target":"grim","damage":1e400}\n',
            b'{"type":"fight_started","ruleset":"x","options":' + b"[" * 300 + b"]" * 300 + b"}\n",
            own + b"," + own + b"\n",  # two events on one line
            body + b',"rolls":{"x":[1\n',  # half an event ...
            b"2]}}\n",  # ... and the other half
            b"\n",
            b"   \n",
            b"not json\n",
            b'{"type":"hit","target":"grim"}\n',  # a field missing
        ]
    )


lines_of_a_log = st.lists(any_event.flatmap(_hostile), max_size=25)


@settings(max_examples=60, deadline=None)
@given(lines_of_a_log, st.integers(1, 400))
def test_blocks_decode_as_the_lines_one_at_a_time(lines: list[bytes], block: int) -> None:
    expected = _one_line_at_a_time(lines)
    kept = codec.BLOCK
    codec.BLOCK = block  # a small block puts boundaries at every kind of line
    try:
        assert _outcome(lambda: iter_jsonl(lines)) == expected
    finally:
        codec.BLOCK = kept


@settings(max_examples=60, deadline=None)
@given(lines_of_a_log, st.integers(1, 400))
def test_a_file_read_in_blocks_decodes_as_its_lines_one_at_a_time(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], block: int
) -> None:
    path = tmp_path_factory.mktemp("log") / "fight.jsonl"
    path.write_bytes(b"".join(lines))
    with open(path, "rb") as f:  # the lines as a file splits them (at newlines only)
        expected = _one_line_at_a_time(list(f))
    kept = codec.BLOCK
    codec.BLOCK = block
    try:
        assert _outcome(lambda: read_jsonl(path)) == expected
    finally:
        codec.BLOCK = kept


def test_a_key_given_twice_in_the_middle_of_a_block_is_refused_with_its_line() -> None:
    lines = [GOOD, HIT, b'{"type":"hit","target":"grim","damage":1,"damage":2}\n', HIT]
    with pytest.raises(StructuralError, match="given twice") as caught:
        list(iter_jsonl(lines))
    assert (caught.value.line, caught.value.field) == (3, "$.damage")


def test_an_escaped_id_in_a_file_takes_the_full_check(tmp_path: Path) -> None:
    path = tmp_path / "fight.jsonl"
    path.write_bytes(GOOD + HIT + b'{"type":"hit","id":"h\\u0020 1","target":"grim","damage":1}\n')
    with pytest.raises(StructuralError, match="matching regex") as caught:
        list(read_jsonl(path))
    assert (caught.value.line, caught.value.field, caught.value.event) == (3, "$.id", "h  1")


def test_a_line_holding_two_events_is_refused_not_read_as_two(tmp_path: Path) -> None:
    path = tmp_path / "fight.jsonl"
    path.write_bytes(GOOD + HIT[:-1] + b"," + HIT + HIT)
    with pytest.raises(StructuralError, match="not a JSON event") as caught:
        list(read_jsonl(path))
    assert caught.value.line == 2


def test_an_event_split_over_two_lines_is_refused_at_its_first(tmp_path: Path) -> None:
    # joined by a comma the two halves make one valid event: the block must not take it
    path = tmp_path / "fight.jsonl"
    path.write_bytes(GOOD + b'{"type":"hit","target":"grim","damage":1,"rolls":{"x":[1\n2]}}\n')
    with pytest.raises(StructuralError, match="not a JSON event") as caught:
        list(read_jsonl(path))
    assert caught.value.line == 2


def test_blank_lines_crlf_and_a_missing_last_newline_keep_their_line_numbers(
    tmp_path: Path,
) -> None:
    path = tmp_path / "fight.jsonl"
    path.write_bytes(GOOD + b"\n" + HIT[:-1] + b"\r\n" + b"  \n" + HIT[:-1])
    assert [(n, type(e).__name__) for n, e in read_jsonl(path)] == [
        (1, "FightStarted"),
        (3, "Hit"),
        (5, "Hit"),
    ]


def test_a_bad_line_right_at_a_block_boundary_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "fight.jsonl"
    path.write_bytes(GOOD + HIT * 3 + b'{"type":"hit","target":"grim","damage":-1}\n' + HIT)
    kept = codec.BLOCK
    codec.BLOCK = len(GOOD + HIT * 3)  # the bad line begins the second block
    try:
        with pytest.raises(StructuralError) as caught:
            list(read_jsonl(path))
    finally:
        codec.BLOCK = kept
    assert (caught.value.line, caught.value.field) == (5, "$.damage")


@pytest.mark.parametrize("after", [[], [b""]], ids=["alone", "then an empty line"])
def test_lines_given_with_a_newline_inside_are_refused_not_read_as_two(after: list[bytes]) -> None:
    # iter_jsonl takes lines as a binary file gives them: one holding two events is one line
    with pytest.raises(StructuralError, match="not a JSON event") as caught:
        list(iter_jsonl([GOOD + HIT, *after]))
    assert caught.value.line == 1
