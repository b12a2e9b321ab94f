"""Another program's records at their edges (issue 39, found missing by the mutation run): an
error deep in an array's element named by its whole path, `$[N]` and then the element's own; and
JSON Lines with CRLF line breaks read as with LF, records and errors alike."""

from __future__ import annotations

import pytest

from woundlog.events import StructuralError
from woundlog.events.importers.records import Records


def test_an_error_deep_in_an_element_names_the_element_and_its_path_within() -> None:
    records = Records.of(b'[{"a": 1}, {"b": {"c": 1, "c": 2}}]')
    with pytest.raises(StructuralError) as refused:
        records[1]
    assert refused.value.field == "$[1].b.c"
    with pytest.raises(StructuralError) as top:
        Records.of(b'[{"a": 1}, {"a": 1, "a": 2}]')[1]
    assert top.value.field == "$[1].a"


@pytest.mark.parametrize("bad", [b'{"b": 2,}', b'{"b": 1, "b": 2}'])
def test_json_lines_with_crlf_read_as_with_lf(bad: bytes) -> None:
    """A record is its line without the line break, whichever break (as bytes.splitlines)."""
    crlf, lf = (Records.of(b'{"a": 1}' + end + b"{}" + end + bad + end) for end in (b"\r\n", b"\n"))
    assert crlf[:2] == lf[:2] == [{"a": 1}, {}]
    said = []
    for records in (crlf, lf):
        with pytest.raises(StructuralError) as refused:
            records[2]
        said.append((str(refused.value), refused.value.line, refused.value.field))
    assert said[0] == said[1]
