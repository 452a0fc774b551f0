"""The grading boundary: the checks call the learner's functions in another process, and decide alone.

When a class is graded, a notebook's cells never run in a process that decides a verdict. Two
processes per notebook:

    the checker (trusted)      runs the exercise's checks, its database connections, the email
                               provider, the workers' supervisor; writes the results
    the answer host (sandboxed) runs the notebook's setup cells and exercise cells, and nothing else

A check calls `claim(conn, 30)` as it always did; `claim` is a trusted.Answer, and the call crosses:
    wire.py      frames of JSON and the tagged values in them (no pickle, no code)
    peer.py      calls both ways, nested, from many threads (a `chain` per conversation)
    lending.py   what the checks may lend (a connection: statements and transactions; a random
                 generator; a function; an object's listed methods), and for how long
    admit.py     what may come back (data, the course's dataclasses, allowlisted exceptions; anything
                 else Opaque, equal to nothing)
    serving.py   the checker's end of the channel: what the answer asks of lent objects, checked
    trusted.py   the Answer (the learner's function as the checks hold it), the AnswerHost process
    facades.py   the answer's end: what its code holds instead of the lent objects
    host.py      the answer host's main: run cells, call answers, pickle one for a worker
"""
