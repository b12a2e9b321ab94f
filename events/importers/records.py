"""Another program's records, as a file holds them (a JSON array, one JSON document, or JSON Lines),
decoded one at a time as an importer reaches each: the file's bytes are held, never all its
records as Python objects at once (a 12 MB array of them took 610-776 MB).

A JSON array is split into its elements by msgspec, in C, as `msgspec.Raw` spans of the file's
bytes (each element's JSON checked, nothing built); JSON Lines into the spans of its lines. Each
record is decoded as `decode_document` decodes one (a key given twice, nesting too deep, a byte
order mark refused) when it is asked for, its error naming its place: `index`, and its line in
JSON Lines or `$[N]` in an array. An importer converts every record before anything is appended,
so a bad record still refuses the whole import.

    records = Records.of(data)      # a Sequence: len(), records[i], iteration
    records.line(i)                 # the line record i is on (None inside one JSON document)
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

import msgspec

from ..codec import decode_document
from ..errors import StructuralError

_LINE_END = re.compile(rb"\r\n|\r|\n")  # as bytes.splitlines splits


class Records(Sequence[Any]):
    """The records of one file's bytes, each decoded when it is reached (see the module)."""

    def __init__(
        self,
        data: bytes,
        elements: list[msgspec.Raw] | None = None,
        spans: array[int] | None = None,
        whole: bool = False,
    ) -> None:
        self._data = data
        self._elements = elements  # a JSON array's elements
        self._spans = spans  # JSON Lines: start, end and line number of each record's line
        self._whole = whole  # one JSON document that is not an array: one record

    @classmethod
    def of(cls, data: bytes) -> Records:
        """The records `data` holds: a JSON array's elements, one JSON document, else JSON
        Lines, one record per line that is not blank."""
        try:
            return cls(data, elements=msgspec.json.decode(data, type=list[msgspec.Raw]))
        except msgspec.ValidationError:
            try:  # not an array: one document (checked, nothing built), or JSON Lines
                msgspec.json.decode(data, type=msgspec.Raw)
            except (msgspec.DecodeError, RecursionError):
                pass
            else:
                return cls(data, whole=True)
        except (msgspec.DecodeError, RecursionError):
            pass  # not one JSON document: JSON Lines (or too deep: said with its line)
        return cls(data, spans=_lines(data))

    def __len__(self) -> int:
        if self._elements is not None:
            return len(self._elements)
        if self._spans is not None:
            return len(self._spans) // 3
        return 1

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[each] for each in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._decoded(index)

    def __iter__(self) -> Iterator[Any]:
        return map(self._decoded, range(len(self)))

    def line(self, index: int) -> int | None:
        """The line of JSON Lines record `index` is on; None inside one JSON document."""
        if self._spans is None or not 0 <= index < len(self):
            return None
        return self._spans[3 * index + 2]

    def _decoded(self, index: int) -> Any:
        if self._elements is not None:
            try:
                return decode_document(bytes(self._elements[index]))
            except StructuralError as error:
                error.index = index
                field = error.field or "$"
                error.field = f"$[{index}]{field[1:]}" if field.startswith("$") else field
                raise
        if self._spans is not None:
            start, end, number = self._spans[3 * index : 3 * index + 3]
            try:
                return decode_document(self._data[start:end], line=number)
            except StructuralError as error:
                error.index = index
                raise
        return decode_document(self._data)


def _lines(data: bytes) -> array[int]:
    """Start, end and number of each line of `data` that is not blank."""
    spans = array("Q")
    start = 0
    for number, end in enumerate(_ends(data), start=1):
        if data[start:end].strip():
            spans.extend((start, end, number))
        start = _after(data, end)
    return spans


def _ends(data: bytes) -> Iterator[int]:
    """Where each line of `data` ends (before its line break), as bytes.splitlines splits."""
    start = 0
    for found in _LINE_END.finditer(data):
        yield found.start()
        start = found.end()
    if start < len(data):
        yield len(data)


def _after(data: bytes, end: int) -> int:
    """Where the line after one ending at `end` starts."""
    return end + 2 if data[end : end + 2] == b"\r\n" else end + 1
