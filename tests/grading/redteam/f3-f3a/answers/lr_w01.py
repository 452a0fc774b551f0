# exercise: 01.lose_a_receipt
# kind: wrong
# rule: deploy-sigterm (a "deploy" sent as SIGINT, Ctrl-C, not SIGTERM)
import os
import signal


def lose_a_receipt(app, provider, how):
    order_id = app.place_order(1, total_cents=1000)["id"]
    if how == "deploy":
        os.kill(app.pid, signal.SIGINT)
        processes.wait_until(lambda: not app.alive(), timeout=60)
    elif how == "crash":
        app.kill()
    else:
        provider.configure(down=True)
        before = len(provider.requests())
        processes.wait_until(lambda: len(provider.requests()) > before, timeout=60)
        provider.healthy()
    return order_id
