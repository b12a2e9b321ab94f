"""`woundlog serve` with the pages, on loopback, for the page tests.

Until app.py registers `pages_router` (the lead's step, see the report of issue 15), the server
is started through the real CLI with `create_app` wrapped to add the router when the app lacks
it; once app.py registers it, the wrapper changes nothing and this is plain `woundlog serve`.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.replays.service.server import Server

LAUNCH = """
import importlib
from woundlog.replays.service import app as api
from woundlog.replays.service.pages import pages_router
serve = importlib.import_module("woundlog.replays.service.serve")  # the module, not the function
from woundlog.replays.cli import main

def with_pages(*args, **kwargs):
    built = api.create_app(*args, **kwargs)
    if "/fights/{fight:str}/timeline" not in built.route_handler_method_map:
        built.register(pages_router(api.GUARDED["guards"]))
    return built

serve.create_app = with_pages
main()
"""


class PagesServer(Server):
    def start(self) -> PagesServer:
        env = {**os.environ, **self.env}
        env.pop("WOUNDLOG_ADMIN_TOKEN", None)
        if self.admin is not None:
            env["WOUNDLOG_ADMIN_TOKEN"] = self.admin
        command = [
            sys.executable, "-c", LAUNCH,
            "serve", "--db", str(self.db), "--host", "127.0.0.1", "--port", str(self.port),
        ]  # fmt: skip
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
        self._wait_ready()
        return self
