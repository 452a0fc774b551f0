import math


def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    half = postgres_jobs_per_s / 2
    # exactly half is not over it; measured rates are floats, so "exactly" within a percent
    over = peak_jobs_per_s > half and not math.isclose(peak_jobs_per_s, half, rel_tol=0.01)
    if over or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"
