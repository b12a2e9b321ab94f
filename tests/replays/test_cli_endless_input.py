"""Issue 24: every file the CLI reads is bounded (a line of JSON Lines, a file read whole), so
`/dev/zero` or one endless line is refused at the bound with the file named, never read into
memory without end (before: 2-5 GB and growing)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest
from typer.testing import Result

from woundlog.events import bounded

from .conftest import Run

SKIRMISH = Path(str(files("woundlog.replays") / "data" / "mordheim_skirmish.jsonl"))


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> int:
    """Bounds of 1000 bytes, so a file just past them is small."""
    for name in ("MAX_LINE", "MAX_DOCUMENT", "MAX_TABLES", "MAX_SECRET"):
        monkeypatch.setattr(bounded, name, 1000)
    return 1000


def refused(result: Result, *words: str) -> None:
    output = result.output
    assert result.exit_code == 2, output
    assert "Traceback" not in output
    for word in words:
        assert word in output, output


@pytest.fixture
def long_line(tmp_path: Path) -> Path:
    path = tmp_path / "long.jsonl"
    path.write_bytes(SKIRMISH.read_bytes().splitlines(keepends=True)[0] + b"x" * 1500 + b"\n")
    path.chmod(0o600)  # private, as an admin token file must be: what is refused is its length
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["replay", "{}"],
        ["import", "{}", "--as", "long"],
        ["import", "foundry", "{}", "--into", "long"],
        ["import", "avrae", "{}", "--into", "long"],
        ["import", "improved-initiative", "{}", "--into", "long"],
        ["odds", str(SKIRMISH), "--then-file", "{}"],
        ["new", "long", "--ruleset", "mordheim", "--tables", "{}"],
        ["serve", "--admin-token-file", "{}"],
    ],
)
def test_a_file_past_its_bound_is_refused_naming_it(
    run: Run, small: int, long_line: Path, command: list[str]
) -> None:
    result = run(*[part.format(long_line) for part in command])
    refused(result, str(long_line), "1,000 bytes")


@pytest.mark.parametrize(
    "command",
    [
        ["replay", "/dev/zero"],
        ["import", "/dev/zero", "--as", "zero"],
        ["import", "foundry", "/dev/zero", "--into", "zero"],
        ["odds", str(SKIRMISH), "--then-file", "/dev/zero"],
        ["new", "zero", "--ruleset", "mordheim", "--tables", "/dev/zero"],
        ["serve", "--admin-token-file", "/dev/zero"],
    ],
)
def test_dev_zero_is_refused_at_the_bound(run: Run, command: list[str]) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    result = run(*command)
    refused(result, "/dev/zero")
    assert "longer than" in result.output or "more than" in result.output


def test_the_line_reader_reads_no_further_than_its_bound() -> None:
    class Endless:
        """A stream without a newline, counting what is read of it."""

        given = 0

        def readline(self, size: int = -1) -> bytes:
            assert size > 0  # an unbounded readline never returns
            self.given += size
            return b"\0" * size

    endless = Endless()
    with pytest.raises(bounded.TooLong, match="endless, line 1: longer than 1,000 bytes"):
        list(bounded.lines(endless, "endless", limit=1000))  # type: ignore[arg-type]
    assert endless.given == 1001


def test_the_block_reader_refuses_a_line_past_the_bound_wherever_it_lies(tmp_path: Path) -> None:
    path = tmp_path / "blocks.jsonl"
    path.write_bytes(b"a\n" * 10 + b"b" * 50 + b"\n" + b"c\n")
    with open(path, "rb") as f:
        assert b"".join(bounded.blocks(f, path, 7, limit=51)) == path.read_bytes()
    with open(path, "rb") as f, pytest.raises(bounded.TooLong, match="line 11: longer than 40"):
        list(bounded.blocks(f, path, 7, limit=40))
