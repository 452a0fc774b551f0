# exercise: 01.lose_a_receipt
# kind: wrong
# rule: deploy-sigterm ("deploy" sends SIGKILL)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how in ("deploy", "crash"):
        order_id = app.place_order(1, total_cents=1250)["id"]
        app.kill()
        return order_id
    seen = len(provider.requests())
    provider.configure(down=True)
    order_id = app.place_order(1, total_cents=1250)["id"]
    processes.wait_until(lambda: len(provider.requests()) > seen, 30)
    provider.healthy()
    return order_id
