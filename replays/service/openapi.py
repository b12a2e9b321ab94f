"""The service's OpenAPI document, made to say what the service really does.

Litestar draws most of it from the handlers; this module adds what it cannot see:

- every error status a route really answers, each with the one body errors have (an RFC 9457
  problem, `ErrorBody`, as `application/problem+json`): `problems()` for a route's own, and
  `complete()` for what every route shares (a guarded route's 401/403/404, a body's 413 and 422,
  the database's 503), so no route is left out, those of other modules included;
- the request bodies that handlers read as loose JSON (to name each refused event apart): one
  event or a list of them, with the event schemas of `woundlog schema`;
- `text/event-stream` for the stream;
- a campaign member's record's current values, each a property of its own named for its stat
  (`MemberRecord`: msgspec makes them fields of a Struct made for the record, which the handlers'
  types cannot name);
- a generic Struct's component named by its class, as a plain one is (`Stored`, not
  `Stored_woundlog.events.model.FightStarted_...`: Litestar names it by its arguments);
- the docs page, Swagger UI, served from the copy shipped in replays/web/swagger-ui/ (no CDN).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin, SwaggerRenderPlugin
from litestar.static_files import create_static_files_router
from litestar.types import ControllerRouterHandler

from woundlog.events.fight_ids import RULE

from ..reference import event_schema
from .schemas import Created, ErrorBody

PROBLEM = "application/problem+json"
SCHEMA_PATH = "/schema"
DOCS_PATH = "/schema/swagger"
ASSETS = "/schema/assets"
SWAGGER_UI = Path(__file__).resolve().parent.parent / "web" / "swagger-ui"
SWAGGER_UI_VERSION = "5.18.2"

MEANING = {
    400: "A `Host` header this server does not answer (a guard against DNS rebinding), or a "
    "request that could not be read (a client that went away mid-body).",
    401: "No token, an unknown one, an unknown or expired stream ticket, or a token put in "
    "the URL (never do that: use a stream ticket).",
    403: "A token of another fight, or of a role that cannot do this (a viewer writing, a "
    "fight's token creating or deleting fights).",
    404: "No such fight (a retried DELETE finds it gone), import format or ruleset.",
    409: "A conflict: the fight is not at `expected_version`, an event id is reused with other "
    "content, or the fight exists with other settings. `current_version` says where it is.",
    413: "Over a limit: the body's size, or the events of one batch.",
    422: "Refused: each refused event in `errors` (batch index, id, field, why); or a "
    f"parameter, header or body that does not fit (a fight id must be {RULE}); or an odds "
    "question past the service's bound, with `most_samples`, the most samples an estimate of "
    "it may take.",
    503: "The database is out of reach (restarting?) or the server is at its connection "
    "limit: send the request again (`Retry-After`).",
    500: "The service failed; its log tells why under the incident number of `detail`.",
}


def problem_spec(status: int) -> ResponseSpec:
    return ResponseSpec(
        data_container=ErrorBody,
        description=MEANING[status],
        media_type=PROBLEM,
        generate_examples=False,
    )


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    return {status: problem_spec(status) for status in statuses}


BRANCHED_AGAIN = ResponseSpec(
    data_container=Created,
    description="A retry: the branch is already there, made the same way; a new pair of "
    "tokens replaces the earlier pair.",
    generate_examples=False,
)
CREATED_AGAIN = ResponseSpec(
    data_container=Created,
    description="A retry: with the same `Idempotency-Key`, the first answer itself; without "
    "one, the fight already there with the same settings, with a new pair of tokens that "
    "replaces the earlier pair.",
    generate_examples=False,
)
STREAM = ResponseSpec(
    data_container=str,
    description="Server-sent events, two per event: `event: now` (no id), `data:` what the "
    "event made of the fight as `GET /state` shows it (`seq`, `view`, `recorded`: the event, "
    "`characters` that changed, `order`, `fight`: other fields that changed, `undo`, `redo`), "
    "then `event: changes`, `id:` the event's seq, `data:` the event's changes as JSON (the "
    "`changes` of an append's answer); a comment now and then to keep the line alive; "
    "`event: deleted` when the fight is deleted, then the end.",
    media_type="text/event-stream",
    generate_examples=False,
)

EVENT_BODIES = {("post", "/fights/{fight}/events")}
"""Requests whose body is one event or a list (handlers read it loose, to name each refused
event; an import's body is another program's records, left loose)."""


def render_plugins() -> list[Any]:
    """The JSON document at /schema/openapi.json and Swagger UI at /schema/swagger, with its
    scripts and styles from `ASSETS` (routes of `assets_router`), none from a CDN."""
    return [
        JsonRenderPlugin(),
        SwaggerRenderPlugin(
            version=SWAGGER_UI_VERSION,
            js_url=f"{ASSETS}/swagger-ui-bundle.js",
            css_url=f"{ASSETS}/swagger-ui.css",
            standalone_preset_js_url=f"{ASSETS}/swagger-ui-standalone-preset.js",
            favicon=f"<link rel='icon' type='image/png' href='{ASSETS}/favicon-32x32.png'>",
            path="/swagger",
        ),
    ]


def assets_router() -> ControllerRouterHandler:
    return create_static_files_router(
        path=ASSETS, directories=[SWAGGER_UI], include_in_schema=False, name="swagger-ui"
    )


def complete(document: dict[str, Any]) -> dict[str, Any]:
    """Fill in, in place, what the handlers cannot say (see the module's docstring)."""
    components = document.setdefault("components", {}).setdefault("schemas", {})
    _plain_generic_names(document, components)
    error_ref = _schema_ref(components, "ErrorBody")
    _add_event_schemas(components)
    if "MemberRecord" in components:
        components["MemberRecord"] |= MEMBER_RECORD
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            shared: list[int] = [400, 503, 500]
            if operation.get("security"):
                shared += [401, 403, 422]
                if "{fight}" in path:
                    shared.append(404)
            if "requestBody" in operation:
                shared += [413, 422]
                if method == "post":  # every append can meet a conflict (ids, versions)
                    shared.append(409)
            for status in shared:
                responses.setdefault(str(status), _problem(status, error_ref))
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    _as_problem(response, error_ref, int(status))
            if (method, path) in EVENT_BODIES and "requestBody" in operation:
                _events_body(operation)
    return document


def _plain_generic_names(document: dict[str, Any], components: dict[str, Any]) -> None:
    """Rename, in place, each component of a generic Struct given its arguments (a title such
    as `Stored[UnionType[...]]`) to its class's name, where no other component has it."""
    renamed: dict[str, str] = {}
    for key, schema in list(components.items()):
        title = schema.get("title", "") if isinstance(schema, dict) else ""
        plain = title.partition("[")[0]
        if "[" in title and plain not in components:
            components[plain] = {**components.pop(key), "title": plain}
            renamed[f"#/components/schemas/{key}"] = f"#/components/schemas/{plain}"
    if renamed:
        _relink_all(document, renamed)


def _relink_all(node: Any, renamed: dict[str, str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value in renamed:
                node[key] = renamed[value]
            else:
                _relink_all(value, renamed)
    elif isinstance(node, list):
        for item in node:
            _relink_all(item, renamed)


def _schema_ref(components: dict[str, Any], name: str) -> dict[str, str]:
    found = next((key for key in components if key.split("_")[-1] == name), name)
    return {"$ref": f"#/components/schemas/{found}"}


def _problem(status: int, error_ref: dict[str, str]) -> dict[str, Any]:
    return {"description": MEANING[status], "content": {PROBLEM: {"schema": error_ref}}}


def _as_problem(response: dict[str, Any], error_ref: dict[str, str], status: int) -> None:
    """Litestar's own error responses (its 400 for a bad parameter) say `application/json`
    and a body of its own; ours are all problems of one shape."""
    response["content"] = {PROBLEM: {"schema": error_ref}}
    response.setdefault("description", MEANING.get(status, ""))


MEMBER_RECORD = {
    "description": "A campaign member's record, in the shape of a fight's character: the stats "
    "the next fight joins them with at the top level, each under its own name (`wounds`, "
    "`current_hp`, ...), the stats they joined the campaign with under `stats`.",
    "additionalProperties": {"type": "integer"},
}
EVENT = "Event"
MAX_BATCH_DOC = 1000


def _add_event_schemas(components: dict[str, Any]) -> None:
    """The event schemas of `woundlog schema` as components `Event` and `Event.<Type>`."""
    schema = event_schema()
    rename = {name: f"Event.{name}" for name in schema["$defs"]}

    def relinked(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                key: (_relink(value, rename) if key == "$ref" else relinked(value))
                for key, value in node.items()
            }
        if isinstance(node, list):
            return [relinked(item) for item in node]
        if isinstance(node, str) and node.startswith("#/$defs/"):
            return _relink(node, rename)
        return node

    for name, definition in schema["$defs"].items():
        components[rename[name]] = relinked(definition)
    components[EVENT] = relinked(
        {"anyOf": schema["anyOf"], "discriminator": schema["discriminator"]}
    )


def _relink(ref: str, rename: dict[str, str]) -> str:
    name = ref.removeprefix("#/$defs/")
    return f"#/components/schemas/{rename.get(name, name)}"


def _events_body(operation: dict[str, Any]) -> None:
    event = {"$ref": f"#/components/schemas/{EVENT}"}
    operation["requestBody"]["content"] = {
        "application/json": {
            "schema": {
                "oneOf": [
                    event,
                    {"type": "array", "items": event, "minItems": 1, "maxItems": MAX_BATCH_DOC},
                ],
                "description": "One event, or a list of them appended atomically.",
            }
        }
    }
