"""Shows that two answers the check passed are wrong, on one small queue each.

- answers/11_oldest_waiting__w05_group_by_type.py: queue `receipts` holds a send_invoice job due 720 s
  ago and a send_receipt job due 5 s ago; the answer reports whichever type's row comes last.
- answers/11_oldest_waiting__w15_claim_order.py: queue `emails` holds a priority -10 job due 720 s ago and
  a priority 0 job due 5 s ago; the answer reports the job the claim would take next, not the oldest.
- answers/11_oldest_waiting__w19_min_over_all_jobs.py: queue `reminders` holds a job due 100 s ago and a
  reminder planned for an hour from now whose due_at is 600 s ago (the state the check's own `reminders`
  scenario writes, by SQL): the answer says 600, the oldest job someone waits for is 100 s late.
- answers/11_oldest_waiting__w17_lowercased_queues.py: queues `Receipts` and `receipts` are two queues;
  the answer merges them into one key.
Each queue should show the figure in its comment.
"""
import runpy
from pathlib import Path

from course.core import queue
from course.infra import db

HERE = Path(__file__).resolve().parent


def answer(name):
    return runpy.run_path(str(HERE.parent / "answers" / name))["oldest_waiting"]


db.reset_schema("f3b_demo")
conn = db.connect("f3b_demo")
queue.install(conn)
for q, type_, priority, ago in [("receipts", "send_invoice", 0, 720), ("receipts", "send_receipt", 0, 5),
                                ("receipts", "send_invoice", 0, 30),
                                ("emails", "send_newsletter", -10, 720), ("emails", "send_confirmation", 0, 5),
                                ("Receipts", "send_receipt", 0, 50)]:
    conn.execute("INSERT INTO jobs (queue, type, priority, run_at, due_at)"
                 " VALUES (%s, %s, %s, now() - make_interval(secs => %s), now() - make_interval(secs => %s))",
                 [q, type_, priority, ago, ago])
conn.execute("INSERT INTO jobs (queue, type, run_at, due_at) VALUES ('reminders', 'remind', now() - interval '100 s', now() - interval '100 s'),"
             " ('reminders', 'remind', now() + interval '1 hour', now() - interval '600 s')")
print("should be: receipts 720, emails 720, Receipts 50, reminders 100")
for name in ["11_oldest_waiting__w05_group_by_type.py", "11_oldest_waiting__w15_claim_order.py",
             "11_oldest_waiting__w17_lowercased_queues.py", "11_oldest_waiting__w19_min_over_all_jobs.py",
             "11_oldest_waiting__c04_hint3_verbatim.py"]:
    got = {q: round(s) for q, s in sorted(answer(name)(conn).items())}
    print(f"{name}: {got}")
conn.execute("DROP SCHEMA f3b_demo CASCADE")
