"""woundlog's release number, written once: setuptools reads it at build (pyproject.toml's
`dynamic = ["version"]`, by `attr:`, from the source text without importing it), and `woundlog
--version` prints it without asking `importlib.metadata`, which would import email parsing and
walk site-packages for the installed metadata: several times the start of Python (issue 28)."""

RELEASE = "0.3.0"
