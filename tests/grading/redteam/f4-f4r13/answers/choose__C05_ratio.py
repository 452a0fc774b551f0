# correct: the ratio of peak to drain rate, compared with 0.5; the teams as a count of "other" teams
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    utilisation = peak_jobs_per_s / postgres_jobs_per_s
    other_teams = teams_reading_each_event - 1
    if utilisation <= 0.5 and other_teams <= 0:
        return "postgres"
    return "broker + outbox" if born_in_a_db_transaction else "broker"
