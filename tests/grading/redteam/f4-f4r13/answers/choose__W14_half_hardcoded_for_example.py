# wrong (over-half): exactly half special-cased only for round numbers (peak*2 == pg treated as broker unless pg is a multiple of 1000)
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    if peak_jobs_per_s * 2 == postgres_jobs_per_s and postgres_jobs_per_s % 1000:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
