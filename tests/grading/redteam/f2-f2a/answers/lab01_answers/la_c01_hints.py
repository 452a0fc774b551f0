# exercise: 01.lose_a_receipt
# kind: correct
# rule: correct (hints 1-3 word for word)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id. `how`: "deploy", "crash" or "provider_error"."""
    if how == "provider_error":
        seen = len(provider.requests())
        provider.configure(down=True)
        order_id = app.place_order(1, total_cents=1250)["id"]
        processes.wait_until(lambda: len(provider.requests()) > seen, 30)
        provider.healthy()
        return order_id
    order_id = app.place_order(1, total_cents=1250)["id"]
    if how == "deploy":
        app.terminate()
    elif how == "crash":
        app.kill()
    return order_id
