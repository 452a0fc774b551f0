"""The exam's history is the run's to keep (eventlog.Kept): each worker writes its notes through a pipe of
its own, stamped with the slot and pid the run started, and no other process can add a line. It used to be
a file in the exchange folder, which every process of the notebook may write in class grading."""

import json
import threading

import pytest

from course.grading.exam import assemble, judge, run
from course.grading.notebooks import SOLUTIONS

from .test_lab14 import piece

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

SPEAKS_AS_ANOTHER = """
def backoff(attempt, rng):
    if not globals().get("said"):  # once a process: the probe alone asks for a thousand draws
        globals()["said"] = True
        import sys
        from course.infra import eventlog, processes
        spec = processes.unpickle(sys.argv[1])  # python -m course.grading.exam.worker SPEC SLOT INCARNATION
        eventlog.record(spec["history"], t=0.0, worker=7, pid=1, kind="said", detail="forged")
    return rng.uniform(0, min(300, 2 ** (attempt - 1)))
"""


def test_no_process_adds_to_the_exams_history_and_a_worker_speaks_only_as_itself(tmp_path, monkeypatch):
    """Another process (the notebook's) appends to every history in the exchange folder a retry of job 1
    with a backoff of 999 s, which would blame a correct 07.backoff; a backoff piece writes into the history
    as worker 7 with pid 1. Neither moves the verdict of the solutions' pieces, and the piece's line lands
    as the worker that wrote it."""
    exchange = tmp_path / "exchange"
    monkeypatch.setenv("COURSE_EXCHANGE_DIR", str(exchange))
    stop = threading.Event()
    forged = json.dumps({"t": 1.0, "pid": 1, "worker": 0, "kind": "retried", "job": 1, "attempt": 1,
                         "detail": "forged", "facts": {"delay_s": 999.0, "permanent": False, "applied": True}}) + "\n"
    found = []

    def forge() -> None:
        while not stop.wait(0.02):
            for path in exchange.rglob("*.jsonl"):
                try:
                    with open(path, "a") as out:
                        out.write(forged)
                    found.append(path.name)
                except OSError:
                    pass

    forger = threading.Thread(target=forge, daemon=True)
    forger.start()
    try:
        result = run(assemble(SOLUTIONS, backoff=piece(SPEAKS_AS_ANOTHER, "backoff")), seed=14, progress=False)
    finally:
        stop.set()
        forger.join()
    verdict = judge(result)
    assert not verdict.violations, [v.what for v in verdict.violations]
    assert not (verdict.lost or verdict.duplicated or verdict.stuck)
    said = [e for e in result.events if e.kind == "said"]
    started = {(e.worker, e.pid) for e in result.events if e.kind == "ready"}
    assert said and {(e.worker, e.pid) for e in said} <= started, said
    assert all(e.pid != 1 and e.worker != 7 for e in result.events)
    assert not found, f"the history was in the exchange folder: {found[:1]}"
