"""The labs' own tables and statements, as SQL: Tiffin's (`tiffin.sql`), StayHub's (`stayhub.sql`, and
lab 06's part of it, `lab06.sql`), StayHub's recurring jobs (`stayhub_recurring.sql`), and lab 11's two
other ways to lease a job, measured for what they write (`write_amplification.sql`).

Read the way course/core/sql/ reads the queue's: `sql.show("tiffin", "schema")` prints a statement,
`sql.query(...)` returns it, `sql.script(...)` a whole file.
"""

from __future__ import annotations

from pathlib import Path

from course.core.sql import Statements

HERE = Path(__file__).parent
_labs = Statements(HERE)
script, queries, query, show = _labs.script, _labs.queries, _labs.query, _labs.show
