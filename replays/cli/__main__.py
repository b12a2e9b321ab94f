"""`python -m woundlog.replays.cli ARGS...`, the same as `woundlog ARGS...`."""

from .main import main

main()
