"""SQL kept as SQL: each `.sql` file here holds named statements, so a notebook can show the exact text
the package runs (`show("queue", "claim")`) and a reader can paste it into psql.

A file is either a script run as a whole (`script("schema")`) or a list of blocks, each starting with a
line `-- name: <name>` (`query("queue", "claim")`).

This folder holds the reference queue's statements only. A folder of other SQL files reads them the same
way through a `Statements` of its own: the labs' tables are course/programs/sql/ (`from course.programs
import sql`).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

NAME_LINE = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


class Statements:
    """The named statements of the `.sql` files in one folder."""

    def __init__(self, folder: Path):
        self.folder = folder

    @cache  # a few folders, each kept for the whole process
    def script(self, file: str) -> str:
        return (self.folder / f"{file}.sql").read_text()

    @cache
    def queries(self, file: str) -> dict[str, str]:
        """All named statements of a file, each with its leading comment lines."""
        text = self.script(file)
        marks = list(NAME_LINE.finditer(text))
        blocks = {}
        for mark, following in zip(marks, marks[1:] + [None]):
            end = following.start() if following else len(text)
            blocks[mark.group(1)] = text[mark.end():end].strip().rstrip(";")
        return blocks

    def query(self, file: str, name: str) -> str:
        try:
            return self.queries(file)[name]
        except KeyError:
            known = ", ".join(self.queries(file))
            raise KeyError(f"{file}.sql has no statement named {name!r}; it has: {known}") from None

    def show(self, file: str, name: str) -> None:
        """Print a statement as the package runs it (for notebooks)."""
        print(self.query(file, name))


HERE = Path(__file__).parent
_queue = Statements(HERE)
script, queries, query, show = _queue.script, _queue.queries, _queue.query, _queue.show
