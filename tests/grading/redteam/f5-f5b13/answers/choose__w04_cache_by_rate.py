_decided = {}


def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    key = (peak_jobs_per_s, postgres_jobs_per_s)  # the same numbers, the same decision
    if key not in _decided:
        if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
            _decided[key] = "broker + outbox" if born_in_a_db_transaction else "broker"
        else:
            _decided[key] = "postgres"
    return _decided[key]
