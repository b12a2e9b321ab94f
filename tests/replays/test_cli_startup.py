"""What a `woundlog` command loads (issue 16: start-up time): only the ruleset of its fight and
the libraries it uses.

Each command runs in a fresh Python process, through the CLI's own `main`, exactly as the console
script runs it; the process then writes down every module it imported. No time is measured here
(tests/benchmarks/startup.py does that): a module that should not load is what makes a command
slow, and unlike a time it fails the same way on every machine.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from woundlog.events.importers import IMPORTERS

RUN_AND_LIST = """
import sys
out, args = sys.argv[1], sys.argv[2:]
sys.argv = ["woundlog", *args]
from woundlog.replays.cli import main
try:
    main()
    code = 0
except SystemExit as exit:
    code = exit.code or 0
with open(out, "w") as written:  # plain lines, not JSON: json is a module a command may not load
    written.write("\\n".join([str(code), *sorted(sys.modules)]))
"""

NEVER = {  # what no command below may load, and why each would be wrong
    "litestar": "the HTTP service loads only for `woundlog serve`",
    "uvicorn": "the HTTP service loads only for `woundlog serve`",
    "woundlog.replays.service": "the HTTP service loads only for `woundlog serve`",
    "psycopg": "psycopg loads only for a PostgreSQL store",
    "portalocker": "file locks load only for a JSON Lines store",
    "pydantic": "typer from 0.29 coerces every parameter with pydantic: pyproject pins typer<0.29",
    "cairosvg": "the PNG renderer loads only for a PNG",
    "woundlog.replays.whatif": "the odds load only for `odds` and `branch`",
    "woundlog.core.odds": "the odds load only for `odds` and `branch`",
    "woundlog.events.importers.base": "importers load only for `import --from`",
    "woundlog.events.importers.foundry": "importers load only for `import --from`",
    "woundlog.events.importers.avrae": "importers load only for `import --from`",
    "woundlog.events.importers.improved_initiative": "importers load only for `import --from`",
    "platformdirs": "the user data directory is looked up only when no store is named",
    "transitions": "the Machine is built for a diagram; a fold looks moves up in a table",
}
RICH = "rich"

NOT_FOR_A_HIT = {  # what a hit on a SQLite store does without, and why each would be waste
    "json": "msgspec reads every event; json loads only to name a key a line gives twice",
    "unicodedata": "Unicode's names load only to say what is wrong with a refused fight id",
    "woundlog.events.stores.jsonl": "the JSON Lines store loads only when it is the store",
    "woundlog.events.schema": "the JSON Schema is made only for `woundlog schema` and the service",
    "woundlog.replays.render.timeline": "the timeline's drawing loads only for `woundlog timeline`",
    "woundlog.replays.files": "replaying a file loads only for `replay` and file sources",
    "typing_extensions": "msgspec falls back to `typing`'s own, the same on Python 3.11 and on",
    "_hashlib": "the dice draw with blake2b, Python's own: OpenSSL's library loads for no hit",
    "random": "a pause at random follows only a lost race between two writers",
    "dataclasses": "a ruleset's Permanence is a Struct: dataclasses would bring inspect and ast",
    "typer": "a plain hit is read without typer (replays/cli/quick.py)",
}
NOT_FOR_THE_VERSION = {  # `woundlog --version` prints one constant, before typer is imported
    "typer": "the version is answered before any command is declared (replays/cli/start.py)",
    "importlib.metadata": "the version is a constant of the package (replays/release.py)",
    "msgspec": "no event is read or written",
    "woundlog.core": "no rules are applied",
    "woundlog.events.model": "no event is read or written",
    "woundlog.events.stores": "no store is opened",
    "woundlog.replays.cli.output": "one plain line is printed",
    "woundlog.replays.fight": "no fight is opened",
}


def loaded_by(tmp_path: Path, *args: str, exit_code: int = 0) -> set[str]:
    """The modules `woundlog ARGS...` imports, run as its own process, which must end with
    `exit_code`."""
    out = tmp_path / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST, str(out), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "120"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    code, *modules = out.read_text().splitlines()
    assert int(code) == exit_code, f"woundlog {' '.join(args)}: {done.stderr}"
    return set(modules)


def top_level(modules: set[str]) -> set[str]:
    return {name.partition(".")[0] for name in modules}


def rulesets_in(modules: set[str]) -> set[str]:
    prefix = "woundlog.core.rulesets."
    return {m[len(prefix) :].partition(".")[0] for m in modules if m.startswith(prefix)}


def assert_never_loaded(modules: set[str]) -> None:
    wrong = {
        name: why
        for name, why in NEVER.items()
        if name in modules or (name.count(".") == 0 and name in top_level(modules))
    }
    assert not wrong, wrong


@pytest.fixture
def store(db: Path, skirmish: str, dungeon: str) -> Path:
    """The conftest's Mordheim skirmish and Warhammer Quest dungeon, in the same SQLite file."""
    return db


def test_version_loads_no_ruleset_no_rich_no_service(tmp_path: Path) -> None:
    modules = loaded_by(tmp_path, "--version")
    assert_never_loaded(modules)
    assert RICH not in top_level(modules)
    assert rulesets_in(modules) == set()


def test_version_loads_neither_msgspec_nor_the_rules_nor_a_store(tmp_path: Path) -> None:
    modules = loaded_by(tmp_path, "--version")
    assert {name: why for name, why in NOT_FOR_THE_VERSION.items() if name in modules} == {}


def test_the_version_printed_is_the_one_installed(tmp_path: Path) -> None:
    """The constant `--version` prints is the one setuptools wrote into the installed metadata
    (pyproject.toml reads it from replays/release.py), so the two cannot drift apart."""
    from importlib.metadata import version

    done = subprocess.run(
        [sys.executable, "-c", "from woundlog.replays.cli import main; main()", "--version"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout == f"woundlog {version('woundlog')}\n"


def test_python_dash_m_runs_the_same_cli_as_the_console_script() -> None:
    """`python -m woundlog.replays.cli` (its `__main__`) answers as `woundlog` does."""
    from importlib.metadata import version

    done = subprocess.run(
        [sys.executable, "-m", "woundlog.replays.cli", "--version"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, f"woundlog {version('woundlog')}\n")


def test_a_hit_loads_its_fights_ruleset_alone_and_prints_without_rich(
    tmp_path: Path, store: Path
) -> None:
    modules = loaded_by(
        tmp_path, "hit", "skirmish", "snitch", "1", "--attacker", "grim", "--roll", "injury=1"
    )
    assert_never_loaded(modules)
    assert RICH not in top_level(modules), "an event's line is plain text: no rich"
    assert rulesets_in(modules) == {"mordheim"}
    assert {name: why for name, why in NOT_FOR_A_HIT.items() if name in modules} == {}


@pytest.mark.parametrize("where", ["--db URL", "--db=URL"])
def test_a_hit_with_the_store_named_before_the_command_builds_that_command_alone(
    tmp_path: Path, store: Path, where: str
) -> None:
    """`woundlog --db URL hit ...`, as the README writes it: the app's own option before the
    command does not make every command be built (the timeline's among them, with its
    drawing)."""
    named = [where.replace("URL", str(store))] if "=" in where else ["--db", str(store)]
    modules = loaded_by(tmp_path, *named, "hit", "skirmish", "snitch", "1", "--roll", "injury=1")
    assert_never_loaded(modules)
    assert {name: why for name, why in NOT_FOR_A_HIT.items() if name in modules} == {}
    assert rulesets_in(modules) == {"mordheim"}


def test_a_warhammer_quest_fight_loads_warhammer_quest_alone(tmp_path: Path, store: Path) -> None:
    modules = loaded_by(tmp_path, "state", "dungeon", "--json")
    assert_never_loaded(modules)
    assert RICH not in top_level(modules), "JSON bypasses rich"
    assert rulesets_in(modules) == {"warhammer_quest"}


@pytest.mark.parametrize(
    ("args", "prints_a_table"),
    [
        (("state", "skirmish"), True),
        (("log", "skirmish"), False),
        (("log", "skirmish", "--json"), False),
        (("fights",), True),
        (("rules", "mordheim"), True),
    ],
)
def test_a_command_loads_rich_only_when_it_prints_a_table(
    tmp_path: Path, store: Path, args: tuple[str, ...], prints_a_table: bool
) -> None:
    modules = loaded_by(tmp_path, *args)
    assert_never_loaded(modules)
    assert (RICH in top_level(modules)) is prints_a_table
    assert rulesets_in(modules) <= {"mordheim"}


def test_naming_every_ruleset_in_an_error_loads_none_of_them(tmp_path: Path) -> None:
    """`woundlog rules NOPE` is refused with the list of rulesets, read from the registry."""
    modules = loaded_by(tmp_path, "rules", "nope", exit_code=2)
    assert_never_loaded(modules)
    assert rulesets_in(modules) == set()


def answer_of(entry: str, *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `woundlog ARGS...` run by `entry` (Python that runs it)."""
    code = f"import sys; sys.argv = ['woundlog', *sys.argv[1:]]; {entry}"
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "120"},
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("hit", "--help"),
        ("hit", "skirmish"),  # missing arguments: a usage error
        ("hit", "skirmish", "grim", "x"),  # not a number
        ("state", "skirmish", "--at", "0"),  # out of range
        ("hti", "skirmish"),  # no such command
        ("--help",),
        ("--version",),
        (),
    ],
)
def test_the_console_script_answers_as_typer_does_with_every_command_built(
    store: Path, args: tuple[str, ...]
) -> None:
    """`main` builds only the command it runs (building them all is most of typer's start-up);
    what a person sees is what the whole app says."""
    whole = answer_of("from woundlog.replays.cli import app; app(prog_name='woundlog')", *args)
    assert answer_of("from woundlog.replays.cli import main; main()", *args) == whole


def test_the_event_model_annotations_are_not_strings_to_evaluate() -> None:
    """msgspec (the Event decoder) reads the model's annotations at every start; postponed,
    each would be compiled from its string first."""
    import __future__

    model = importlib.import_module("woundlog.events.model")
    assert getattr(model, "annotations", None) is not __future__.annotations


CHECK_SIGNATURES = """
import json, sys
sys.argv = ["woundlog", *json.loads(sys.argv[1])]
from woundlog.replays.cli import app, main
try:
    main()
except SystemExit:
    pass
infos = [*app.registered_commands]
for group in app.registered_groups:
    infos += group.typer_instance.registered_commands
print(json.dumps(sorted(info.callback.__name__ for info in infos if "__signature__" in vars(
    info.callback))))
"""


@pytest.mark.parametrize(
    ("args", "built"),
    [
        (("--version",), []),
        (("hit", "--help"), ["hit"]),
        (("import", "--help"), ["import_", *["records"] * len(IMPORTERS)]),  # one a format
    ],
)
def test_a_run_works_out_the_parameters_of_the_commands_it_builds_alone(
    args: tuple[str, ...], built: list[str]
) -> None:
    """A command's annotations are strings until typer builds it (a hundred `Annotated[...]`
    of every command made at every start would cost more than a hit takes to run)."""
    done = subprocess.run(
        [sys.executable, "-c", CHECK_SIGNATURES, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == built


def test_the_help_builds_every_command_without_loading_the_web_stack(tmp_path: Path) -> None:
    """`woundlog -h` imports every command's module to read its help and options, `serve`'s
    too: the HTTP service still loads only when it runs."""
    modules = loaded_by(tmp_path, "--help")
    web = {"litestar", "uvicorn"} & top_level(modules)
    assert not web and "woundlog.replays.service.app" not in modules, web
