"""A mutation run over the rules and the importers: which small slips would the tests miss?

Not a test: pytest never collects this folder. It runs cosmic-ray (the `mutation` extra) on a
copy of the source, so a run cut short never leaves a mutant in the checkout:

    .venv/bin/pip install -e '.[mutation]'
    nice -n 19 .venv/bin/python tests/mutation/run.py                     # every module below
    nice -n 19 .venv/bin/python tests/mutation/run.py --budget 1200 core/rulesets/mordheim.py

Each module is mutated only with the operators of rule tables, thresholds and guards (a number
one more or less, a boundary comparison moved by one, a condition negated, `and` for `or`, a
boolean flipped), and each mutant is run against the example tests of that module alone (`-x`:
the first failing test kills it), so a run fits a machine others share. The copy is imported
through PYTHONPATH, ahead of the editable install. Modules are run in order until `--budget`
seconds are spent; a module cut short counts only the mutants it finished (cosmic-ray runs them
in random order, so which ones is chance).

`--sample N` runs N mutants of each module instead of all: a fixed choice, the same for the same
`--seed` and source (mutants are sorted by place and operator, then drawn with the seed), so a
module too large for the time gets a sample spread over all its functions; another seed draws
another sample.

The score (killed / finished) is printed per module, with every survivor's diff; `--json FILE`
keeps them too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Each module and the example tests that cover it (property tests are left out: each mutant
# would run them whole, and the examples hold the text's own numbers).
MODULES: dict[str, list[str]] = {
    "core/rulesets/mordheim.py": ["tests/core/test_mordheim.py"],
    "core/rulesets/d26.py": ["tests/core/test_d26.py"],
    "core/rulesets/dnd5e.py": ["tests/core/test_dnd5e.py"],
    "core/rulesets/contractor.py": ["tests/core/test_contractor.py"],
    "core/rulesets/dragonquest.py": ["tests/core/test_dragonquest.py"],
    "core/rulesets/warhammer_quest/tables.py": ["tests/core/test_warhammer_quest.py"],
    "core/rulesets/warhammer_quest/turn.py": ["tests/core/test_warhammer_quest.py"],
    # the pulse's own examples first: the reducer's and the index's reach few of its guards
    "core/turns.py": [
        "tests/core/test_turns.py",
        "tests/core/test_reducer.py",
        "tests/core/test_tick_index.py",
    ],
    # base.py is what every importer stands on (the turn order, the HP readings): its tests are
    # the importers' own, not test_importers.py alone (which reaches 6 of 60 mutants)
    "events/importers/base.py": [
        "tests/events/test_importers.py",
        "tests/events/test_import_avrae.py",
        "tests/events/test_import_avrae_linear.py",
        "tests/events/test_import_foundry.py",
        "tests/events/test_import_improved_initiative.py",
        "tests/events/test_import_refused.py",
    ],
    "core/reducer.py": ["tests/core/test_reducer.py"],
    "core/dice.py": ["tests/core/test_dice.py"],
    "events/codec.py": [
        "tests/events/test_codec.py",
        "tests/events/test_wire_bounds.py",
        "tests/events/test_block_decode.py",
    ],
    # the walk that stops ticking a path at rest is checked by test_odds_rest.py
    "core/odds.py": ["tests/core/test_odds.py", "tests/core/test_odds_rest.py"],
    "events/importers/avrae.py": ["tests/events/test_import_avrae.py"],
    "events/importers/foundry.py": ["tests/events/test_import_foundry.py"],
    # what the campaign, the report's luck and the work gate added in 0.3.0 (issues 37, 38)
    "core/campaign.py": [
        "tests/replays/test_campaign_edges.py",
        "tests/replays/test_campaign_across_fights.py",
        "tests/replays/test_campaign.py",
        "tests/replays/test_campaign_rulesets.py",
        "tests/replays/test_campaign_application.py",
    ],
    "replays/report/luck.py": ["tests/replays/test_report.py", "tests/replays/test_report_harm.py"],
    "replays/service/limits.py": ["tests/replays/service/test_gate.py"],
    # what else changed since 0.2.0 (issue 39): the stores, the importers' records, sharing and
    # tokens, the service's heads and guards, campaigns, undo, the session, the report, bounds
    # the store contract's own suite runs the side tables on every store (and its server)
    "events/stores/side.py": [
        "tests/events/test_stores.py",
        "tests/replays/test_campaign_contributions.py",
    ],
    "events/stores/offsets.py": [
        "tests/events/test_jsonl_offsets.py",
        "tests/events/test_jsonl_offsets_edges.py",
    ],
    "events/importers/records.py": [
        "tests/cli/test_import_records_streamed.py",
        "tests/events/test_records_edges.py",
        "tests/replays/test_import_streamed.py",
    ],
    "replays/application/sharing.py": [
        "tests/replays/test_sharing_edges.py",
        "tests/replays/test_cli_share.py",
        "tests/replays/service/test_named_tokens.py",
    ],
    "replays/application/tokens.py": [
        "tests/replays/test_tokens_edges.py",
        "tests/replays/test_cli_share.py",
        "tests/replays/service/test_named_tokens.py",
        "tests/replays/service/test_manage.py",
    ],
    "replays/service/idempotency.py": [
        "tests/replays/service/test_idempotency_edges.py",
        "tests/replays/service/test_idempotency.py",
        "tests/replays/service/test_bounds_exactly.py",
    ],
    "replays/service/guards.py": [
        "tests/replays/service/test_guards_edges.py",
        "tests/replays/service/test_routes.py",
        "tests/replays/service/test_named_tokens.py",
        "tests/replays/service/test_stream_ticket.py",
        "tests/replays/service/test_campaigns.py",
    ],
    "replays/service/hosts.py": [
        "tests/replays/service/test_hosts_edges.py",
        "tests/replays/service/test_hostile_input.py",
        "tests/replays/service/test_limits.py",
    ],
    "replays/campaign.py": [
        "tests/replays/test_campaign_deaths_edges.py",
        "tests/replays/test_campaign_edges.py",
        "tests/replays/test_campaign_rulesets.py",
        "tests/replays/test_campaign.py",
        "tests/replays/test_campaign_contributions.py",
        "tests/replays/test_campaign_application.py",
    ],
    "replays/application/campaigns.py": [
        "tests/replays/test_campaign_application.py",
        "tests/replays/test_campaign_application_edges.py",
        "tests/replays/test_campaign.py",
        "tests/replays/test_cli_campaign.py",
    ],
    "replays/undo.py": [
        "tests/replays/test_undo.py",
        "tests/replays/test_undo_in_one_batch.py",
        "tests/replays/test_undo_every_loop.py",
    ],
    "replays/cli/session.py": [
        "tests/replays/test_play.py",
        "tests/replays/test_play_edges.py",
        "tests/cli/test_play_input_bounded.py",
    ],
    "replays/cli/lines.py": [
        "tests/cli/test_play_input_bounded.py",
        "tests/cli/test_play_input_edges.py",
        "tests/replays/test_play.py",
    ],
    "replays/report/__init__.py": [
        "tests/replays/test_report.py",
        "tests/replays/test_report_harm.py",
        "tests/replays/test_cli_report.py",
    ],
    "replays/report/numbers.py": [
        "tests/replays/test_report.py",
        "tests/replays/test_report_harm.py",
    ],
    "replays/report/chronicle.py": [
        "tests/replays/test_report.py",
        "tests/replays/test_cli_report.py",
    ],
    "replays/report/values.py": [
        "tests/replays/test_report.py",
        "tests/replays/test_report_harm.py",
    ],
    "events/bounded.py": [
        "tests/events/test_bounded_exactly.py",
        "tests/events/test_bounded_readme.py",
        "tests/cli/test_import_records_streamed.py",
        "tests/replays/test_cli_endless_input.py",
    ],
}

# The operators of a rule's data and its guards; cosmic-ray's other operators (every binary
# operator for every other, a variable swapped) make many mutants that say little about rules.
OPERATORS = (
    "core/NumberReplacer",
    "core/ReplaceComparisonOperator_(Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Eq_NotEq|NotEq_Eq)",
    "core/AddNot",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
)


def copy_source(into: Path) -> None:
    """The three folders as the package `woundlog` (as installed), the tests and their config."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules")
    for folder in ("events", "core", "replays"):
        shutil.copytree(ROOT / folder, into / "woundlog" / folder, ignore=ignore)
    shutil.copytree(ROOT / "tests", into / "tests", ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")


# Plugins the example tests do not use: each costs a second or more of every mutant's start.
UNUSED_PLUGINS = ("schemathesis", "faker", "hypothesispytest", "anyio", "platformdirs")


def config(module: str, tests: list[str], timeout: float) -> str:
    unused = [arg for name in UNUSED_PLUGINS for arg in ("-p", f"no:{name}")]
    # -n 0: the suite's `-n auto` would start workers for every mutant, and `-x` stops one
    # process at the first failure only
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-n",
        "0",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        *unused,
        *tests,
    ]
    keep = "|".join(OPERATORS)
    return "\n".join(
        [
            "[cosmic-ray]",
            f"module-path = {json.dumps('woundlog/' + module)}",
            f"timeout = {timeout}",
            "excluded-modules = []",
            f"test-command = {json.dumps(' '.join(command))}",
            "[cosmic-ray.distributor]",
            'name = "local"',
            "[cosmic-ray.filters.operators-filter]",
            # the filter drops the operators that match: all but ours
            f"exclude-operators = [{json.dumps(f'^(?!(?:{keep})$)')}]",
            "",
        ]
    )


def tool(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


NOT_SAMPLED = "not in the sample"


def keep_sample(session: Path, size: int, seed: int, module: str) -> None:
    """Mark all but `size` of the pending mutants as skipped, chosen by `seed` alone."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(session), WorkDB.Mode.open) as db:
        # pending_work_items come in random order: sort them by what they change first
        pending = sorted(
            db.pending_work_items,
            key=lambda item: (
                item.mutations[0].start_pos,
                item.mutations[0].operator_name,
                item.mutations[0].occurrence,
            ),
        )
        if len(pending) <= size:
            return
        chosen = set(random.Random(f"{seed}:{module}").sample(range(len(pending)), size))
        left_out = [item.job_id for index, item in enumerate(pending) if index not in chosen]
        db.set_multiple_results(
            left_out, WorkResult(worker_outcome=WorkerOutcome.SKIPPED, output=NOT_SAMPLED)
        )


def run_module(
    work: Path,
    module: str,
    tests: list[str],
    until: float,
    timeout: float,
    sample: tuple[int, int] | None,
) -> dict[str, object]:
    session = work / f"{module.replace('/', '_')}.sqlite"
    settings = work / f"{module.replace('/', '_')}.toml"
    settings.write_text(config(module, tests, timeout))
    quiet = {"cwd": work, "check": True, "stdout": subprocess.DEVNULL}
    subprocess.run([tool("cosmic-ray"), "init", str(settings), str(session)], **quiet)
    subprocess.run([tool("cr-filter-operators"), str(session), str(settings)], **quiet)
    if sample is not None:
        keep_sample(session, *sample, module)
    left = until - time.monotonic()
    cut = False
    if left > 0:
        running = subprocess.Popen(
            [tool("cosmic-ray"), "exec", str(settings), str(session)],
            cwd=work,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            running.wait(timeout=left)
        except subprocess.TimeoutExpired:
            os.killpg(running.pid, signal.SIGKILL)
            running.wait()
            cut = True
    else:
        cut = True
    # a run cut mid-mutant leaves the mutant in the copy: put the module back for the next one
    shutil.copy2(ROOT / module, work / "woundlog" / module)
    return results(session, module, cut)


def results(session: Path, module: str, cut: bool) -> dict[str, object]:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    killed, survivors, total, not_sampled = 0, [], 0, 0
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                not_sampled += result.output == NOT_SAMPLED
                continue  # an operator left out, or a mutant out of the sample
            total += 1
            if result.test_outcome == TestOutcome.SURVIVED:
                mutation = item.mutations[0]
                survivors.append(
                    {
                        "line": mutation.start_pos[0],
                        "operator": mutation.operator_name,
                        "diff": result.diff,
                    }
                )
            else:
                killed += 1
        pending = sum(1 for _ in db.pending_work_items)
    return {
        "module": module,
        "killed": killed,
        "finished": total,
        "pending": pending,
        "not_sampled": not_sampled,
        "cut": cut,
        "survivors": survivors,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="*", help="modules of MODULES (default: all, in order)")
    parser.add_argument("--budget", type=float, default=3600, help="seconds for the whole run")
    parser.add_argument("--mutant-timeout", type=float, default=120, help="seconds per mutant")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--sample", type=int, help="run this many mutants of each module")
    parser.add_argument("--seed", type=int, default=0, help="which sample (with --sample)")
    args = parser.parse_args()
    chosen = args.modules or list(MODULES)
    unknown = [m for m in chosen if m not in MODULES]
    if unknown:
        parser.error(
            f"not a module of this run: {', '.join(unknown)} (known: {', '.join(MODULES)})"
        )
    sample = None if args.sample is None else (args.sample, args.seed)
    until = time.monotonic() + args.budget
    found = []
    with tempfile.TemporaryDirectory(prefix="woundlog-mutation-") as scratch:
        work = Path(scratch)
        copy_source(work)
        os.environ["PYTHONPATH"] = str(work)
        imported = subprocess.run(
            [sys.executable, "-c", "import woundlog.core; print(woundlog.core.__file__)"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        if not imported.startswith(scratch):  # else every mutant would survive, untested
            sys.exit(f"the tests would import {imported.strip()}, not the mutated copy")
        for module in chosen:
            outcome = run_module(work, module, MODULES[module], until, args.mutant_timeout, sample)
            found.append(outcome)
            print(
                f"{module}: {outcome['killed']} killed of {outcome['finished']}"
                + (f" ({outcome['pending']} not run: budget spent)" if outcome["cut"] else "")
                + (f" ({outcome['not_sampled']} not in the sample)" if sample else ""),
                flush=True,
            )
            if args.json is not None:  # after each module, so a run stopped keeps the rest
                args.json.write_text(json.dumps(found, indent=1))
            for survivor in outcome["survivors"]:  # type: ignore[attr-defined]
                print(f"  survived, line {survivor['line']}: {survivor['operator']}")
                print("    " + (survivor["diff"] or "").strip().replace("\n", "\n    "))
    killed = sum(int(o["killed"]) for o in found)  # type: ignore[call-overload]
    finished = sum(int(o["finished"]) for o in found)  # type: ignore[call-overload]
    print(f"score: {killed} killed of {finished} mutants run")


if __name__ == "__main__":
    main()
