from pathlib import Path
A = {}
# ---- 13.keep_alive
A["keep_c1_before_each_page"] = ("correct", '''
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        task.in_progress()
        render_page(task.data["booking_id"], page)
''')
A["keep_c2_while_after_each"] = ("correct", '''
def render_invoice(task):
    booking, pages = task.data["booking_id"], task.data["pages"]
    page = 0
    task.in_progress()
    while page < pages:
        render_page(booking, page)
        page += 1
        if page < pages:
            task.in_progress()
''')
A["keep_c3_timed_heartbeat"] = ("correct", '''
import time as _time

def render_invoice(task):
    data = task.data
    last_heartbeat = _time.monotonic()
    task.in_progress()
    for page in range(data["pages"]):
        if _time.monotonic() - last_heartbeat > 0.3:
            task.in_progress()
            last_heartbeat = _time.monotonic()
        render_page(data["booking_id"], page)
''')
A["keep_w1_silent"] = ("wrong | in-progress (never calls it)", '''
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
''')
A["keep_w2_once_at_start"] = ("wrong | in-progress (once, at the start only)", '''
def render_invoice(task):
    task.in_progress()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
''')
A["keep_w3_pages_from_one"] = ("wrong | render-every-page (pages counted from 1)", '''
def render_invoice(task):
    for page in range(1, task.data["pages"] + 1):
        task.in_progress()
        render_page(task.data["booking_id"], page)
''')
A["keep_w4_last_page_missing"] = ("wrong | render-every-page (last page not drawn)", '''
def render_invoice(task):
    for page in range(task.data["pages"] - 1):
        task.in_progress()
        render_page(task.data["booking_id"], page)
''')
A["keep_w5_swallows_errors"] = ("wrong | render-every-page (a page that raises is swallowed)", '''
def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception as error:
            print(f"page {page} failed: {error}")
''')
A["keep_w6_every_fourth_page"] = ("wrong | in-progress (silent 1.6 s > AckWait)", '''
def render_invoice(task):
    for page in range(task.data["pages"]):
        if page % 4 == 0:
            task.in_progress()
        render_page(task.data["booking_id"], page)
''')
A["keep_w7_hard_coded_booking"] = ("wrong | render-every-page (booking 981 hard-coded)", '''
def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        render_page(981, page)
''')
A["keep_w8_returns_early"] = ("wrong | render-every-page (returns before the last page is drawn)", '''
import threading

def render_invoice(task):
    def work():
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    threading.Thread(target=work, daemon=True).start()
    task.in_progress()
''')
A["keep_w9_heartbeat_at_end"] = ("wrong | in-progress (only after all pages)", '''
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
    task.in_progress()
''')
A["keep_w10_first_page_twice"] = ("wrong | render-every-page (a page drawn twice: retry on error by hand)", '''
def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception:
            task.in_progress()
            render_page(task.data["booking_id"], page)
''')
# ---- 13.publish_retry
A["publish_c1_deadline_loop"] = ("correct", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
''')
A["publish_c2_count_attempts"] = ("correct", '''
import itertools

def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    started = time.monotonic()
    last = None
    for attempt in itertools.count():
        try:
            ack = publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as error:
            last = error
        else:
            return ack
        if time.monotonic() - started > give_up_after_s:
            raise last
        time.sleep(min(0.05 * 2 ** attempt, 0.45))
''')
A["publish_c3_sleep_to_deadline"] = ("correct", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    give_up_at = time.monotonic() + give_up_after_s
    delays = [0.05, 0.1, 0.2, 0.4]
    n = 0
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            left = give_up_at - time.monotonic()
            if left <= 0:
                raise
            time.sleep(min(delays[min(n, len(delays) - 1)], left))
            n += 1
''')
A["publish_w1_new_id_each_try"] = ("wrong | same-msg-id (a new id per attempt)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause, attempt = 0.05, 0
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id if attempt == 0 else f"{msg_id}-retry{attempt}")
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
            attempt += 1
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
''')
A["publish_w2_no_pause"] = ("wrong | pause (none)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
''')
A["publish_w3_five_attempts"] = ("wrong | give-up (gives up after 5 attempts, before give_up_after_s)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    pause = 0.05
    for attempt in range(5):
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if attempt == 4:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
''')
A["publish_w4_returns_none"] = ("wrong | give-up (swallows: returns None when it gives up)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while time.monotonic() < deadline:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
    return None
''')
A["publish_w5_two_second_pause"] = ("wrong | pause (2 s, over half a second)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
            time.sleep(2.0)
''')
A["publish_w6_timeout_only"] = ("wrong | through-an-election (only timeouts retried)", '''
import asyncio

def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except (asyncio.TimeoutError, TimeoutError):
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
''')
A["publish_w7_new_error"] = ("wrong | give-up (raises a new error, not the last one)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while time.monotonic() < deadline:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
    raise RuntimeError(f"gave up publishing {msg_id} after {give_up_after_s} s")
''')
A["publish_w8_no_id_on_retry"] = ("wrong | same-msg-id (retries without msg_id)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        pass
    while True:
        time.sleep(pause)
        pause = min(pause * 2, 0.4)
        try:
            return publish(subject, payload, msg_id=None)
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
''')
A["publish_w9_uncapped_backoff"] = ("wrong | pause (doubles without a cap: seconds between attempts)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause *= 2
''')
A["publish_w10_returns_true"] = ("wrong | return-ack (True, not the ack)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            publish(subject, payload, msg_id=msg_id)
            return True
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
''')
A["publish_w11_give_up_early"] = ("wrong | give-up (gives up at half of give_up_after_s)", '''
def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s / 2
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() >= deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.4)
''')
# ---- 13.choose
A["choose_c1_plain"] = ("correct", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
A["choose_c2_times_two"] = ("correct", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    needs_broker = 2 * peak_jobs_per_s > postgres_jobs_per_s or teams_reading_each_event >= 2
    if not needs_broker:
        return "postgres"
    return "broker" + (" + outbox" if born_in_a_db_transaction else "")
''')
A["choose_c3_table"] = ("correct", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    too_busy = peak_jobs_per_s / postgres_jobs_per_s > 0.5
    many = not teams_reading_each_event <= 1
    table = {(False, False): "postgres", (False, True): "postgres",
             (True, False): "broker", (True, True): "broker + outbox"}
    return table[(too_busy or many, bool(born_in_a_db_transaction))]
''')
A["choose_w1_at_half"] = ("wrong | over-half (>=)", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s >= postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
A["choose_w2_one_team"] = ("wrong | many-teams (one team already)", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event >= 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
A["choose_w3_outbox_reversed"] = ("wrong | outbox (reversed)", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
        return "broker" if born_in_a_db_transaction else "broker + outbox"
    return "postgres"
''')
A["choose_w4_blog_figure"] = ("wrong | over-half (a blog's 1,000 jobs/s, not the figure given)", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > 1000 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
A["choose_w5_saturation"] = ("wrong | over-half (broker only past the whole capacity)", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > postgres_jobs_per_s or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
A["choose_w6_and"] = ("wrong | many-teams (needs both conditions)", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > postgres_jobs_per_s / 2 and teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    if peak_jobs_per_s > postgres_jobs_per_s / 2:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
A["choose_w7_floor_half"] = ("wrong | over-half (floor division of the capacity)", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > postgres_jobs_per_s // 2 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
A["choose_w8_spelling"] = ("wrong | outbox (returns 'broker+outbox')", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
        return "broker+outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
A["choose_w9_outbox_for_postgres"] = ("wrong | otherwise-postgres (born in a transaction: 'postgres + outbox')", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    choice = "broker" if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1 else "postgres"
    return choice + " + outbox" if born_in_a_db_transaction else choice
''')
A["choose_w10_rounded_ratio"] = ("wrong | over-half (ratio rounded to one decimal)", '''
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if round(peak_jobs_per_s / postgres_jobs_per_s, 1) > 0.5 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
''')
for name, (verdict, code) in A.items():
    Path(f"lab13_answers/{name}.py").write_text(f"# {verdict}\n" + code.lstrip("\n"))
