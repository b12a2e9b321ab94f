"""Every test states what it expects (issue 39): a test function whose body, or a helper of the
test suite it calls, holds no assertion proves nothing but that the code ran, and a test that
cannot fail is worse than none. Read from the tests' source, so a test added without an
assertion fails here, in CI, before anyone relies on it.

An assertion is an `assert` statement, `pytest.raises`, `pytest.warns` or `pytest.fail`,
Playwright's `expect(...)`, or a `check=True` keyword (a program run that raises on failure);
a call of a function or method of the suite that makes one (followed through the suite's own
helpers, by name) counts as the caller's. `assert X == A if c else B` is refused too: it reads
as two expectations but asserts `X == A` or the truth of `B`, which a list always has."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ASSERTING = frozenset({"raises", "warns", "fail", "expect", "deprecated_call"})


def modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(TESTS.rglob("*.py")):
        if "benchmarks" in path.parts or "mutation" in path.parts:
            continue
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def called(node: ast.AST) -> Iterator[str]:
    """The names of what `node` calls: `f(...)` and `x.f(...)` both give `f`."""
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            if isinstance(func, ast.Name):
                yield func.id
            elif isinstance(func, ast.Attribute):
                yield func.attr


def asserts_itself(node: ast.AST) -> bool:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Assert):
            return True
        if (
            isinstance(inner, ast.keyword)
            and inner.arg == "check"
            and isinstance(inner.value, ast.Constant)
            and inner.value.value is True
        ):
            return True
    return any(name in ASSERTING for name in called(node))


def functions() -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    found: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for _, module in modules():
        for node in ast.walk(module):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.setdefault(node.name, []).append(node)
    return found


def asserting_names() -> set[str]:
    """The suite's functions that assert, themselves or through the suite's functions they
    call (a fixpoint over names: a name any of whose definitions asserts counts)."""
    every = functions()
    asserting = {name for name, defs in every.items() if any(map(asserts_itself, defs))}
    grew = True
    while grew:
        grew = False
        for name, defs in every.items():
            if name not in asserting and any(set(called(d)) & asserting for d in defs):
                asserting.add(name)
                grew = True
    return asserting


def test_every_test_function_asserts_something() -> None:
    asserting = asserting_names()
    silent = []
    for path, module in modules():
        for node in ast.walk(module):
            if (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name.startswith("test_")
                and node.name not in asserting
            ):
                silent.append(f"{path.relative_to(TESTS)}:{node.lineno} {node.name}")
    assert silent == [], "tests that assert nothing:\n" + "\n".join(silent)


def test_no_assert_hides_its_expectation_in_a_conditional() -> None:
    hidden = []
    for path, module in modules():
        for node in ast.walk(module):
            # `assert X == A if c else B` parses as `assert (X == A) if c else B`
            if isinstance(node, ast.Assert) and isinstance(node.test, ast.IfExp):
                hidden.append(f"{path.relative_to(TESTS)}:{node.lineno}")
    assert hidden == [], "assert X == A if c else B asserts X == A or B:\n" + "\n".join(hidden)


def test_the_check_finds_a_test_that_asserts_nothing() -> None:
    source = "def helper():\n    return 1\n\ndef test_runs():\n    helper()\n"
    node = ast.parse(source).body[1]
    assert not asserts_itself(node)
    assert asserts_itself(ast.parse("def test_x():\n    assert 1 == 1\n").body[0])
    trap = ast.parse("assert [1] == [2] if True else [3]").body[0]
    assert isinstance(trap, ast.Assert) and isinstance(trap.test, ast.IfExp)
