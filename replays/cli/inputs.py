"""What the CLI reads from a person: `KEY=VALUE` options, dice, files, and the events they make.

Events are built as plain dicts and validated by `woundlog.events.convert`, the same boundary
other software's events cross, so a bad value is refused with the field it came in (`$.damage`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from woundlog.events import (
    FACTS,
    Event,
    Heal,
    Hit,
    StructuralError,
    UsageError,
    bounded,
    decode_document,
    decode_json,
)

Scalar = bool | int | str

_INT = re.compile(r"[+-]?[0-9]+")
_BOOLS = {"true": True, "false": False}

if TYPE_CHECKING:  # the records' module loads when a file of them is read
    from woundlog.events.importers.records import Records


def scalar(text: str) -> Scalar:
    """`3` -> 3, `true`/`false` -> bool (any case), anything else stays a string."""
    if _INT.fullmatch(text):
        return int(text)
    return _BOOLS.get(text.lower(), text)


def pairs(values: Iterable[str], option: str) -> list[tuple[str, str]]:
    """Split each `KEY=VALUE` of a repeated option, refusing a value with no key."""
    found: list[tuple[str, str]] = []
    for value in values:
        key, equals, rest = value.partition("=")
        if not equals or not key.strip():
            raise UsageError(f"{option} takes KEY=VALUE, not {value!r}")
        found.append((key.strip(), rest))
    return found


def mapping(values: Iterable[str], option: str, *, typed: bool = True) -> dict[str, Any]:
    """A repeated `KEY=VALUE` option as a dict; values typed by `scalar` unless `typed=False`.

    A key given twice is refused rather than silently taking the last one.
    """
    result: dict[str, Any] = {}
    for key, value in pairs(values, option):
        if key in result:
            raise UsageError(f"{option} {key} is given twice")
        result[key] = scalar(value) if typed else value
    return result


def rolls(values: Iterable[str]) -> dict[str, list[Any]]:
    """`--roll injury=3,5 --roll injury=2` -> {"injury": [3, 5, 2]}: dice of a purpose in order."""
    result: dict[str, list[Any]] = {}
    for purpose, text in pairs(values, "--roll"):
        result.setdefault(purpose, []).extend(scalar(v.strip()) for v in text.split(","))
    return result


def present(fields: Mapping[str, Any]) -> dict[str, Any]:
    """An event's fields without the options left unset (None): they take the event's defaults."""
    return {key: value for key, value in fields.items() if value is not None}


def with_facts(
    kind: type[Hit] | type[Heal], fields: dict[str, Any], facts: list[str]
) -> dict[str, Any]:
    """Add `--fact KEY=VALUE`s as top-level fields of a hit or heal: a fact is an optional
    field of the event that some rulesets read (`magic`, `items`, `check`).

    A key that is not a fact but one of the event's own fields has its own option, so it is a
    usage error; a key the event does not know goes on to `convert`, which refuses it as a
    structural error naming the field.
    """
    given = mapping(facts, "--fact")
    own = {"type", *kind.__struct_fields__} - set(FACTS[str(kind.__struct_config__.tag)])
    for key in given:
        if key in own:
            raise UsageError(f"`{key}` is not a fact: set it with its own argument or option")
    return {**fields, **given}


def json_object(text: str, option: str) -> Any:
    """JSON typed on the command line; not JSON at all is a refused event, naming the option."""
    try:
        return decode_document(text)
    except StructuralError as exc:
        raise StructuralError(exc.message, field=exc.field or option) from None


def toml_file(path: Path) -> dict[str, Any]:
    try:
        data = msgspec.toml.decode(
            bounded.read(path, limit=bounded.MAX_TABLES, what="a tables file")
        )
    except msgspec.DecodeError as exc:
        raise UsageError(f"{path} is not TOML: {exc}") from None
    assert isinstance(data, dict)  # a TOML document is always a table
    return data


def jsonl_items(path: Path) -> Iterator[Event | StructuralError]:
    """Every event of a `.jsonl` file, or why its line is refused (with the line), read as they
    are taken: a long file is never held whole. Blank lines are skipped."""
    with open(path, "rb") as f:
        for number, raw in enumerate(bounded.lines(f, path), start=1):
            if not raw.strip():
                continue
            try:
                yield decode_json(raw, line=number)
            except StructuralError as error:
                yield error


def jsonl_lines(path: Path, items: Collection[int]) -> dict[int, int]:
    """The line of each of the file's `items` (by their place among its events, as
    `jsonl_items` gives them), found by reading the file again: a refused import names its
    lines without having kept the line of every event."""
    lines: dict[int, int] = {}
    if not items:
        return lines
    last = max(items)
    with open(path, "rb") as f:
        index = 0
        for number, raw in enumerate(bounded.lines(f, path), start=1):
            if not raw.strip():
                continue
            if index in items:
                lines[index] = number
            if index == last:
                break
            index += 1
    return lines


def records_file(path: Path) -> Records:
    """Another program's records: a JSON array (or one object), else JSON Lines, one record per
    line; each decoded when the importer reaches it (`events.importers.records`), so what the
    import holds is the file's bytes, not all its records as objects."""
    from woundlog.events.importers.records import Records

    data = bounded.read(path, what="a file of records")
    if data.startswith(b"\x1f\x8b"):
        raise UsageError(f"{path} is gzip-compressed: gunzip it first")
    return Records.of(data)


_POSITION = re.compile(r"[#@]?([1-9][0-9]*)")


def event_name(text: str) -> str:
    """An event as a person types it: `5` or `@5` (a shell takes `#5` for a comment) name the
    5th event, as `#5` does; anything else is an id."""
    position = _POSITION.fullmatch(text.strip())
    return f"#{position[1]}" if position else text
