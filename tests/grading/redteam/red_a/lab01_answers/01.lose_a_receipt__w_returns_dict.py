# expect: wrong
# rule: return-order-id: returns the order dict
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.configure(down=True)
    order = app.place_order(1, total_cents=1200)
    if how == "provider_error":
        processes.wait_until(lambda: any(r.outcome == "down" for r in provider.requests()), timeout=30)
        provider.healthy()
    elif how == "deploy":
        app.terminate()
    else:
        app.kill()
    return order
