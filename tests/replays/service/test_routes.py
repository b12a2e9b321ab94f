"""The service's routes, one controller per resource (issue 36): registered in any order they
make the same app, and every route of the API but `/health` and the Foundry module's checks its
token with a guard, before its body is read."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from litestar import Litestar

from woundlog.replays.service.app import create_app, routes
from woundlog.replays.service.guards import DEPENDENCIES, authorize, authorize_campaign

ADMIN = "an-admin-token-of-32-characters-or-so"

# The apps built here, in the test's process, say what Litestar 2.23+ deprecates in how the
# handlers declare their parameters and bodies (inferred, `Parameter(header=...)`): a change of
# its own, for every handler at once
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def route_table(app: Litestar) -> set[tuple[str, frozenset[str]]]:
    """Each route's path and methods, the OpenAPI document's own routes aside."""
    return {
        (route.path, frozenset(route.methods))
        for route in app.routes
        if not route.path.startswith("/schema")
    }


def test_the_routes_registered_in_any_order_make_the_same_app(tmp_path: Path) -> None:
    made = route_table(create_app(str(tmp_path / "fights.db"), ADMIN))
    assert ("/fights/{fight:str}", frozenset({"GET", "DELETE", "OPTIONS"})) in made
    shuffled = random.Random(36)
    for _ in range(5):
        order = routes()
        shuffled.shuffle(order)
        assert route_table(Litestar(route_handlers=order, dependencies=DEPENDENCIES)) == made


def test_every_api_route_but_health_the_foundry_modules_and_the_rules_is_guarded(
    tmp_path: Path,
) -> None:
    app = create_app(str(tmp_path / "fights.db"), ADMIN)
    checked = 0
    for route in app.routes:
        for handler in getattr(route, "route_handlers", []):
            if not handler.resolve_include_in_schema() or "OPTIONS" in handler.http_methods:
                continue  # a page, a file a page loads, the document itself
            guards = handler.resolve_guards()
            if route.path == "/health" or route.path.startswith(("/integrations", "/rulesets")):
                assert not guards, route.path  # nothing of any fight: the module, the rules
                continue
            assert authorize in guards or authorize_campaign in guards, route.path
            checked += 1
    assert checked == 37  # every route of a fight or a campaign
