# exercise: 01.lose_a_receipt
# kind: wrong
# rule: deploy-sigterm / crash-sigkill (sleeps 2 s before stopping: with a 1.5 s receipt, as at Tiffin, it has gone out; wall-clock luck)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    seen = len(provider.requests())
    if how == "provider_error":
        provider.configure(down=True)
    order_id = app.place_order(1, total_cents=1250)["id"]
    time.sleep(2)  # let the order settle
    if how == "deploy":
        app.terminate()
    elif how == "crash":
        app.kill()
    else:
        processes.wait_until(lambda: len(provider.requests()) > seen, 60)
        provider.healthy()
    return order_id
