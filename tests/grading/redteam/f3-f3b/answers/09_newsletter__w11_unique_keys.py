# RULE: one-job-per-guest (arguable): unique key per guest: a second newsletter, or a guest listed twice, stores nothing
def enqueue_newsletter(conn, guest_ids):
    """Enqueue one send_newsletter job per guest, below the default priority, in one transaction."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                              priority=NEWSLETTER_PRIORITY, unique_keys=[f"newsletter:{g}" for g in guest_ids])
