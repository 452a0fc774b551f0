"""Lab 14, the final exam: the learner's own queue, assembled from their answers, drained under fire.

    pieces = exam.assemble(".")       # 03.claim(_batch), 04.fenced_ack, 04.heartbeat, 07.route, 07.backoff
    result = exam.run(pieces)         # a seeded workload; workers SIGKILLed and frozen, a row held, connections
                                      # cut, PostgreSQL restarted (soak.py)
    verdict = exam.judge(result)      # lost, duplicated, stuck, poison, and which piece broke which rule
    print(verdict.render()); exam.plot(result)
    theirs = exam.run(exam.reference(), seed=result.seed)   # the course's pieces, same seed, same faults
    print(exam.beside(result, theirs)); print(exam.per_worker(result))

pieces.py loads, worker.py is the worker made of the pieces, soak.py runs and records, verdict.py judges,
figure.py draws; check("14.exam") (course/grading/checks/lab14.py) runs the same with the trial's seed.
In class grading (`course grade`) hosted.py loads the pieces instead, each in an answer host in the
notebook's sandbox, and the workers run sandboxed too.
The names are imported when first used: a worker process imports worker.py alone, not nbformat and
matplotlib (on a loaded machine they took 20 of a worker's 27 s to start).
"""

from __future__ import annotations

import importlib

_WHERE = {"PIECES": "pieces", "Pieces": "pieces", "assemble": "pieces", "run": "soak", "Run": "soak",
          "judge": "verdict", "Verdict": "verdict", "Violation": "verdict", "speed": "speed", "beside": "speed",
          "per_worker": "speed", "reference": "pieces", "plot": "figure"}
__all__ = list(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"course.grading.exam.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'course.grading.exam' has no attribute {name!r}")
