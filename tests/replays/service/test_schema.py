"""Schemathesis against the OpenAPI schema the server serves: whatever it is sent, the service
answers without a server error (no 5xx). Bounded: a few examples per operation."""

from __future__ import annotations

from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import Case

from .conftest import new_fight
from .server import ADMIN, Server, bearer

EXAMPLES = 25
DESTRUCTIVE = {("DELETE", "/fights/{fight}"), ("DELETE", "/fights/{fight}/tokens"),
               ("POST", "/fights/{fight}/tokens"),
               ("DELETE", "/fights/{fight}/tokens/{name}")}  # fmt: skip


def test_no_request_the_schema_allows_gets_a_server_error(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        fight = new_fight(client, "fuzzed")
        made = client.post("/campaigns", json={"campaign": "fuzzed", "ruleset": "mordheim"},
                           headers=bearer(ADMIN))  # fmt: skip
        assert made.status_code == 201, made.text
        campaign_gm = made.json()["gm_token"]
    schema = schemathesis.openapi.from_url(f"{server.url}/schema/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    assert {op.path for op in operations} == {  # what a client may call, and nothing else
        "/health",
        "/fights",
        "/fights/{fight}",
        "/fights/{fight}/tokens",
        "/fights/{fight}/tokens/{name}",
        "/fights/{fight}/stream-ticket",
        "/fights/{fight}/events",
        "/fights/{fight}/state",
        "/fights/{fight}/undo",
        "/fights/{fight}/next",
        "/fights/{fight}/turn-order",
        "/fights/{fight}/dice-asked",
        "/fights/{fight}/next/dice-asked",
        "/fights/{fight}/stream",
        "/fights/{fight}/timeline",
        "/fights/{fight}/report",
        "/fights/{fight}/report/fragment",
        "/fights/{fight}/import/{format}",
        "/fights/{fight}/odds",
        "/fights/{fight}/branch",
        "/fights/{fight}/join",
        "/fights/{fight}/players-view",
        "/campaigns",
        "/campaigns/{campaign}/tokens/{name}",
        "/campaigns/{campaign}/record",
        "/campaigns/{campaign}/history",
        "/campaigns/{campaign}/members",
        "/campaigns/{campaign}/fights",
        "/campaigns/{campaign}/between",
        "/campaigns/{campaign}/undo",
        "/campaigns/{campaign}/consequences",
        "/campaigns/{campaign}/report",
        "/integrations/foundry/module.json",
        "/integrations/foundry/woundlog.zip",
        "/integrations/owlbear/manifest.json",
        "/integrations/owlbear/{name}",
        "/rulesets",
        "/rulesets/{name}",
    }
    # the stream never ends by itself: it is checked by test_stream.py, not fuzzed here
    strategies = [op.as_strategy() for op in operations if not op.path.endswith("/stream")]
    tokens = st.sampled_from([ADMIN, fight.gm["Authorization"][7:], campaign_gm, "wrong"])

    @given(case=st.one_of(strategies), token=tokens, aim=st.booleans())
    @settings(
        max_examples=EXAMPLES * len(strategies),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    def no_server_error(case: Case[Any], token: str, aim: bool) -> None:
        # aimed: at the real fight and the real formats, so bodies reach the code behind them
        # never aimed: deleting the fight or its tokens would leave the rest nothing to reach
        keeps = (case.method.upper(), case.operation.path) not in DESTRUCTIVE
        if aim and keeps and "fight" in (case.path_parameters or {}):
            case.path_parameters = {**(case.path_parameters or {}), "fight": "fuzzed"}
        if aim and "campaign" in (case.path_parameters or {}):
            case.path_parameters = {**(case.path_parameters or {}), "campaign": "fuzzed"}
        if aim and "format" in (case.path_parameters or {}):
            case.path_parameters = {**(case.path_parameters or {}), "format": "foundry"}
        response = case.call(base_url=server.url, headers=bearer(token), timeout=10)
        assert response.status_code < 500, (case.method, case.formatted_path, response.text)

    no_server_error()
