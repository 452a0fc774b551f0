"""The evidence tools: how fast the queue is, and what it loses when things die.

    bench        `python -m course bench`: the queue against pgqueuer, procrastinate and bare SQL
    benchmarks/  the pieces behind it: drainers, peers, measurements, profiling
    chaos        `python -m course chaos`: kill workers and the database at random; count what was lost
"""
