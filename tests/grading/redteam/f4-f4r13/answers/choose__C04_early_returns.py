# correct: early return for postgres, string building
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    ceiling = postgres_jobs_per_s * 0.5
    if not (peak_jobs_per_s > ceiling) and not (teams_reading_each_event > 1):
        return "postgres"
    answer = "broker"
    if born_in_a_db_transaction:
        answer += " + outbox"
    return answer
