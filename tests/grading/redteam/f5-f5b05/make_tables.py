"""Print lab05.md's tables from results.tsv and the judgements below (the judging is done by hand)."""
import csv, pathlib, sys

HERE = pathlib.Path(__file__).resolve().parent
csv.field_size_limit(10**7)
rows = list(csv.DictReader((HERE / "results.tsv").open(), delimiter="\t"))

# kind: W wrong, C correct, N "wrong" that turned out not to break a rule (not counted), X written as correct but wrong (counted as wrong)
JUDGE = {
    "relay_w01_payload_as_text": ("N", "not a rule break after all: `payload::text` goes out as the same JSON document (only whitespace differs: jsonb text is '{\"n\": 1}', the dict path is '{\"n\":1}'); consumers decode the same object. Not counted."),
    "relay_c05_one_row_at_a_time": ("X", "written as correct, and wrong: SKIP LOCKED does not skip rows the claiming transaction itself holds, so its second LIMIT 1 claim returns row 1 again and publishes it twice. The check is right. Counted as a wrong answer caught."),
    "relay_w08_resends_old_sent_rows": ("W", "FALSE PASS. Rule 1 'claim up to `limit` unsent outbox rows' (and 4 'mark them sent'): rows sent more than 10 minutes ago are published again on every call. The check's sent rows are all 'sent 5 s ago'; demos/relay_demos.py shows rows sent 2 days ago published again."),
    "relay_w09_housekeeping_delete": ("W", "FALSE PASS. Rule 4 'mark them sent, and nothing else' (and the outbox.sql comment 'A row is never deleted by the relay, only marked sent'): deletes every row sent more than a day ago. The check's sent rows are 5 s old; demos/relay_demos.py shows 3 rows deleted."),
    "relay_w19_singleton_advisory": ("W", "FALSE PASS, arguable. Rule 2 'a second relay skips the rows the first holds instead of waiting for them' and rule 1 'claim up to `limit` unsent rows': a second relay running this code returns 0 while unlocked unsent rows wait (it skips all rows, not the ones held). Nothing lost or sent twice: only throughput. The check's second relay is always the reference, which takes no advisory lock; demos/relay_demos.py runs two copies of the answer."),
    "relay_w20_skips_young_rows": ("W", "FALSE PASS, mild. Rule 1 'claim up to `limit` unsent outbox rows': rows younger than 200 ms are left for a later call (a delay, nothing lost). The check's rows are evidently older than 200 ms when the relay runs (created_at set back, or time passes); demos/relay_demos.py: rows written a moment ago, returns 0."),
    "relay_w22_ignores_rows_older_than_a_day": ("W", "FALSE PASS. Rule 1 'claim up to `limit` unsent outbox rows, oldest first': unsent rows older than a day are never published (lost, silently). The generator never makes an old unsent row; demos/relay_demos.py shows rows 1-2 left unsent for good."),
    "cancel_w09_int4_cast": ("W", "FALSE PASS. Rules 1 and 6 ('one that does not exist is left as it is'; 'return ... False if it did not'): `id = %s::int` raises NumericValueOutOfRange for any id beyond 2^31-1 (orders.id is bigint), and a placed order with such an id can never be cancelled. demos/cancel_demos.py."),
    "cancel_w17_only_recent_orders": ("W", "FALSE PASS. Rule 1 'cancel the order only if its status is still placed' (a placed order is the customer's to cancel): orders placed more than 30 minutes ago are never cancelled. The check's orders are all new; demos/cancel_demos.py shows a 2-hour-old placed order left placed, False."),
    "cancel_w20_deletes_receipt_job": ("W", "FALSE PASS. Rule 1 'set it to cancelled, and change nothing else': also deletes the order's queued send_receipt job. The check's 'no jobs' sees no change because its scenarios have no jobs for the order; demos/cancel_demos.py."),
    "cancel_w21_dedupe_outbox_row": ("W", "FALSE PASS, weak. Rule 2 'when it cancels, add one outbox row': no row when a cancellation row for the order is already in the outbox. Needs a state Tiffin's own code never makes (a placed order with an earlier cancellation row, e.g. support reset the status); demos/cancel_demos.py."),
    "cancel_w22_set_isolation_first": ("N", "not a rule break after all: PostgreSQL refuses SET TRANSACTION ISOLATION LEVEL after a query only when the level changes; READ COMMITTED is the level already in force, so it is a no-op even inside a caller's busy transaction (demos/cancel_in_callers_transaction.py). Not counted."),
    "cancel_w23_rollback_on_error": ("W", "FALSE PASS. Rule 5 'on the connection you are given, which may already be inside the caller's transaction ... a BEGIN and COMMIT of your own would end the caller's transaction': after a failure it sends ROLLBACK, which inside a caller's transaction ends all of it; a caller that catches the failure and goes on loses its earlier writes silently (demos/cancel_in_callers_transaction.py: order 9813 gone). The check never combines a caller's transaction with a failing write."),
    "cancel_w25_autocommit_toggle_restored": ("W", "FALSE PASS. Rule 5 'on the connection you are given, which may already be inside the caller's transaction': inside any caller's transaction `conn.autocommit = False` raises ProgrammingError, so the button never works there (demos/cancel_in_callers_transaction.py). The check's given-connection row only looks at what is left after the caller's rollback, and an answer that raised left nothing; nothing asks that the cancel works (returns True, writes both rows) before that rollback."),
    "cancel_w26_touches_customer": ("W", "FALSE PASS, arguable. Rule 1 'set it to cancelled, and change nothing else': also writes the customer's updated_at. Arguable because 'nothing else' can be read as 'nothing else of the order' (the check's own message for cancel_w11 reads it so), though the check also compares other orders, the outbox and jobs: customers are not compared."),
    "cancel_w27_commit_by_habit": ("W", "FALSE PASS. Rule 5 '... a BEGIN and COMMIT of your own would end the caller's transaction': hint 3's answer plus a `conn.commit()` after the block. Idle autocommit: a no-op. A caller's BEGIN: commits the caller's work and the cancellation, so the caller's ROLLBACK takes nothing away; a caller's `with conn.transaction()`: raises after the cancel is done, so a caller that reports the failure has in fact cancelled (demos/cancel_in_callers_transaction.py shows both). Same gap as cancel_w25."),
    "relay_w29_blocking_advisory_lock": ("W", "FALSE PASS. Rule 2 'a second relay skips the rows the first holds instead of waiting for them': a blocking pg_advisory_xact_lock makes a second relay running this code wait for the first's whole batch (demos/relay_demos.py: B waits until its lock_timeout). The check's second relay is always the reference, which never takes the advisory lock."),
    "relay_w30_int4_ids": ("W", "FALSE PASS. Rule 4 'mark them sent' (and 6): `id = ANY(%s::int[])` raises once outbox ids pass 2^31-1 (the column is bigint and rows are never deleted), so every batch rolls back and republishes the same rows for ever (demos/relay_demos.py). The generator's ids are small."),
    "relay_c07_no_key_update": ("C", "correct by effect (rule 2 names FOR UPDATE; FOR NO KEY UPDATE conflicts with itself and FOR UPDATE); passes, no false fail."),
    "relay_c08_one_row_at_a_time_fixed": ("C", "arguably correct (claims one row at a time); passes."),
}


def kind(r):
    name = r["answer"].split("@")[0]
    if name in JUDGE:
        return JUDGE[name][0]
    return "C" if r["rule"].startswith("correct") else "W"


def note(r):
    name = r["answer"].split("@")[0]
    if name in JUDGE:
        return JUDGE[name][1]
    if kind(r) == "C":
        return "correct; passes" if r["verdict"] == "pass" else "FALSE FAIL"
    return "caught"


def first_failure(r):
    m = r["message"]
    i = m.find("✗")
    if i < 0:
        return "all checks passed" if r["verdict"] == "pass" else m[:300]
    tail = m[i:]
    j = tail.find("| Random seed")
    return tail[: j if j > 0 else 700].replace("|", "/")


for exercise in ("05.relay", "05.cancel_order"):
    rs = [r for r in rows if r["exercise"] == exercise]
    print(f"\n### {exercise}\n")
    print("| answer | kind | rule it breaks (or correct) | verdict | s | load | the check's first failing row | judgement |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rs:
        print(f"| `{r['answer']}` | {kind(r)} | {r['rule'].replace('|', '/')} | {r['verdict']} | {r['seconds']} | {r['load']} | "
              f"{first_failure(r)} | {note(r)} |")
    base = [r for r in rs if "@" not in r["answer"]]
    wrong = [r for r in base if kind(r) in "WX"]
    wp = [r for r in wrong if r["verdict"] == "pass"]
    corr = [r for r in base if kind(r) == "C"]
    cf = [r for r in corr if r["verdict"] != "pass"]
    secs = sorted(float(r["seconds"]) for r in base)
    print(f"\n**{exercise}: wrong tried {len(wrong)}, passed {len(wp)} ({100*len(wp)/len(wrong):.0f} %): "
          f"{', '.join(r['answer'] for r in wp) or 'none'}; correct tried {len(corr)}, failed {len(cf)}; "
          f"not counted {len([r for r in base if kind(r) == 'N'])}; check time {secs[0]:.0f}-{secs[-1]:.0f} s "
          f"(median {secs[len(secs)//2]:.0f} s).**")
