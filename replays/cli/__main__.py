"""`python -m woundlog.replays.cli ARGS...`, the same as `woundlog ARGS...`."""

from .start import main

main()
