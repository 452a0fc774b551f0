"""One scheduler process of 08.tick's last stage: `python -m course.grading.faults.ticking SPEC NAME`.

course.core.scheduler.run with the learner's tick, each call traced to the stage's history (what it
returned, or that it raised). It lives here, not beside the stage in course/grading/checks/lab08, because
when a class is graded it runs in the notebook's sandbox, which cannot read course/grading/checks.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC

from course.core import scheduler
from course.grading.trial import describe
from course.infra import db, eventlog, processes


def main(spec_path: str, name: str) -> int:
    spec = processes.unpickle(spec_path)
    learner_tick = spec["tick"]

    def traced_tick(conn, now):
        clock = now.astimezone(UTC).isoformat()
        try:
            returned = learner_tick(conn, now)
        except Exception as error:
            eventlog.record(spec["history"], since=spec["started_at"], name=name, kind="raised", clock=clock,
                            detail=describe(error).splitlines()[0])
            raise
        try:
            json.dumps(returned)
        except TypeError:
            returned = repr(returned)
        eventlog.record(spec["history"], since=spec["started_at"], name=name, kind="ticked", clock=clock,
                        returned=returned)
        return returned

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    return scheduler.run(db.reached_here(spec["conninfo"]), name=name, clock=scheduler.SIMULATED,
                         tick_fn=traced_tick, poll_s=0.05)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
