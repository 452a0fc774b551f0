# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses (the outage starts only after the order, once the receipt is being rendered: works only if rendering is slower than the HTTP round trips)
def lose_a_receipt(app, provider, how):
    order_id = app.place_order(1, total_cents=1000)["id"]
    if how == "deploy":
        app.terminate()
    elif how == "crash":
        app.kill()
    else:
        before = len(provider.requests())
        provider.configure(down=True)
        processes.wait_until(lambda: len(provider.requests()) > before, timeout=60)
        provider.healthy()
    return order_id
