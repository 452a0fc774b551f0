# exercise: 01.lose_a_receipt
# kind: correct
# rule: correct (signals sent with os.kill, waiting for the process to end; a long outage() ended by healthy())
import os
import signal


def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        n = provider.stats()["requests"]
        provider.outage(600)
        order = app.place_order(2, total_cents=4321)
        processes.wait_until(lambda: provider.stats()["requests"] > n, timeout=60, what="a send refused")
        provider.healthy()
        return order["id"]
    sig = {"deploy": signal.SIGTERM, "crash": signal.SIGKILL}[how]
    order = app.place_order(2, total_cents=4321)
    os.kill(app.pid, sig)
    processes.wait_until(lambda: not app.alive(), timeout=60, what="the checkout to end")
    return order["id"]
