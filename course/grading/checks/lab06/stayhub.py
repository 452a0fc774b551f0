"""Lab 06's StayHub, as both exercises' checks build it: the notebook's tables (`sql.query("lab06", "tables")`),
hotels and bookings unlike the demo's, and a job for a booking as a worker hands it to a handler.

Not the demo's data: the demo has one hotel, id 1, and bookings 981, 982, ... stored in id order. The
worker stage has three hotels (one of them id 1, holding none of the first bookings), bookings from 5307
on, spread over the hotels and stored in an order unlike their ids, so an id copied from the demo, a
hotel written into the code or a missing ORDER BY shows.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, timedelta, timezone

import psycopg

from course.core import queue
from course.programs import sql

from course.grading import faults

PROVIDER_URL_ENV = "EMAIL_PROVIDER_URL"
ROOMS = 40
GUESTS = ["Priya", "Tomas", "Ingrid", "Kwame", "Lucia", "Mateo", "Noor", "Oskar", "Rania", "Sven",
          "Tariq", "Ulla", "Vera", "Wen", "Yusuf", "Zainab"]
HOTELS = {42: "Casa do Rio", 7: "Hotel Aurora", 1: "Pension Lindenhof"}  # in storage order
FIRST_BOOKING = 5307
# How long the worker stages may take once a worker is up: it only bounds a hang. At load 41 a worker SIGKILLed
# by the injector took ~30 s to be back, and a 60 s limit failed a correct answer with a job left unclaimed.
WORKERS_TIMEOUT_S = 180


def hotel_of_booking(n: int) -> int:
    """The n-th booking's hotel: 42 and 7 take turns; hotel 1 gets every fourth booking from the sixth on."""
    return 1 if n >= 5 and n % 4 == 1 else (42, 7)[n % 2]


def email_of(guest: str, booking_id: int) -> str:
    return f"{guest.lower()}.{booking_id}@example.com"


def install_stayhub(conn: psycopg.Connection, bookings: int = len(GUESTS)) -> list[int]:
    """StayHub's tables with three hotels and `bookings` pending bookings (5307, 5308, ...); their ids,
    in id order (the rows are stored in another order)."""
    conn.execute(sql.query("lab06", "tables"))  # the notebook's tables (it shows this block)
    for hotel, name in HOTELS.items():
        conn.execute("INSERT INTO hotels VALUES (%s, %s, %s)", [hotel, name, ROOMS])
    ids = [FIRST_BOOKING + n for n in range(bookings)]
    order = sorted(range(bookings), key=lambda n: (n * 7) % bookings if bookings % 7 else -n)
    for n in order:
        booking_id, guest = ids[n], GUESTS[n % len(GUESTS)]
        conn.execute("INSERT INTO bookings (id, hotel_id, guest, email, nights) VALUES (%s, %s, %s, %s, %s)",
                     [booking_id, hotel_of_booking(n), guest, email_of(guest, booking_id), 1 + n % 4])
    return ids


def job(booking_id: int, *, job_id: int = 1, attempts: int = 1, extra: dict | None = None) -> queue.Job:
    """The job for a booking as a worker hands it to its handler: attempt `attempts`, a lease of its own."""
    return queue.Job(id=job_id, queue="default", type=faults.TASK, payload={"booking_id": booking_id, **(extra or {})},
                     priority=0, attempts=attempts, max_attempts=8,
                     lease_token=uuid.UUID(int=(job_id << 32) + attempts),
                     lease_expires_at=datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc) + timedelta(minutes=attempts))


def redelivered(handed: queue.Job) -> queue.Job:
    """The same job as the next worker gets it after a crash: a new lease, one more attempt."""
    return dataclasses.replace(handed, attempts=handed.attempts + 1,
                               lease_token=uuid.UUID(int=handed.lease_token.int + 1))
