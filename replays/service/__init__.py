"""The HTTP service: `woundlog serve`, an ASGI app over the fights in a store."""

from .app import create_app
from .serve import serve

__all__ = ["create_app", "serve"]
