# expect: correct
# rule: correct (down=True, wait on the provider's down count, healthy() in a finally)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how != "provider_error":
        placed = app.place_order(5, items=[{"name": "dal", "quantity": 1, "price_cents": 700}])
        (app.terminate if how == "deploy" else app.kill)()
        return placed["id"]
    refused_before = provider.stats()["by_outcome"].get("down", 0)
    provider.configure(down=True)
    try:
        placed = app.place_order(5, items=[{"name": "dal", "quantity": 1, "price_cents": 700}])
        processes.wait_until(lambda: provider.stats()["by_outcome"].get("down", 0) > refused_before, timeout=60)
    finally:
        provider.healthy()
    return placed["id"]
