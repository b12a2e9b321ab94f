"""`woundlog import FORMAT FILE` decodes another program's records one at a time (issue 37): what
it holds grows with the file's bytes, not with all its records as Python objects (a 12 MB array
took 610-776 MB before). Peak memory is counted by tracemalloc, allocation by allocation, not
timed; the RSS figures are tests/benchmarks/import_rss.py's. Each record's errors still name its
place, and a bad record still refuses the whole import."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from tests.replays.conftest import Run
from woundlog.events import StructuralError, bounded

DATA = Path(__file__).parents[1] / "data" / "importers"


def records_of(data: bytes) -> Any:
    from woundlog.events.importers.records import Records

    return Records.of(data)


def avrae_records() -> list[dict[str, object]]:
    return [json.loads(line) for line in (DATA / "avrae_combat.jsonl").read_text().splitlines()]


def big_file(tmp_path: Path, shape: str, copies: int = 30) -> Path:
    one = [json.dumps(record) for record in avrae_records()] * copies
    path = tmp_path / f"records.{shape}"
    path.write_text("[" + ",\n".join(one) + "]" if shape == "json" else "\n".join(one) + "\n")
    return path


@pytest.mark.parametrize("shape", ["json", "jsonl"])
def test_an_import_holds_about_the_files_bytes_not_all_its_records(
    run: Run, tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = big_file(tmp_path, shape)
    size = path.stat().st_size  # about 4.6 MB
    # reading a file whole asks for a buffer of the bound first (untouched, so never resident,
    # but tracemalloc counts it): a bound just past the file's size
    monkeypatch.setattr(bounded, "MAX_DOCUMENT", size + 1)
    tracemalloc.start()
    try:
        result = run("import", "avrae", str(path), "--into", "f")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    assert peak < 3 * size, (peak, size)  # before: every record decoded at once, 9-11 times


def test_a_json_array_is_read_element_by_element() -> None:
    data = b'[{"a": 1}, [2, 3], "x", {"b": {"c": null}}]'
    records = records_of(data)
    assert len(records) == 4
    assert list(records) == [{"a": 1}, [2, 3], "x", {"b": {"c": None}}]
    assert records[-1] == {"b": {"c": None}} and records[1:3] == [[2, 3], "x"]
    assert [records.line(n) for n in range(4)] == [None] * 4


def test_one_document_is_one_record_and_json_lines_name_their_lines() -> None:
    assert list(records_of(b'{"a": [1, 2]}')) == [{"a": [1, 2]}]
    lines = records_of(b'{"a": 1}\r\n\n  \n{"b": 2}\r{"c": 3}')
    assert list(lines) == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert [lines.line(n) for n in range(3)] == [1, 4, 5]


def test_a_key_given_twice_in_an_element_names_its_place() -> None:
    records = records_of(b'[{"a": 1}, {"b": {"c": 1, "c": 2}}]')
    assert records[0] == {"a": 1}
    with pytest.raises(StructuralError) as refused:
        records[1]
    assert refused.value.index == 1
    assert refused.value.field is not None and refused.value.field.startswith("$[1]")


def test_a_bad_line_of_json_lines_names_its_line() -> None:
    records = records_of(b'{"a": 1}\n\n{"b": 1, "b": 2}\n')
    with pytest.raises(StructuralError) as refused:
        list(records)
    assert (refused.value.index, refused.value.line) == (1, 3)


def test_a_bad_record_refuses_the_whole_import_naming_its_line(run: Run, tmp_path: Path) -> None:
    lines = [json.dumps(record) for record in avrae_records()]
    lines.insert(5, '{"combat_id": "x", "combat_id": "y"}')
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = run("import", "avrae", str(path), "--into", "f")
    assert result.exit_code != 0, result.output
    assert "line 6" in result.stderr, result.stderr
    assert "no fights yet" in run("fights").output
