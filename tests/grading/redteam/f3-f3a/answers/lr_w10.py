# exercise: 01.lose_a_receipt
# kind: wrong
# rule: crash-sigkill / deploy-sigterm swapped (deploy kills, crash terminates)
def lose_a_receipt(app, provider, how):
    order_id = app.place_order(1, total_cents=1000)["id"]
    if how == "deploy":
        app.kill()
    elif how == "crash":
        app.terminate()
    else:
        before = len(provider.requests())
        provider.configure(down=True)
        processes.wait_until(lambda: len(provider.requests()) > before, timeout=60)
        provider.healthy()
    return order_id
