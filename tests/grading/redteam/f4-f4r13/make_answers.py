import textwrap, pathlib
OUT = pathlib.Path(__file__).parent / "answers"
H = 'def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):\n    """\'postgres\', \'broker\' or \'broker + outbox\', by the rules above."""\n'
A = {}
def add(name, comment, body, head=H):
    A[name] = f"# {comment}\n" + head + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"

add("choose__W01_at_least_half", "wrong (over-half): exactly half counts as a broker (>=)", """
if peak_jobs_per_s >= postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W02_one_team_is_many", "wrong (many-teams): one team already means a broker (>= 1)", """
if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event >= 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W03_blog_figure", "wrong (over-half: the figure is yours, not a blog's): a fixed 1,000 jobs/s ceiling", """
if peak_jobs_per_s > 1000 / 2 or teams_reading_each_event > 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W04_always_outbox", "wrong (outbox): a broker always comes with an outbox", """
if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
    return "broker + outbox"
return "postgres"
""")
add("choose__W05_teams_ignored", "wrong (many-teams): the number of teams is ignored", """
if peak_jobs_per_s > postgres_jobs_per_s / 2:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W06_over_whole", "wrong (over-half): a broker only when the peak is over the whole drain rate", """
if peak_jobs_per_s > postgres_jobs_per_s or teams_reading_each_event > 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W07_floor_half", "wrong (over-half): integer halving, postgres // 2 (odd drain rates)", """
if peak_jobs_per_s > postgres_jobs_per_s // 2 or teams_reading_each_event > 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W08_int_peak", "wrong (over-half): the peak truncated to an int before comparing", """
if int(peak_jobs_per_s) > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W09_three_teams", "wrong (many-teams): a broker only from three teams on (> 2)", """
if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 2:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W10_outbox_only_when_fast", "wrong (outbox): outbox only when the peak forced the broker, not when many teams did", """
if peak_jobs_per_s > postgres_jobs_per_s / 2:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
if teams_reading_each_event > 1:
    return "broker"
return "postgres"
""")
add("choose__W11_round_ratio", "wrong (over-half): ratio rounded to 2 decimals (0.501 becomes 0.5)", """
if round(peak_jobs_per_s / postgres_jobs_per_s, 2) > 0.5 or teams_reading_each_event > 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__W12_truthy_teams", "wrong (otherwise-postgres): 0 teams (nobody reads) treated like many (!= 1)", """
many = teams_reading_each_event != 1
if peak_jobs_per_s > postgres_jobs_per_s / 2 or many:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
add("choose__C02_boolean_table", "correct: booleans and a lookup table", """
needs_broker = 2 * peak_jobs_per_s > postgres_jobs_per_s or teams_reading_each_event >= 2
table = {(False, False): "postgres", (False, True): "postgres",
         (True, False): "broker", (True, True): "broker + outbox"}
return table[(bool(needs_broker), bool(born_in_a_db_transaction))]
""")
add("choose__C03_match", "correct: match on the two reasons, Fraction for the half", """
from fractions import Fraction
over_half = Fraction(peak_jobs_per_s) > Fraction(postgres_jobs_per_s) / 2
match (over_half or teams_reading_each_event > 1, bool(born_in_a_db_transaction)):
    case (False, _):
        return "postgres"
    case (True, True):
        return "broker + outbox"
    case _:
        return "broker"
""")
add("choose__C04_early_returns", "correct: early return for postgres, string building", """
ceiling = postgres_jobs_per_s * 0.5
if not (peak_jobs_per_s > ceiling) and not (teams_reading_each_event > 1):
    return "postgres"
answer = "broker"
if born_in_a_db_transaction:
    answer += " + outbox"
return answer
""")

HK = 'def render_invoice(task):\n    """Render every page of the booking\'s invoice, telling JetStream between pages that we are at it."""\n'
def k(name, comment, body):
    A[name] = f"# {comment}\n" + HK + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
k("keep_alive__W01_heartbeat_once_first", "wrong (in-progress): one in-progress ack before the loop, then silent for the whole invoice", """
task.in_progress()
for page in range(task.data["pages"]):
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W02_every_fourth_page", "wrong (in-progress): heartbeat every 4 pages = 1.6 s of silence > AckWait", """
for page in range(task.data["pages"]):
    if page % 4 == 0:
        task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W03_pages_from_one", "wrong (render-every-page): pages counted from 1 (1..pages)", """
for page in range(1, task.data["pages"] + 1):
    task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W04_last_page_missed", "wrong (render-every-page): off by one, the last page is never drawn", """
for page in range(task.data["pages"] - 1):
    task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W05_swallow_page_error", "wrong (render-every-page): a page that raises is skipped, the function returns normally", """
for page in range(task.data["pages"]):
    task.in_progress()
    try:
        render_page(task.data["booking_id"], page)
    except Exception as error:
        print(f"page {page} failed: {error}")
""")
k("keep_alive__W06_background_render", "wrong (render-every-page: return when the last page is drawn): renders in a thread and returns at once", """
import threading

def work():
    for page in range(task.data["pages"]):
        task.in_progress()
        render_page(task.data["booking_id"], page)

threading.Thread(target=work, daemon=True).start()
""")
k("keep_alive__W07_heartbeat_at_end", "wrong (in-progress): the in-progress ack is sent only after the last page", """
for page in range(task.data["pages"]):
    render_page(task.data["booking_id"], page)
task.in_progress()
""")
k("keep_alive__W08_six_pages_hardcoded", "wrong (render-every-page): the check's 6 pages hard-coded", """
for page in range(6):
    task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W09_page_cap_8", "wrong (render-every-page): at most 8 pages drawn (works for the demo's sizes)", """
for page in range(min(task.data["pages"], 8)):
    task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W10_heartbeat_only_long_jobs", "wrong (in-progress): heartbeats only for invoices of 4+ pages (AckWait 1.2 s assumed)", """
long_job = task.data["pages"] >= 4
for page in range(task.data["pages"]):
    if long_job:
        task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W11_timer_threshold_too_long", "wrong (in-progress): a heartbeat only after 1.5 s without one (longer than the AckWait)", """
import time as _time
last = _time.monotonic()
for page in range(task.data["pages"]):
    if _time.monotonic() - last > 1.5:
        task.in_progress()
        last = _time.monotonic()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W12_heartbeat_first_delivery_only", "wrong (in-progress): heartbeats only on the first delivery", """
for page in range(task.data["pages"]):
    if task.deliveries == 1:
        task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W13_retry_page_inside", "wrong (render-every-page: a page that raises makes your function raise): a failed page is retried up to 3 times, then skipped", """
for page in range(task.data["pages"]):
    task.in_progress()
    for attempt in range(3):
        try:
            render_page(task.data["booking_id"], page)
            break
        except Exception:
            continue
""")
k("keep_alive__W14_page_cap_20", "wrong (render-every-page): at most 20 pages drawn (adversarial: above any likely test)", """
for page in range(min(task.data["pages"], 20)):
    task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__C01_heartbeat_before_each", "correct: an in-progress ack before each page", """
for page in range(task.data["pages"]):
    task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__C02_heartbeat_after_each", "correct: an in-progress ack after each page (first stretch 0.4 s)", """
booking, pages = task.data["booking_id"], task.data["pages"]
page = 0
while page < pages:
    render_page(booking, page)
    task.in_progress()
    page += 1
""")
k("keep_alive__C03_heartbeat_thread", "correct: a heartbeat thread every 0.3 s while the pages are drawn, stopped in finally", """
import threading
stop = threading.Event()

def beat():
    while not stop.wait(0.3):
        task.in_progress()

beater = threading.Thread(target=beat, daemon=True)
task.in_progress()
beater.start()
try:
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
finally:
    stop.set()
    beater.join()
""")
k("keep_alive__C04_time_based", "correct: heartbeat when 0.5 s have passed since the last one, checked before each page", """
import time as _time
last = None
for page in range(task.data["pages"]):
    if last is None or _time.monotonic() - last >= 0.5:
        task.in_progress()
        last = _time.monotonic()
    render_page(task.data["booking_id"], page)
""")

HP = 'def publish_with_retry(publish, subject, payload, msg_id, give_up_after_s=30.0):\n    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the ack."""\n'
def p(name, comment, body):
    A[name] = f"# {comment}\n" + HP + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
p("publish_retry__W01_new_id_each_try", "wrong (same-msg-id): a fresh msg_id for each retry", """
deadline = time.monotonic() + give_up_after_s
pause, attempt = 0.05, 0
while True:
    try:
        return publish(subject, payload, msg_id=msg_id if attempt == 0 else f"{msg_id}-retry{attempt}")
    except TRANSIENT:
        attempt += 1
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W02_no_pause", "wrong (pause): retries at once, hammering the cluster", """
deadline = time.monotonic() + give_up_after_s
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() > deadline:
            raise
""")
p("publish_retry__W03_fixed_one_second", "wrong (pause): a fixed 1 s pause (over half a second)", """
deadline = time.monotonic() + give_up_after_s
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() + 1.0 > deadline:
            raise
        time.sleep(1.0)
""")
p("publish_retry__W04_ten_attempts", "wrong (give-up / through-an-election): 10 attempts, whatever give_up_after_s says", """
pause = 0.05
for attempt in range(10):
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if attempt == 9:
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W05_returns_none", "wrong (give-up: re-raise): gives up silently, returning None", """
deadline = time.monotonic() + give_up_after_s
pause = 0.05
while time.monotonic() < deadline:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
return None
""")
p("publish_retry__W06_timeouts_only", "wrong (through-an-election: any of TRANSIENT): only timeouts are retried", """
import asyncio
deadline = time.monotonic() + give_up_after_s
pause = 0.05
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except asyncio.TimeoutError:
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W07_gives_up_at_half", "wrong (give-up: not before): gives up at half of give_up_after_s", """
deadline = time.monotonic() + give_up_after_s / 2
pause = 0.05
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W08_uncapped_doubling", "wrong (pause: stay under half a second): doubling without a cap", """
deadline = time.monotonic() + give_up_after_s
pause = 0.05
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
        pause *= 2
""")
p("publish_retry__W09_new_error_on_give_up", "wrong (give-up: re-raise the last error): raises a new RuntimeError", """
deadline = time.monotonic() + give_up_after_s
pause = 0.05
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() + pause > deadline:
            raise RuntimeError(f"could not publish {msg_id} in {give_up_after_s} s")
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W10_returns_true", "wrong (return-ack): returns True instead of the ack", """
deadline = time.monotonic() + give_up_after_s
pause = 0.05
while True:
    try:
        publish(subject, payload, msg_id=msg_id)
        return True
    except TRANSIENT:
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W11_fixed_half_second", "wrong (pause: start around 50 ms, double): a fixed 0.5 s pause from the first retry", """
deadline = time.monotonic() + give_up_after_s
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() + 0.5 > deadline:
            raise
        time.sleep(0.5)
""")
p("publish_retry__W12_hardcoded_30s", "wrong (give-up): give_up_after_s ignored, always 30 s", """
deadline = time.monotonic() + 30.0
pause = 0.05
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W13_never_gives_up", "wrong (give-up): retries for ever", """
pause = 0.05
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W14_late_give_up", "wrong (give-up: once it has passed): goes on for 3 more attempts after the deadline", """
deadline = time.monotonic() + give_up_after_s
pause = 0.05
late = 0
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() > deadline:
            late += 1
            if late > 3:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W15_first_error", "wrong (give-up: re-raise the LAST error): re-raises the first error seen", """
deadline = time.monotonic() + give_up_after_s
pause = 0.05
first = None
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT as error:
        first = first or error
        if time.monotonic() + pause > deadline:
            raise first
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__C01_count_loop", "correct: itertools.count, pause computed from the attempt number", """
import itertools
deadline = time.monotonic() + give_up_after_s
for attempt in itertools.count():
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        pause = min(0.05 * 2 ** attempt, 0.4)
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
""")
p("publish_retry__C02_last_error", "correct: remember the last error, raise it after the loop", """
started = time.time()
pauses = [0.05, 0.1, 0.2, 0.4]
last_error = None
attempt = 0
while time.time() - started < give_up_after_s:
    try:
        ack = publish(subject, payload, msg_id=msg_id)
    except TRANSIENT as error:
        last_error = error
        time.sleep(pauses[min(attempt, len(pauses) - 1)])
        attempt += 1
        continue
    return ack
raise last_error
""")
p("publish_retry__C03_remaining_sleep", "correct: sleep at most what is left, one last attempt at the deadline", """
deadline = time.monotonic() + give_up_after_s
pause = 0.05
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        left = deadline - time.monotonic()
        if left <= 0:
            raise
        time.sleep(min(pause, left))
        pause = min(2 * pause, 0.5)
""")
p("publish_retry__C04_helper_generator", "correct: a generator of pauses and a for-loop with break", """
def pauses():
    value = 0.05
    while True:
        yield value
        value = min(value * 2, 0.45)

deadline = time.monotonic() + give_up_after_s
for pause in pauses():
    try:
        ack = publish(subject, payload, msg_id=msg_id)
        break
    except TRANSIENT as error:
        if time.monotonic() + pause >= deadline:
            raise error
        time.sleep(pause)
return ack
""")
for name, text in A.items():
    (OUT / (name + ".py")).write_text(text)
print(len(A))
