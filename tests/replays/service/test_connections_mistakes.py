"""What a client may cost, worked out without a server, each test written against a plausible
slip no test noticed (issue 39, `tests/mutation/handwritten.py`): the connections the file
descriptors allow (half of what the stores leave, as replays/service/connections.py says) and
one address's share of unfinished requests (a tenth of the connections the server holds)."""

from __future__ import annotations

import resource

import pytest

from woundlog.replays.service import connections
from woundlog.replays.service.connections import protocol_class
from woundlog.replays.serving import Limits


def test_the_connection_limit_is_half_the_descriptors_the_stores_leave(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 40 worker threads x 4 descriptors and 32 spare: 1,000 - 192 = 808 left, half of it
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1000, 1000))
    assert connections.fd_budget() == 404
    monkeypatch.setattr(resource, "getrlimit", lambda which: (100, 100))
    assert connections.fd_budget() == 1  # nothing left: one at least


def test_an_address_may_hold_a_tenth_of_the_connections_the_server_holds_at_least_four() -> None:
    limits = Limits(max_connections=1000)
    assert protocol_class(limits).slow_per_client == 100
    assert protocol_class(limits, connections=300).slow_per_client == 30  # the descriptors' limit
    assert protocol_class(limits, connections=20).slow_per_client == 4
