# expect: wrong
# rule: provider-refuses (waits for any request the provider ever had, not this one's refusal)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        provider.configure(down=True)
        order_id = app.place_order(1, total_cents=1000)["id"]
        processes.wait_until(lambda: provider.requests(), timeout=30)
        provider.healthy()
        return order_id
    order_id = app.place_order(1, total_cents=1000)["id"]
    app.terminate() if how == "deploy" else app.kill()
    return order_id
