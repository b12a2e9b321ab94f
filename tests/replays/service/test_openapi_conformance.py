"""Issue 13: the OpenAPI document describes every response the service really sends.

Schemathesis draws requests from the document a real `woundlog serve` (loopback) serves, sends
them, and checks each answer against it: a status the route documents, the content type it
documents for that status (`application/problem+json` for every error), and a body that fits the
documented schema. Bounded: `EXAMPLES` requests per operation, and the whole run in `BUDGET_S`.

The stream never ends by itself, so it is not fuzzed with good tokens: its refusals and the head
of its answer are checked apart. Deleting the fight or its tokens is fuzzed against fights of
random names, never the one the other requests aim at, so those keep reaching the code behind
the guard.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import Case
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .conftest import new_fight
from .server import ADMIN, Server, bearer

EXAMPLES = 12
BUDGET_S = 60.0
CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance]
DESTRUCTIVE = {("DELETE", "/fights/{fight}"), ("DELETE", "/fights/{fight}/tokens"),
               ("POST", "/fights/{fight}/tokens")}  # fmt: skip


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("conformance") / "fights.db") as server:
        yield server


@pytest.fixture(scope="module")
def schema(running: Server) -> Any:
    return schemathesis.openapi.from_url(f"{running.url}/schema/openapi.json")


def operations(schema: Any) -> list[Any]:
    return [result.ok() for result in schema.get_all_operations()]


def test_every_response_to_what_the_document_allows_is_described_by_it(
    running: Server, schema: Any
) -> None:
    with httpx.Client(base_url=running.url, timeout=30) as client:
        fight = new_fight(client, "fuzzed")
    fuzzed = [op for op in operations(schema) if not op.path.endswith("/stream")]
    strategies = [op.as_strategy() for op in fuzzed]
    tokens = st.sampled_from([ADMIN, fight.gm["Authorization"][7:], "wrong"])
    started = time.monotonic()

    @given(case=st.one_of(strategies), token=tokens, aim=st.booleans())
    @settings(
        max_examples=EXAMPLES * len(strategies),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def conforms(case: Case[Any], token: str, aim: bool) -> None:
        if time.monotonic() - started > BUDGET_S:
            return  # the budget is spent: the examples left pass without a request
        where = (case.method.upper(), case.operation.path)
        if aim and "fight" in (case.path_parameters or {}) and where not in DESTRUCTIVE:
            case.path_parameters = {**(case.path_parameters or {}), "fight": "fuzzed"}
        if aim and "format" in (case.path_parameters or {}):
            case.path_parameters = {**(case.path_parameters or {}), "format": "foundry"}
        response = case.call(base_url=running.url, headers=bearer(token), timeout=10)
        case.validate_response(response, checks=CHECKS)

    conforms()
    assert time.monotonic() - started < BUDGET_S + 30  # the last request may still have run


def stream_operation(schema: Any) -> Any:
    return next(op for op in operations(schema) if op.path == "/fights/{fight}/stream")


def test_the_streams_refusals_are_described_by_the_document(running: Server, schema: Any) -> None:
    stream = stream_operation(schema)
    with httpx.Client(base_url=running.url, timeout=30) as client:
        tokens = new_fight(client, "streamed")
    for fight, query, headers in [
        ("streamed", {}, {}),  # 401: no token
        ("streamed", {"ticket": "made-up"}, {}),  # 401: unknown ticket
        ("streamed", {"from": 99}, tokens.viewer),  # 422: past the end
        ("nobody", {}, bearer(ADMIN)),  # 404
        ("a%2Fb", {}, bearer(ADMIN)),  # 422: not a fight id
    ]:
        case = stream.Case(path_parameters={"fight": fight}, query=query, headers=headers)
        response = case.call(base_url=running.url, timeout=10)
        assert response.status_code >= 400, (fight, query)
        case.validate_response(response, checks=CHECKS)


def test_the_stream_answers_as_documented_text_event_stream(running: Server, schema: Any) -> None:
    stream_operation(schema)  # documented
    with httpx.Client(base_url=running.url, timeout=30) as client:
        tokens = new_fight(client, "streamed-head")
        with client.stream("GET", "/fights/streamed-head/stream", headers=tokens.viewer) as live:
            assert live.status_code == 200
            assert live.headers["content-type"].startswith("text/event-stream")
        document = client.get("/schema/openapi.json").json()
    answer = document["paths"]["/fights/{fight}/stream"]["get"]["responses"]["200"]
    assert list(answer["content"]) == ["text/event-stream"]


def test_deleting_a_fight_and_its_tokens_answers_as_documented(
    running: Server, schema: Any
) -> None:
    by_route = {(op.method.upper(), op.path): op for op in operations(schema)}
    with httpx.Client(base_url=running.url, timeout=30) as client:
        new_fight(client, "removed")
    for where in [
        ("POST", "/fights/{fight}/tokens"),
        ("DELETE", "/fights/{fight}/tokens"),
        ("DELETE", "/fights/{fight}"),
        ("DELETE", "/fights/{fight}"),  # the retry: 404
    ]:
        case = by_route[where].Case(path_parameters={"fight": "removed"}, headers=bearer(ADMIN))
        response = case.call(base_url=running.url, timeout=10)
        case.validate_response(response, checks=CHECKS)
    assert response.status_code == 404


def test_every_route_documents_every_error_with_the_problem_body(running: Server) -> None:
    document = httpx.get(f"{running.url}/schema/openapi.json").json()
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    assert list(response["content"]) == ["application/problem+json"], (
                        method, path, status,
                    )  # fmt: skip
            if operation.get("security"):
                assert {"401", "403", "422", "503"} <= set(operation["responses"]), (method, path)


def test_the_events_body_is_documented_with_the_event_schemas(running: Server) -> None:
    document = httpx.get(f"{running.url}/schema/openapi.json").json()
    body = document["paths"]["/fights/{fight}/events"]["post"]["requestBody"]
    one, many = body["content"]["application/json"]["schema"]["oneOf"]
    assert one == {"$ref": "#/components/schemas/Event"}
    assert many["items"] == one
    event = document["components"]["schemas"]["Event"]
    assert {"$ref": "#/components/schemas/Event.Hit"} in event["anyOf"]


def test_the_docs_page_and_its_assets_are_served_from_the_package(
    running: Server, tmp_path: Path
) -> None:
    page = httpx.get(f"{running.url}/schema/swagger")
    assert page.status_code == 200
    assert "cdn." not in page.text and "https://" not in page.text.split("<body>")[0]
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"):
        served = httpx.get(f"{running.url}/schema/assets/{asset}")
        assert served.status_code == 200, asset
        assert len(served.content) > 10_000
