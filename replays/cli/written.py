"""Where a command writes what it makes: `-o FILE`, or `-o -` for standard output, as every Unix
tool reads a dash, in the format `--format` names or the file's suffix tells. Declared once for
`export`, `timeline`, `report` and `campaign report`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

import typer

from woundlog.events import UsageError

STDOUT = Path("-")
PICTURES = ("svg", "png")

Format = Annotated[
    str | None,
    typer.Option(
        "--format",
        metavar="FORMAT",
        help="What to write; default: the -o file's suffix, or the first for -o - (stdout).",
    ),
]


def to_stdout(output: Path | None) -> bool:
    return output == STDOUT


def chosen_format(
    output: Path | None, asked: str | None, formats: Sequence[str], *, option: str = "-o"
) -> str:
    """The format of what is written: `--format`, else the `-o` file's suffix, else the first of
    `formats` (standard output has no suffix to tell)."""
    named = " or ".join(f".{known}" for known in formats)
    dash = ", or - for standard output" if option == "-o" else ""
    suffix = None if output is None or to_stdout(output) else output.suffix.lower().lstrip(".")
    if asked is not None:
        if asked not in formats:
            raise UsageError(f"--format {asked}: one of {', '.join(formats)}")
        if suffix is not None and suffix != asked:
            raise UsageError(f"{option} {output} is not a .{asked} file: name it .{asked}{dash}")
        return asked
    if suffix is None:
        return formats[0]
    if suffix not in formats:
        raise UsageError(f"{option} {output}: write {named}{dash}")
    return suffix


def write_output(output: Path, data: str | bytes, shape: str) -> None:
    """`data` to the file `-o` names, or to standard output for `-o -` (its control characters
    neutralised there when standard output is a terminal: `output.for_stdout`)."""
    raw = data.encode() if isinstance(data, str) else data
    if to_stdout(output):
        from .output import for_stdout

        sys.stdout.flush()  # what was printed before comes first
        sys.stdout.buffer.write(for_stdout(raw, shape))
        sys.stdout.buffer.flush()
    else:
        output.write_bytes(raw)


Render = Callable[[Callable[[str], object]], None]
"""A renderer that hands what it writes, piece by piece, to the writer it is given."""


def write_pieces(output: Path | None, shape: str, render: Render) -> None:
    """What `render` writes, as it writes it, never held whole: to the file `-o` names, to
    standard output for `-o -` (as `write_output`), or printed as `output.print_raw` prints
    (its control characters neutralised, one trailing newline) when there is no `-o`."""
    if output is not None and not to_stdout(output):
        with open(output, "wb") as file:
            render(lambda piece: file.write(piece.encode()))
        return
    from .output import shown, stdout_filter

    sys.stdout.flush()  # what was printed before comes first
    if output is not None:
        written = stdout_filter(shape)
        out = sys.stdout.buffer
        render(lambda piece: out.write(written(piece.encode())))
        out.flush()
        return
    held = Newlines(sys.stdout.write)
    render(lambda piece: held(shown(piece)))
    sys.stdout.write("\n")
    sys.stdout.flush()


class Newlines:
    """Writes on what it is given but the newlines at its end, held back until more comes:
    `print_raw`'s one trailing newline, for a text written in pieces."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self.write = write
        self.held = ""

    def __call__(self, text: str) -> None:
        kept = text.rstrip("\n")
        if kept:
            self.write(self.held + kept)
            self.held = text[len(kept) :]
        else:
            self.held += text
