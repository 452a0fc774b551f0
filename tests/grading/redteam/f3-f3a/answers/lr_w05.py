# exercise: 01.lose_a_receipt
# kind: wrong
# rule: return-order-id (returns the id as text)
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        before = len(provider.requests())
        provider.configure(down=True)
        order = app.place_order(1, total_cents=1000)
        processes.wait_until(lambda: len(provider.requests()) > before, timeout=60)
        provider.healthy()
    else:
        order = app.place_order(1, total_cents=1000)
        app.terminate() if how == "deploy" else app.kill()
    return str(order["id"])
