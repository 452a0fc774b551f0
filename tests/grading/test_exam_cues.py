"""The exam run's cues (course/grading/exam/cues.py): every worker hears everything the run says, one
started later too, however the descriptors' numbers are reused between starts."""

import sys

from course.grading.exam import cues
from course.infra import processes

LISTENS = """
import time
from course.grading.exam import cues
heard = cues.Heard.from_env()
deadline = time.monotonic() + 120
while time.monotonic() < deadline and not (heard.calm and heard.frozen(7, 2) and heard.released(9)):
    time.sleep(0.05)
print("heard" if heard.calm and heard.frozen(7, 2) and heard.released(9) else "deaf", flush=True)
"""


def test_every_worker_hears_every_cue_one_started_later_too():
    board = cues.Board()
    workers = []

    def start() -> None:
        told = board.open()
        workers.append(processes.spawn(f"cue-listener{len(workers)}", [sys.executable, "-c", LISTENS],
                                       env={cues.ENV: str(told)}, pass_fds=[told]))
        board.started(told)  # its number is free again: the next pipe may get it

    try:
        start()
        start()
        board.say(frozen=[7, 2])
        start()  # hears what was said before it started
        board.say(calm=True)
        board.say(released=9)
        for worker in workers:
            assert worker.wait(180) == 0, worker.log_tail(10)
        assert [worker.log().strip() for worker in workers] == ["heard"] * 3
    finally:
        board.close()
        for worker in workers:
            worker.kill()
