# exercise: 01.lose_a_receipt
# kind: correct
# rule: correct (the hint-style if/elif; failure_rate=1 and healthy(), waiting on stats()["by_outcome"])
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        failed_before = provider.stats()["by_outcome"].get("failed", 0)
        provider.configure(failure_rate=1)
        order_id = app.place_order(1, items=[{"name": "dal", "quantity": 1, "price_cents": 700}])["id"]
        processes.wait_until(lambda: provider.stats()["by_outcome"].get("failed", 0) > failed_before, timeout=60)
        provider.healthy()
    elif how == "crash":
        order_id = app.place_order(1, total_cents=700)["id"]
        app.kill()
    elif how == "deploy":
        order_id = app.place_order(1, total_cents=700)["id"]
        app.terminate()
    else:
        raise ValueError(how)
    return order_id
