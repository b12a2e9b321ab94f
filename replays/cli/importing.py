"""`woundlog import`: a woundlog log stored as a fight (`import FILE.jsonl`), or another
program's records converted into one (`import FORMAT FILE --into FIGHT`, a command per format)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from woundlog.events import BatchRefused, ConflictError, UsageError, WoundlogError
from woundlog.events.fight_ids import check_fight_id
from woundlog.events.importers import DEFAULT_RULESET, IMPORTERS

from . import inputs as given
from .application import application, known_ruleset
from .options import Db, valid_fight_id
from .output import console, say

if TYPE_CHECKING:  # the records' module loads when a file of them is read
    from woundlog.events.importers.records import Records

OldImport = Annotated[str | None, typer.Option(hidden=True)]  # the old --from form, refused


def import_(
    file: Annotated[Path, typer.Argument(metavar="FILE.jsonl", help="A woundlog fight log.")],
    as_: Annotated[
        str | None, typer.Option("--as", metavar="FIGHT", help="Default: the file's stem.")
    ] = None,
    from_: Annotated[str | None, typer.Option("--from", hidden=True)] = None,
    ruleset: OldImport = None,
    seed: OldImport = None,
    db: Db = None,
) -> None:
    """Store a fight log, checking every event; all of it is stored or none."""
    if from_ is not None or ruleset is not None or seed is not None:
        raise old_import_form(file, as_, from_, ruleset, seed)
    fight = check_fight_id(as_ or file.stem)
    items = given.jsonl_items(file)
    first = next(items, None)
    if first is None:
        raise UsageError(f"{file} holds no events")
    with application(db) as app:
        before = app.store.version(fight)
        try:
            appended = app.import_log(fight, chain([first], items))
        except ConflictError as error:
            if error.event is None and before:
                raise ConflictError(
                    f"fight `{fight}` already has {before} events; import under another id "
                    "with --as",
                    current_version=before,
                ) from None
            raise on_lines(error, file) from None
        except WoundlogError as error:
            raise on_lines(error, file) from None
    skipped = f" ({len(appended.skipped)} already there)" if appended.skipped else ""
    say(f"imported {appended.version - before} events into fight `{fight}`{skipped}")


def old_import_form(
    file: Path, as_: str | None, fmt: str | None, ruleset: str | None, seed: str | None
) -> UsageError:
    """`woundlog import FILE --from FORMAT`, the form before the split: refused, naming the new."""
    if fmt is None:
        error = UsageError("--ruleset and --seed go with another program's records")
        error.add_note("write 'woundlog import FORMAT FILE --into FIGHT --ruleset NAME'")
        return error
    new = f"woundlog import {fmt} {file} --into {as_ or file.stem}"
    new += "".join(f" {option} {value}" for option, value in (("--ruleset", ruleset),
                   ("--seed", seed)) if value is not None)  # fmt: skip
    error = UsageError("`woundlog import FILE --from FORMAT` is now `woundlog import FORMAT FILE`")
    error.add_note(f"write '{new}'")
    return error


def records_of(fmt: str) -> Callable[..., None]:
    """The command `woundlog import FORMAT FILE --into FIGHT` of one importer, with its options."""

    def records(
        file: Annotated[
            Path,
            typer.Argument(
                metavar="FILE", help="The program's records: a JSON array or JSON Lines."
            ),
        ],
        into: Annotated[
            str,
            typer.Option(
                "--into",
                metavar="FIGHT",
                help="The fight they go into; a new one is created.",
                callback=valid_fight_id,
            ),
        ],
        ruleset: Annotated[
            str | None,
            typer.Option(
                "--ruleset", help=f"The rules of a fight this creates. Default: {DEFAULT_RULESET}."
            ),
        ] = None,
        seed: Annotated[
            int | None,
            typer.Option(help="The seed of a fight this creates. Default: a random one."),
        ] = None,
        campaign: Annotated[
            str | None,
            typer.Option(
                "--campaign",
                metavar="CAMPAIGN",
                help="Record the fight in this campaign (once), with its members who are "
                "characters of it under their own ids; a new fight plays its ruleset.",
            ),
        ] = None,
        db: Db = None,
    ) -> None:
        if ruleset is not None:
            known_ruleset(ruleset, "--ruleset:")
        import_records(file, into, fmt, ruleset, seed, db, campaign)

    records.__doc__ = (
        f"{IMPORTERS[fmt].summary}.\n\nConverted into events and appended to FIGHT in one "
        "batch (created if new); importing the same records again adds nothing."
    )
    return records


def import_records(
    file: Path,
    fight: str,
    fmt: str,
    ruleset: str | None,
    seed: int | None,
    db: str | None,
    campaign: str | None = None,
) -> None:
    """Convert another program's records and append them atomically, a new fight's
    `fight_started` in the same batch, continuing from the importer's cursor (the
    application's `import_records`); then say what was taken in, and what was left out."""
    records = given.records_file(file)
    with application(db) as app:
        try:
            appended = app.import_records(
                fight, fmt, records, ruleset=ruleset, seed=seed, create=True, campaign=campaign
            )
        except WoundlogError as error:
            raise on_records(error, records) from None
    skipped = f" ({len(appended.skipped)} already there)" if appended.skipped else ""
    say(f"imported {len(appended.changes)} events into fight `{fight}`{skipped}")
    if isinstance(appended.recorded_in, str):
        say(f"recorded fight `{fight}` in campaign `{appended.recorded_in}`")
    for warning in appended.warnings:
        say(f"warning: {warning}", out=console(stderr=True))


def on_records(error: WoundlogError, records: Records) -> WoundlogError:
    """Name the file's line of a record an importer refused, when the file is JSON Lines."""
    if error.index is not None and error.line is None:
        error.line = records.line(error.index)
    return error


def on_lines(error: WoundlogError, file: Path) -> WoundlogError:
    """Name the file's line for an error that names its place in the appended batch."""
    each = error.errors if isinstance(error, BatchRefused) else [error]
    # found by reading the file again: the import kept no line of the events it took
    unplaced = [(e.index, e) for e in each if e.index is not None and e.line is None]
    lines = given.jsonl_lines(file, {index for index, _ in unplaced})
    for index, refused in unplaced:
        refused.line = lines.get(index)
    # a batch's message is made from its errors' when it is built: build it again
    return BatchRefused(error.errors) if isinstance(error, BatchRefused) else error
