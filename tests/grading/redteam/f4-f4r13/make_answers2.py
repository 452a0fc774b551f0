import textwrap, pathlib
import make_answers as m  # rewrites the first set too (same content)
A = {}
def k(name, comment, body):
    A[name] = f"# {comment}\n" + m.HK + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
def p(name, comment, body):
    A[name] = f"# {comment}\n" + m.HP + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
def c(name, comment, body):
    A[name] = f"# {comment}\n" + m.H + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
k("keep_alive__W15_each_page_twice", "wrong (once / render-every-page): every page drawn twice (a 'make sure' redraw)", """
for page in range(task.data["pages"]):
    task.in_progress()
    render_page(task.data["booking_id"], page)
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W16_every_third_page", "wrong (in-progress): heartbeat every 3 pages = 1.2 s + overhead, silent as long as the AckWait", """
for page in range(task.data["pages"]):
    if page % 3 == 0:
        task.in_progress()
    render_page(task.data["booking_id"], page)
""")
k("keep_alive__W17_swallow_then_raise_nothing_on_last", "wrong (render-every-page): errors caught; only an error on the LAST page is raised", """
pages = task.data["pages"]
for page in range(pages):
    task.in_progress()
    try:
        render_page(task.data["booking_id"], page)
    except Exception:
        if page == pages - 1:
            raise
""")
p("publish_retry__W16_duplicate_means_retry", "wrong (same-msg-id): a duplicate ack is taken as 'not stored' and published again under a new id", """
deadline = time.monotonic() + give_up_after_s
pause = 0.05
current = msg_id
while True:
    try:
        ack = publish(subject, payload, msg_id=current)
        if getattr(ack, "duplicate", False):
            current = msg_id + "-again"
            continue
        return ack
    except TRANSIENT:
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)
""")
p("publish_retry__W17_random_jitter_to_2s", "wrong (pause: stay under about half a second): random pause up to 2 s", """
import random
deadline = time.monotonic() + give_up_after_s
while True:
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        pause = random.uniform(0.05, 2.0)
        if time.monotonic() + pause > deadline:
            raise
        time.sleep(pause)
""")
p("publish_retry__W18_three_second_cap", "wrong (through-an-election / give-up): never tries longer than 3 s, whatever give_up_after_s says", """
deadline = time.monotonic() + min(give_up_after_s, 3.0)
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
c("choose__W13_outbox_means_postgres", "wrong (over-half / outbox): jobs born in a transaction stay on postgres unless many teams", """
if born_in_a_db_transaction and teams_reading_each_event <= 1:
    return "postgres"
if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
c("choose__W14_half_hardcoded_for_example", "wrong (over-half): exactly half special-cased only for round numbers (peak*2 == pg treated as broker unless pg is a multiple of 1000)", """
if peak_jobs_per_s * 2 == postgres_jobs_per_s and postgres_jobs_per_s % 1000:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
    return "broker + outbox" if born_in_a_db_transaction else "broker"
return "postgres"
""")
for name, text in A.items():
    (m.OUT / (name + ".py")).write_text(text)
print(len(A))
