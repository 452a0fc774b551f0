"""The mutation sweep (course.authoring.mutants): its operators make the mutants they promise, and a sweep
of one cheap exercise kills the mutants its checks exist for."""

import ast

from course.authoring import mutants

BACKOFF = '''
def retry_delay(attempt):
    """Full jitter, capped."""
    return random.uniform(0.0, min(300.0, 2.0 ** (attempt - 1)))
'''

HANDLER = '''
def confirm(job, conn):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if row is None:
            return
        send_email(url, "to", "subject", "body", idempotency_key=f"confirm:{row[0]}")
'''


def by_operator(source, literals=()):
    found = {}
    for mutant in mutants.mutants(source, literals):
        found.setdefault(mutant.operator, []).append(mutant)
    return found


def test_the_cap_moves_outside_the_draw_and_the_exponent_is_shifted():
    found = by_operator(BACKOFF)
    [outside] = found["move the min() cap outside the random draw"]
    assert "min(300.0, random.uniform(0.0, 2.0 ** (attempt - 1)))" in outside.source
    [shifted] = found["swap - 1 for + 1"]
    assert "2.0 ** (attempt + 1)" in shifted.source


def test_handler_mutations_remove_the_transaction_the_key_and_a_where_term():
    found = by_operator(HANDLER, literals=[1])
    [no_transaction] = found["remove `with conn.transaction():` (its body runs in autocommit)"]
    assert "transaction" not in no_transaction.source
    ast.parse(no_transaction.source)  # the body was dedented, not left hanging
    [no_key] = found["drop the keyword argument idempotency_key="]
    assert "idempotency_key" not in no_key.source
    [no_and] = found["drop an AND term"]
    assert "status = 'pending'" not in no_and.source and "WHERE id = %s" in no_and.source
    assert any("[1]" in m.source for m in found["replace a query parameter by the demo's literal 1"])
    assert any("if row is None" not in m.source for m in found["drop a guard (if ...: return/continue/raise)"])


CHECKOUT = '''
def checkout(conn, guest_id, room_id, nights):
    payment = charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = insert_booking(conn, payment)
        enqueue(conn, booking_id)
    return booking_id
'''


def test_statements_move_into_and_out_of_the_transaction():
    found = by_operator(CHECKOUT)
    [inside] = found["move the statement before a transaction into it"]
    body = ast.parse(inside.source).body[0].body
    assert isinstance(body[0], ast.With) and "charge" in ast.unparse(body[0].body[0]), inside.source
    [first_out] = found["move the transaction's first statement out, before it"]
    body = ast.parse(first_out.source).body[0].body
    assert "insert_booking" in ast.unparse(body[1]) and isinstance(body[2], ast.With), first_out.source
    [last_out] = found["move the transaction's last statement out, after it"]
    body = ast.parse(last_out.source).body[0].body
    assert isinstance(body[1], ast.With) and "enqueue" in ast.unparse(body[2]), last_out.source


def test_every_mutant_differs_from_the_solution_and_compiles():
    for source in (BACKOFF, HANDLER):
        original = ast.unparse(ast.parse(source))
        for mutant in mutants.mutants(source, [1, 981]):
            assert mutant.source != original
            compile(mutant.source, "<mutant>", "exec")
            assert mutant.diff.startswith("--- solution")


def test_a_sweep_of_03_claim_kills_the_mutants_its_checks_exist_for(database):
    wanted = {"drop SKIP LOCKED", "drop the row lock (FOR UPDATE ...)", "drop ORDER BY"}
    result = mutants.sweep("03.claim", operators=lambda name: name in wanted, progress=False, timeout_s=240)
    assert result.baseline == "passed", result.baseline
    assert {o.mutant.operator for o in result.outcomes} == wanted
    assert result.survivors == [], mutants.render(result)
    text = mutants.render(result)
    assert text.startswith("03.claim: 3 mutants tried, 3 killed")
