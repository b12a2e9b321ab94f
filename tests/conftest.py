"""Fixtures every test folder may use: a real PostgreSQL server (tests/postgres_server.py) and
one real headless Chromium for the session (tests/chromium.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from .chromium import launched_browser
from .postgres_server import Cluster, fresh_database, own_server, server
from .skips import pytest_runtest_makereport  # noqa: F401 (a hook: a skip under CI fails)

if TYPE_CHECKING:
    from playwright.sync_api import Browser


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    with server() as url:
        if url is None:
            if os.environ.get("CI"):
                pytest.fail("no PostgreSQL server: .ci/run installs Debian's postgresql package")
            pytest.skip(
                "no PostgreSQL server here (install postgresql, or set WOUNDLOG_TEST_POSTGRES)"
            )
        yield url


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """The URL of a new, empty database on the test server."""
    return fresh_database(postgres_server)


@pytest.fixture
def postgres_cluster() -> Iterator[Cluster]:
    """A PostgreSQL cluster of the test's own, to stop or restart (`pg_ctl`) under what runs on
    it; never `$WOUNDLOG_TEST_POSTGRES`'s server, which other tests share."""
    with own_server() as cluster:
        if cluster is None:
            if os.environ.get("CI"):
                pytest.fail("no PostgreSQL server: .ci/run installs Debian's postgresql package")
            pytest.skip("no PostgreSQL here (install postgresql)")
        yield cluster


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    yield from launched_browser()
