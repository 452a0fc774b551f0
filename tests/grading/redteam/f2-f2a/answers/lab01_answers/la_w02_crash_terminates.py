# exercise: 01.lose_a_receipt
# kind: wrong
# rule: crash-sigkill ("crash" sends SIGTERM)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how in ("deploy", "crash"):
        order_id = app.place_order(2, total_cents=1250)["id"]
        app.terminate()
        return order_id
    seen = len(provider.requests())
    provider.configure(down=True)
    order_id = app.place_order(2, total_cents=1250)["id"]
    processes.wait_until(lambda: len(provider.requests()) > seen, 30)
    provider.healthy()
    return order_id
