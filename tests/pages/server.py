"""`woundlog serve`, which serves the pages, on loopback, for the page tests."""

from __future__ import annotations

from tests.replays.service.server import Server

PagesServer = Server
