from fractions import Fraction


def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    over_half = Fraction(peak_jobs_per_s) > Fraction(postgres_jobs_per_s) / 2  # exact, even for floats
    many = teams_reading_each_event > 1
    match over_half or many, bool(born_in_a_db_transaction):
        case (False, _):
            return "postgres"
        case (True, True):
            return "broker + outbox"
        case (True, False):
            return "broker"
