"""Public names a package imports on first use, not with the package (PEP 562).

Every `woundlog` command imports `woundlog.events` and `woundlog.replays` first (the CLI lives in
the latter), and a command should pay only for the modules it uses: each package
names, per public name, the module of its own that defines it, and these look it up then.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING: this module loads at every start, typing need not
if TYPE_CHECKING:
    from typing import Any


def lazy_names(
    package: str, namespace: dict[str, Any], homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package` (its `globals()` is `namespace`), whose
    public name N is defined by its module `homes[N]`. A name is imported once: it is then put
    in the package's namespace, so later reads do not come back here."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *homes])

    return __getattr__, __dir__
