"""13.keep_alive judges from histories it keeps itself (eventlog.Kept): its consumer loop's, the consumer
processes', the page log. In class grading the notebook's own processes may write the exchange folder, where
those histories used to be files any of them could append to: what another process writes there must not
move a verdict."""

import json
import threading
import time

import pytest

from course.grading import run_check

from .wrong_answers import assert_fails_with, render_page


def renders_but_never_says_so(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)


@pytest.mark.slow
def test_in_progress_acks_forged_into_the_exchange_folder_do_not_pass_a_silent_handler(tmp_path, monkeypatch):
    """Another process (the notebook's) follows every history in the exchange folder and writes an in-progress
    ack for each delivery it sees, every 50 ms: the silence the check measures on a history there would be
    gone. Nothing it writes reaches the check's histories, and the silent handler fails as it does alone."""
    exchange = tmp_path / "exchange"
    monkeypatch.setenv("COURSE_EXCHANGE_DIR", str(exchange))
    stop = threading.Event()
    forged = []

    def forge() -> None:
        while not stop.wait(0.05):
            for path in exchange.rglob("*.jsonl"):
                try:
                    seen = [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]
                    lines = [json.dumps({**e, "t": time.time(), "kind": "in_progress", "deliveries": 1}) + "\n"
                             for e in seen if e.get("kind") == "received"]
                    with open(path, "a") as out:
                        out.writelines(lines)
                    forged.extend(lines)
                except (OSError, ValueError):
                    pass

    forger = threading.Thread(target=forge, daemon=True)
    forger.start()
    try:
        report = run_check("13.keep_alive", render_invoice=renders_but_never_says_so)
    finally:
        stop.set()
        forger.join()
    assert not forged, f"a history the check judges from was in the exchange folder: {forged[:2]}"
    assert_fails_with(report, "no stretch of work", "a 6-page invoice (2.4 s) with AckWait 1.2 s is delivered once")
