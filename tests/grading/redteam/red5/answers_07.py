B, R = "07.backoff", "07.route"
ANSWERS = {
# ---------------- 07.backoff: wrong
"backoff_w01_no_cap": (B, "wrong", "cap", '''
def backoff(attempt, rng):
    return rng.uniform(0, 2 ** (attempt - 1))
'''),
"backoff_w02_cap_after_draw": (B, "wrong", "cap (cap the ceiling, then draw)", '''
def backoff(attempt, rng):
    return min(CAP_S, rng.uniform(0, 2 ** min(attempt - 1, 60)))
'''),
"backoff_w03_no_jitter": (B, "wrong", "full-jitter", '''
def backoff(attempt, rng):
    return min(CAP_S, 2 ** (attempt - 1))
'''),
"backoff_w04_off_by_one": (B, "wrong", "ceiling (2^(attempt-1))", '''
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** attempt))
'''),
"backoff_w05_equal_jitter": (B, "wrong", "full-jitter (half fixed, half random)", '''
def backoff(attempt, rng):
    ceiling = min(CAP_S, 2 ** (attempt - 1))
    return ceiling / 2 + rng.uniform(0, ceiling / 2)
'''),
"backoff_w06_global_random": (B, "wrong", "given-rng", '''
def backoff(attempt, rng):
    return random.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
'''),
"backoff_w07_cap_600": (B, "wrong", "cap (10 minutes, not 5)", '''
def backoff(attempt, rng):
    return rng.uniform(0, min(600, 2 ** (attempt - 1)))
'''),
"backoff_w08_cap_256": (B, "wrong", "cap (exponent capped at 8: 256 s, not 300)", '''
def backoff(attempt, rng):
    return rng.uniform(0, 2 ** min(attempt - 1, 8))
'''),
"backoff_w09_floor_100ms": (B, "wrong", "full-jitter (drawn from 0.1 s, not 0)", '''
def backoff(attempt, rng):
    return rng.uniform(0.1, min(CAP_S, 2 ** (attempt - 1)))
'''),
"backoff_w10_small_attempts_only": (B, "wrong", "seconds / cap (attempts past 50 get no wait)", '''
def backoff(attempt, rng):
    if attempt > 50:
        return 0.0   # the job is long dead by then
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
'''),
"backoff_w11_int_seconds": (B, "wrong", "full-jitter (whole seconds)", '''
def backoff(attempt, rng):
    return int(rng.uniform(0, min(CAP_S, 2 ** (attempt - 1))))
'''),
"backoff_w12_milliseconds": (B, "wrong", "seconds (milliseconds)", '''
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1))) * 1000
'''),
"backoff_w13_randint": (B, "wrong", "full-jitter (whole numbers drawn)", '''
def backoff(attempt, rng):
    return float(rng.randint(0, int(min(CAP_S, 2 ** (attempt - 1)))))
'''),
"backoff_w14_reseeds_rng": (B, "wrong", "full-jitter / given-rng (reseeded: the same wait every time)", '''
def backoff(attempt, rng):
    rng.seed(attempt)
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
'''),
"backoff_w15_float_overflow": (B, "wrong", "seconds (attempts in the thousands: OverflowError)", '''
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, 2.0 ** (attempt - 1)))
'''),
"backoff_w16_triangular": (B, "wrong", "full-jitter (not even)", '''
def backoff(attempt, rng):
    return rng.triangular(0, min(CAP_S, 2 ** (attempt - 1)))
'''),
"backoff_w17_budget_cap": (B, "wrong", "cap / grows (after attempt 8, always the cap)", '''
def backoff(attempt, rng):
    if attempt > 8:
        return CAP_S
    return rng.uniform(0, 2 ** (attempt - 1))
'''),
"backoff_w18_sqrt_random": (B, "wrong", "full-jitter (skewed towards the ceiling)", '''
def backoff(attempt, rng):
    return min(CAP_S, 2 ** (attempt - 1)) * rng.random() ** 0.5
'''),
"backoff_w19_min_one_second": (B, "wrong", "ceiling (attempt 1 waits up to 2 s: max(1, ...))", '''
def backoff(attempt, rng):
    return rng.uniform(0, min(CAP_S, max(2, 2 ** (attempt - 1))))
'''),
# ---------------- 07.backoff: correct
"backoff_c01_hint": (B, "correct", "correct (hint 4 word for word)", '''
def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    return rng.uniform(0, min(CAP_S, 2 ** (attempt - 1)))
'''),
"backoff_c02_random_times_ceiling": (B, "correct", "correct (ceiling * rng.random(), float guard)", '''
def backoff(attempt, rng):
    ceiling = CAP_S if attempt > 20 else min(CAP_S, 2.0 ** (attempt - 1))
    return ceiling * rng.random()
'''),
"backoff_c03_course_function": (B, "correct", "correct (backoff_delay with the rng)", '''
def backoff(attempt, rng):
    return backoff_delay(attempt, rng=rng)
'''),
"backoff_c04_doubling_loop": (B, "correct", "correct (doubling loop)", '''
def backoff(attempt, rng):
    ceiling = 1.0
    for _ in range(attempt - 1):
        ceiling = min(ceiling * 2, CAP_S)
        if ceiling == CAP_S:
            break
    return rng.uniform(0.0, ceiling)
'''),
"backoff_c05_reversed_uniform": (B, "correct", "correct (uniform(ceiling, 0), bit shift)", '''
def backoff(attempt, rng):
    return rng.uniform(min(CAP_S, 1 << (attempt - 1)), 0)
'''),
"backoff_c06_ceiling_helper": (B, "correct", "correct (backoff_ceiling)", '''
def backoff(attempt, rng):
    top = backoff_ceiling(attempt)
    return top - rng.uniform(0, top)
'''),
# ---------------- 07.route: wrong
"route_w01_budget_first": (R, "wrong", "permanent-first", '''
def route(job, error):
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w02_budget_off_by_one": (R, "wrong", "budget (> instead of >=)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts > job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w03_budget_plus_one": (R, "wrong", "budget (attempts + 1)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts + 1 >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w04_ignores_retry_after": (R, "wrong", "retry-after", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(backoff_delay(job.attempts))
'''),
"route_w05_retry_after_replaces": (R, "wrong", "retry-after (the larger of the two)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    retry_after = getattr(error, "retry_after_s", None)
    if retry_after is not None:
        return queue.Retry(retry_after)
    return queue.Retry(backoff_delay(job.attempts))
'''),
"route_w06_sum": (R, "wrong", "retry-after (sum, not the larger)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(backoff_delay(job.attempts) + (getattr(error, "retry_after_s", None) or 0))
'''),
"route_w07_attribute_error": (R, "wrong", "others-transient (error.retry_after_s on any error)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if error.retry_after_s:
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w08_only_email_rejected": (R, "wrong", "permanent-first (any PermanentError)", '''
from course.programs.email_provider import EmailRejected

def route(job, error):
    if isinstance(error, EmailRejected):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w09_backoff_next_attempt": (R, "wrong", "retry-with-backoff (attempts + 1)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts + 1)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w10_hardcoded_8": (R, "wrong", "budget (8 hard-coded)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= 8:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w11_bugs_permanent": (R, "wrong", "others-transient (a bug of ours is permanent)", '''
def route(job, error):
    if isinstance(error, (PermanentError, KeyError, TypeError, ValueError, AttributeError)):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w12_4xx_permanent": (R, "wrong", "others-transient (429/408 are 4xx and transient)", '''
def route(job, error):
    status = getattr(error, "status", None)
    if isinstance(error, PermanentError) or (status is not None and 400 <= status < 500):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w13_min": (R, "wrong", "retry-after (min, not max)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = min(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w14_reason_spelling": (R, "wrong", "budget (reason 'exhausted')", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("exhausted")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w15_ceiling_no_jitter": (R, "wrong", "retry-with-backoff (the ceiling, no jitter)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    return queue.Retry(max(backoff_ceiling(job.attempts), getattr(error, "retry_after_s", None) or 0.0))
'''),
"route_w16_retry_after_only_unavailable": (R, "wrong", "retry-after (only for ProviderUnavailable)", '''
from course.programs.email_provider import ProviderUnavailable

def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if isinstance(error, ProviderUnavailable) and error.retry_after_s:
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w17_timeout_permanent": (R, "wrong", "others-transient (a timeout may have delivered: give up)", '''
def route(job, error):
    if isinstance(error, (PermanentError, TimeoutError)):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_w18_retry_after_capped": (R, "wrong", "retry-after (capped at 300 s)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = min(CAP_S, max(delay_s, error.retry_after_s))
    return queue.Retry(delay_s)
'''),
# ---------------- 07.route: correct
"route_c01_hint": (R, "correct", "correct (hint 4 word for word)", '''
def route(job, error):
    """What to do with `job`, whose attempt just raised `error`: queue.Retry(delay_s) or queue.Dead(reason)."""
    if isinstance(error, PermanentError):
        return queue.Dead("permanent")
    if job.attempts >= job.max_attempts:
        return queue.Dead("max_attempts")
    delay_s = backoff_delay(job.attempts)
    if getattr(error, "retry_after_s", None):
        delay_s = max(delay_s, error.retry_after_s)
    return queue.Retry(delay_s)
'''),
"route_c02_decide": (R, "correct", "correct (queue.decide, then Retry-After)", '''
def route(job, error):
    outcome = queue.decide(job, permanent=isinstance(error, PermanentError))
    asked = getattr(error, "retry_after_s", None)
    if isinstance(outcome, queue.Retry) and asked is not None:
        return queue.Retry(max(outcome.delay_s, asked))
    return outcome
'''),
"route_c03_own_draw": (R, "correct", "correct (own draw of the same law)", '''
def route(job, error):
    if isinstance(error, PermanentError):
        return queue.Dead(reason="permanent")
    elif job.attempts < job.max_attempts:
        floor = getattr(error, "retry_after_s", None) or 0.0
        return queue.Retry(delay_s=max(floor, random.uniform(0, backoff_ceiling(job.attempts))))
    else:
        return queue.Dead(reason="max_attempts")
'''),
"route_c04_match": (R, "correct", "correct (match statement)", '''
def route(job, error):
    match error:
        case PermanentError():
            return queue.Dead("permanent")
    if job.max_attempts <= job.attempts:
        return queue.Dead("max_attempts")
    waits = [backoff_delay(job.attempts)]
    if (asked := getattr(error, "retry_after_s", None)) is not None:
        waits.append(asked)
    return queue.Retry(max(waits))
'''),
}
