"""An isolated schema per check, so a learner's earlier experiments cannot make a check pass or fail."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import psycopg

from course.infra import db
from course.core import queue


@dataclass
class ScratchSchema:
    schema: str
    conn: psycopg.Connection

    @classmethod
    def create(cls, exercise_id: str, *, queue_tables: bool = True) -> "ScratchSchema":
        name = "check_" + re.sub(r"[^a-z0-9]+", "_", exercise_id.lower()) + "_" + secrets.token_hex(3)
        db.reset_schema(name)
        conn = db.connect(name)
        if queue_tables:
            queue.install(conn)
        return cls(name, conn)

    @property
    def conninfo(self) -> str:
        """For worker processes and extra connections: the same schema."""
        return db.conninfo(self.schema)

    def connect(self) -> psycopg.Connection:
        return db.connect(self.schema)

    def drop(self) -> None:
        self.conn.close()
        db.drop_schema(self.schema)
