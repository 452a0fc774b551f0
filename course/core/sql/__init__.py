"""SQL kept as SQL: each `.sql` file here holds named statements, so a notebook can show the exact text
the package runs (`show("queue", "claim")`) and a reader can paste it into psql.

A file is either a script run as a whole (`script("schema")`) or a list of blocks, each starting with a
line `-- name: <name>` (`query("queue", "claim")`).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

HERE = Path(__file__).parent
NAME_LINE = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


@cache
def script(file: str) -> str:
    return (HERE / f"{file}.sql").read_text()


@cache
def queries(file: str) -> dict[str, str]:
    """All named statements of a file, each with its leading comment lines."""
    text = script(file)
    marks = list(NAME_LINE.finditer(text))
    blocks = {}
    for mark, following in zip(marks, marks[1:] + [None]):
        end = following.start() if following else len(text)
        blocks[mark.group(1)] = text[mark.end():end].strip().rstrip(";")
    return blocks


def query(file: str, name: str) -> str:
    try:
        return queries(file)[name]
    except KeyError:
        known = ", ".join(queries(file))
        raise KeyError(f"{file}.sql has no statement named {name!r}; it has: {known}") from None


def show(file: str, name: str) -> None:
    """Print a statement as the package runs it (for notebooks)."""
    print(query(file, name))
