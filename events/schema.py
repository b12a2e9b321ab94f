"""JSON Schema of wire format v1, generated from the event Structs themselves."""

from __future__ import annotations

from typing import Any

import msgspec

from .model import WIRE_VERSION, Event


def json_schema() -> dict[str, Any]:
    schema = msgspec.json.schema(Event)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"woundlog event, wire format v{WIRE_VERSION}"
    return schema
