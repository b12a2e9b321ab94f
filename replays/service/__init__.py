"""The HTTP service: `woundlog serve`, an ASGI app over the fights in a store.

Its names load on first use: the CLI reads `environment.py` (the variables `serve` reads) to
declare `woundlog serve`'s options, which must not load the web stack."""

from woundlog.events.lazy import lazy_names

__all__ = ["create_app", "serve"]
__getattr__, __dir__ = lazy_names(__name__, globals(), {"create_app": "app", "serve": "serve"})
