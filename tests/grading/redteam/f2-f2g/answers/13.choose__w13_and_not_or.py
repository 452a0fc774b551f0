# wrong: many-teams -- needs both a high peak AND many teams (and, not or)
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > postgres_jobs_per_s / 2 and teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    if peak_jobs_per_s > postgres_jobs_per_s / 2:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
