"""What the class summary flags (course/grading/integrity.py): the same code under other names, and a
checker's report that does not add up."""

from __future__ import annotations

from course.grading.integrity import Events, identical_answers, same_answer_key

CLAIM = '''
def claim(conn, lease_s):
    """Lease the oldest ready job."""
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload""", [lease_s]).fetchone()
'''
RENAMED = '''
def claim(connection, seconds):
    # my own claim
    row = connection.execute("""UPDATE jobs SET locked_until = now() + make_interval(secs => %s),
        attempts = attempts + 1 WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL
        OR locked_until < now()) ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, type, payload""",
        [seconds]).fetchone()
    return row
'''


def test_names_comments_and_layout_do_not_make_an_answer_different():
    same_but_renamed = CLAIM.replace("conn", "c").replace("lease_s", "seconds").replace("\n    ", "\n  ")
    assert same_answer_key(CLAIM) == same_answer_key(same_but_renamed)
    assert same_answer_key(CLAIM) != same_answer_key(CLAIM.replace("ORDER BY run_at", "ORDER BY id"))
    assert same_answer_key(CLAIM) != same_answer_key(RENAMED)  # a variable more: other code
    assert same_answer_key("def broken(:") is None


def test_groups_of_students_with_the_same_code_but_not_the_stub_or_the_solution():
    stub = "def claim(conn, lease_s):\n    raise NotImplementedError\n"
    other = CLAIM.replace("ORDER BY run_at", "ORDER BY run_at, id")
    cells = {"ana": {"03.claim": CLAIM.replace("conn", "db")}, "ben": {"03.claim": CLAIM},
             "cy": {"03.claim": stub}, "dee": {"03.claim": stub}, "eve": {"03.claim": other},
             "fay": {"03.claim": other.replace("lease_s", "ttl")}}
    assert identical_answers(cells, ["03.claim"], not_counted={"03.claim": [stub]}) == [
        ("03.claim", ["ana", "ben"]), ("03.claim", ["eve", "fay"])]
    assert identical_answers(cells, ["03.claim"], not_counted={"03.claim": [stub, CLAIM]}) == [
        ("03.claim", ["eve", "fay"])]


def test_a_checkers_report_that_does_not_add_up_is_flagged():
    events = Events(asked=["03.claim", "03.quiz"])
    assert events.take({"event": "result", "exercise": "03.claim", "status": "passed"})  # never started
    events.take({"event": "start", "exercise": "03.quiz"})
    assert events.take({"event": "result", "exercise": "03.quiz", "status": "failed"})
    assert events.take({"event": "result", "exercise": "03.quiz", "status": "passed"}) is None  # the first counts
    assert events.take({"event": "result", "exercise": "04.ack", "status": "passed"}) is None
    events.take({"event": "leftovers", "processes": [[123, "python -c daemon"]]})
    assert events.results["03.quiz"]["status"] == "failed"
    assert len(events.flags) == 4 and "never started" in events.flags[0] and "pid 123" in events.flags[3]


def test_a_cell_the_parser_gives_up_on_stops_no_comparison():
    """hostile3, attack 5: a ring hands in one answer under other names; a third student's cell of 20,000
    terms made ast.parse raise RecursionError (and 20,000 unary minuses, MemoryError), which stopped the
    comparison for the whole class. Such a cell is no answer to compare; the ring is still found."""
    sum_of_ones = "x = " + "+".join(["1"] * 20_000)
    minuses = "x = " + "-" * 20_000 + "1"
    assert same_answer_key(sum_of_ones) is None and same_answer_key(minuses) is None
    cells = {"ana": {"03.claim": CLAIM}, "ben": {"03.claim": CLAIM.replace("conn", "db")},
             "cy": {"03.claim": sum_of_ones}, "dee": {"03.claim": minuses}}
    assert identical_answers(cells, ["03.claim"], not_counted={}) == [("03.claim", ["ana", "ben"])]
