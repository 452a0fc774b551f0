# Judgements of every false pass / false fail (read by summarize.py). Quotes are from labs/NN_*.ipynb.
JUDGE = {
    "11_oldest_waiting__w05_group_by_type.py":
        "WRONG, rule stated: \"for each queue, how many seconds ago the oldest job someone is waiting for became due\" "
        "(rule 2 `oldest-in-seconds`). It groups by (queue, type) and the dict keeps whichever type's row comes last: "
        "`demos/oldest_waiting_false_passes.py` puts a send_invoice job due 720 s ago and a send_receipt job due 5 s ago "
        "in one queue and gets {'receipts': 5} (demos/*.out). Every queue in the check holds one job type",
    "11_oldest_waiting__w08_client_clock_int.py":
        "ARGUABLE, not counted as wrong: whole seconds (int() truncates) are still \"how many seconds ago\"; the "
        "statement names no precision, and a dashboard in seconds is reasonable",
    "11_oldest_waiting__w14_utcnow.py":
        "WRONG where the learner's clock is not UTC (rule 2: \"how many seconds ago\"): "
        "datetime.utcnow().timestamp() reads UTC as local time, off by the zone's offset (3,600 s in Berlin: "
        "`TZ=Europe/Berlin python -c ...` shows it). Run again with TZ=Europe/Berlin on the command line it still "
        "passes (logs/11_oldest_waiting__w14_utcnow.TZ_Berlin.txt): the check judges it in a zone where the bug "
        "cannot show. Counted as a false pass, flagged environment-dependent",
    "11_oldest_waiting__w15_claim_order.py":
        "WRONG, rule stated: \"how many seconds ago the oldest job someone is waiting for became due\" (rule 2). "
        "It takes the job the claim would take next (ORDER BY priority DESC, due_at), so an older low-priority job "
        "is hidden by a newer urgent one: the demo's queue `emails` (newsletter at -10 due 720 s ago, confirmation at "
        "0 due 5 s ago) gives 5 s. Every job in the check has the same priority",
    "11_oldest_waiting__w17_lowercased_queues.py":
        "WRONG, rule stated: \"a dict {queue: seconds}, one entry per queue\" (rule 1). Queue names are case-"
        "sensitive: `Receipts` and `receipts` are two queues, and it reports one, under a name that is not the "
        "queue's (demo: `Receipts` 50 s vanishes). Less likely from a learner (mixed-case queue names are rare); "
        "every queue name in the check is lower case",
    "11_oldest_waiting__w19_min_over_all_jobs.py":
        "WRONG, rule stated: \"a job scheduled for later on purpose is not due yet\" (rule 4) and the oldest job "
        "*someone is waiting for* (rule 2): it keeps the right queues but measures min(due_at) over all their jobs, "
        "planned ones included. It differs only when a planned job (attempts 0, run_at ahead) has a due_at in the past, "
        "a row the course's enqueue never writes (due_at = run_at) but the check's own `reminders` scenario does "
        "(w07 got 600 s there); in the check that row sits alone in its queue. Demo: `reminders` gives 600, not 100",
}

NOTES = {
    "07": """## Notes
- No false pass, no false fail. The checks are distributional (07.backoff: attempts 1-12 and some in the
  hundreds and thousands, 2,000 draws each; 07.route: each retry's wait drawn 500 times) and caught the
  subtle cap mistakes (cap threshold one attempt late, cap by modulo, cap halved, attempt clamped at 9: 256 s).
- Messages: a cap mistake that leaves the ceiling at 256 s (w10) is reported under "full jitter" ("no wait
  reached the top of the range: the longest was 255.9 s"): the explanation names the symptom well enough.
- The stub's "not started" message says "`draw_waits` still raises NotImplementedError" for 07.backoff,
  whose function is `backoff` (seen on the untouched labs notebook).
""",
    "09": """## Notes
- No false pass, no false fail.
- Ambiguity, not counted: `09.newsletter` reads "one `send_newsletter` job per guest" as one job per *entry*
  of `guest_ids`: for `[5, 3, 5]` it expects "3, one per guest" (answers/09_newsletter__w11_unique_keys.py, a
  unique key per guest, is failed with exactly that). Two guests, three jobs: the message contradicts itself, and
  a learner who dedups on purpose (one email per guest) fails by a rule the statement does not state. Suggest
  the statement say "one job per entry of guest_ids, duplicates included" (or leave duplicates free).
- Time: a correct answer that enqueues in a loop inside one transaction
  (answers/09_newsletter__c01_loop_in_transaction.py) took 327 s (load 22): the check drives 10,001 guests with
  another session acting between statements, 10,001 statements. Other 09.newsletter checks took 19-58 s.
""",
    "11": """## Notes
- 11.oldest_waiting is where the check is weak: every scenario it names is one fixed row per queue
  ("receipts: about 720 s — two waiting jobs ...", "emails: ... a job waiting for its retry", ...), all jobs of a
  queue share one type and one priority, every queue name is lower case, and the planned `reminders` job sits
  alone in its queue. Five wrong answers pass (w05, w14, w15, w17, w19; w08 is arguable and not counted);
  `demos/oldest_waiting_false_passes.py` shows four of them wrong on one small table (output in demos/*.out),
  the hint's final answer right on the same table.
- 11.alerts: two answers with an extra alert (depth over 1,000: w03; a queue with only scheduled jobs: w09) are
  failed first under "exactly 120 s is not over the limit ... not >=", a cause they do not have (both use `>`);
  the second failing row ("depth is not lateness") names the real one.
- 11.vacuum_blockers: no false pass; its random sessions (snapshot or write, age, idle or running, this database
  or another) caught each mistake, including whole-second ages.
""",
}
