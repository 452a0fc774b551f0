"""The queue's own statements, as the bare loops send them: text and parameter names read from
course/core/sql/queue.sql, never retyped here.

A bare loop sends the reference queue's claim and ack without course.core.queue around them. It must
still say what the statements ask for, and that is where a copy goes stale: a placeholder or a column
renamed in queue.sql (the claim's token was `lease`, then `lease_token`) breaks a loop that spelled the
old name. So nothing here names a column of the jobs table:

  * the claim's parameters are the placeholders the claim has; each is given a value the loop knows
    (`Claim.params`), and one it does not know is refused before anything is sent;
  * the ack's parameters are the claim's own result columns of the same name (`ack`'s `%(id)s` and
    `%(lease_token)s` are the claim's `id` and `lease_token` columns); the batched ack's are the
    same in the plural (`%(ids)s`, `%(lease_tokens)s`), one array element per claimed row.

Whatever the table's columns are called, a loop built here asks exactly what the statements ask.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from course.core import queue, sql

PLACEHOLDER = re.compile(r"%\((\w+)\)[sbt]")  # psycopg's: s (either format), b (binary), t (text)


def placeholders(statement: str) -> list[str]:
    """The named parameters a statement takes, each once, in order of first use."""
    return list(dict.fromkeys(PLACEHOLDER.findall(statement)))


def claim_sql(skip_locked: bool = True) -> str:
    """The reference claim; without SKIP LOCKED, the same claim with plain FOR UPDATE (lab 03's contrast)."""
    claim = sql.query("queue", "claim")
    if skip_locked:
        return claim
    if claim.count("FOR UPDATE SKIP LOCKED") != 1:
        raise RuntimeError("the claim in queue.sql no longer says FOR UPDATE SKIP LOCKED exactly once: the "
                           "plain FOR UPDATE row cannot be made from it; update claim_sql()")
    return claim.replace("FOR UPDATE SKIP LOCKED", "FOR UPDATE")


def claim_params(statement: str, *, limit: int, lease_s: float, worker: str | None = None,
                 queue_name: str = queue.DEFAULT_QUEUE) -> dict:
    """The claim's parameters, by the names the statement uses; an unknown name is refused."""
    known = {"queue": queue_name, "limit": limit, "lease_s": lease_s, "worker": worker}
    wanted = placeholders(statement)
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise RuntimeError(f"the claim asks for {unknown}, which the bare loops do not know how to fill "
                           f"(they know {sorted(known)}): teach claim_params() what it means")
    return {name: known[name] for name in wanted}


@dataclass(frozen=True)
class Acks:
    """How to ack rows the claim returned, one at a time (`one`) or in one statement (`many`), with
    the ack statements of queue.sql: each parameter taken from the claimed row's column of that name."""

    ack: str
    ack_many: str
    one_columns: dict[str, int]  # the ack's parameter -> index of the claim's column it is read from
    many_columns: dict[str, int]  # the batched ack's array parameter -> that column's index

    @classmethod
    def for_claim(cls, columns: Sequence[str]) -> "Acks":
        """From the claim's result column names (cursor.description), in order."""
        ack, ack_many = sql.query("queue", "ack"), sql.query("queue", "ack_many")
        position = {name: i for i, name in enumerate(columns)}

        def source(parameter: str, column: str, statement: str) -> int:
            if column not in position:
                raise RuntimeError(f"the {statement} statement takes %({parameter})s, and the claim returns no "
                                   f"column {column!r} to fill it from (it returns {list(columns)})")
            return position[column]

        one = {p: source(p, p, "ack") for p in placeholders(ack)}
        many = {p: source(p, p.removesuffix("s"), "ack_many") for p in placeholders(ack_many)}
        return cls(ack, ack_many, one, many)

    def one(self, row: Sequence) -> dict:
        return {parameter: row[i] for parameter, i in self.one_columns.items()}

    def many(self, rows: Sequence[Sequence]) -> dict:
        return {parameter: [row[i] for row in rows] for parameter, i in self.many_columns.items()}

    def send(self, conn, rows: Sequence[Sequence]) -> None:
        """Ack the claimed rows: one row with `ack`, more with `ack_many`."""
        if len(rows) == 1:
            conn.execute(self.ack, self.one(rows[0]))
        elif rows:
            conn.execute(self.ack_many, self.many(rows))
