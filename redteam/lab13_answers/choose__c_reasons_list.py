# rule: correct (a list of reasons, joined)
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    reasons = []
    if peak_jobs_per_s / postgres_jobs_per_s > 0.5:
        reasons.append("peak")
    if teams_reading_each_event >= 2:
        reasons.append("teams")
    if not reasons:
        return "postgres"
    return " + ".join(["broker"] + (["outbox"] if born_in_a_db_transaction else []))
