"""One exception family for everything woundlog refuses, each carrying what a person needs to act.

Each kind has the CLI's exit code: 2 usage, 3 refused event, 4 conflict.
"""

from __future__ import annotations

from typing import Self


class WoundlogError(Exception):
    """Base of every error woundlog raises on purpose.

    `event` names the event (its id, or `#N` for its position), `line` the line of a file it came
    from, `field` the field at fault (a msgspec-style path such as `$.damage`), `index` its place in
    an appended batch.
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        event: str | None = None,
        line: int | None = None,
        field: str | None = None,
        index: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.event = event
        self.line = line
        self.field = field
        self.index = index

    def located(
        self,
        *,
        event: str | None = None,
        line: int | None = None,
        index: int | None = None,
    ) -> Self:
        """Fill in where the error happened, keeping what is already known."""
        if self.event is None:
            self.event = event
        if self.line is None:
            self.line = line
        if self.index is None:
            self.index = index
        return self

    def where(self) -> str:
        parts = []
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.event is not None:
            parts.append(f"event {self.event}")
        if self.index is not None and self.line is None:
            parts.append(f"batch item {self.index}")
        if self.field is not None:
            parts.append(f"field {self.field}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.where()
        return f"{where}: {self.message}" if where else self.message

    def to_dict(self) -> dict[str, object]:
        return {
            "error": type(self).__name__,
            "message": self.message,
            "event": self.event,
            "line": self.line,
            "field": self.field,
            "index": self.index,
        }


class UsageError(WoundlogError):
    """The command or call itself is wrong: an unknown fight, a bad option, a missing file."""

    exit_code = 2


class RefusedError(WoundlogError):
    """An event was refused; nothing of its batch was written."""

    exit_code = 3


class StructuralError(RefusedError):
    """The event is malformed whatever the rules say: refused on append and on replay alike."""


class RuleError(RefusedError):
    """The event is well formed but the fight's rules forbid it now.

    Refused on append; on replay it becomes a `void` change, since an undo can make a later event
    stop making sense.
    """


class BatchRefused(RefusedError):
    """Several events of one batch were refused; `errors` lists every one of them."""

    def __init__(self, errors: list[RefusedError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


class ConflictError(WoundlogError):
    """The log moved on under the caller, or an id was reused with other content."""

    exit_code = 4

    def __init__(self, message: str, *, current_version: int, **where: object) -> None:
        super().__init__(message, **where)  # type: ignore[arg-type]
        self.current_version = current_version

    def to_dict(self) -> dict[str, object]:
        return {**super().to_dict(), "current_version": self.current_version}
