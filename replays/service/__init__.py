"""The HTTP service: `woundlog serve`, an ASGI app over the fights in a store.

`run(Serving)` (serve.py) is its one entry, the one name another front end uses (the CLI's
`serve` and `share --serve`; replays/serving.py holds the settings they hand it). Its names load
on first use, so that importing the package loads no web stack."""

from woundlog.events.lazy import lazy_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from .app import create_app
    from .serve import run

__all__ = ["create_app", "run"]
__getattr__, __dir__ = lazy_names(__name__, globals(), {"create_app": "app", "run": "serve"})
