# exercise: 01.lose_a_receipt
# kind: correct
# rule: correct (signals sent with os.kill to app.pid, waiting for the process to go; an open-ended outage window)
import os
import signal


def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        count = provider.stats()["requests"]
        provider.outage(3600)
        placed = app.place_order(customer_id=4, items=[{"name": "dal", "quantity": 1, "price_cents": 800}])
        processes.wait_until(lambda: provider.stats()["requests"] > count, timeout=120)
        provider.healthy()
        return placed["id"]
    placed = app.place_order(customer_id=4, items=[{"name": "dal", "quantity": 1, "price_cents": 800}])
    os.kill(app.pid, signal.SIGTERM if how == "deploy" else signal.SIGKILL)
    processes.wait_until(lambda: not app.alive(), timeout=60)
    return placed["id"]
