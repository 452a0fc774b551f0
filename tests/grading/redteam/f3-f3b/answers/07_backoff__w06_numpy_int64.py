# RULE: seconds/cap for any attempt: numpy int64 power wraps to 0 from attempt 65 (ceiling 0)
import numpy as np

def backoff(attempt, rng):
    """Seconds to wait after attempt `attempt` failed: random(0, min(300, 2^(attempt-1)))."""
    ceiling = min(CAP_S, float(np.int64(2) ** np.int64(attempt - 1)))
    return rng.uniform(0, ceiling)
