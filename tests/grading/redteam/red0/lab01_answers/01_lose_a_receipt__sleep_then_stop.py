# expect: wrong
# rule: deploy-sigterm/crash-sigkill (waits 2 s "for the order to settle" before stopping: the receipt is out by then)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        provider.configure(down=True)
        before = len(provider.requests())
        order_id = app.place_order(1, total_cents=1000)["id"]
        processes.wait_until(lambda: len(provider.requests()) > before, timeout=30)
        provider.healthy()
        return order_id
    order_id = app.place_order(1, total_cents=1000)["id"]
    time.sleep(2)
    app.terminate() if how == "deploy" else app.kill()
    return order_id
