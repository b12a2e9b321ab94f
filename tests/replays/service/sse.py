"""Reading server-sent events with httpx, for the tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx


def messages(response: httpx.Response) -> Iterator[tuple[int, dict[str, Any]]]:
    """(id, data) of each `changes` message; comments (heartbeats) are skipped."""
    fields: dict[str, str] = {}
    for line in response.iter_lines():
        if line == "":
            if fields.get("event") == "changes":
                yield int(fields["id"]), json.loads(fields["data"])
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
