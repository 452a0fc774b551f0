-- The outbox: messages written in the same transaction as the business change they announce, and
-- published to NATS afterwards by the relay. `course.core.sql.show("outbox", "claim")` prints one.
-- Each block starts with "-- name: <name>"; parameters are psycopg placeholders (percent, name in parentheses, s).

-- name: install
-- One row per message. A row is never deleted by the relay, only marked sent, so you can see what went
-- out and when. `event_id` is the message's identity for everyone downstream: the relay sends it as
-- the Nats-Msg-Id header (JetStream drops a second copy within its duplicate window) and consumers
-- remember it to ignore a message they have already handled. It is a UUID rather than `id` so that it
-- stays unique across schemas and across a table dropped and created again (ids start over at 1).
CREATE TABLE IF NOT EXISTS outbox (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id   uuid        NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    subject    text        NOT NULL,                 -- the NATS subject, e.g. 'orders.placed'
    payload    jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    sent_at    timestamptz                           -- NULL until JetStream has acknowledged it
);
-- Only unsent rows are indexed: the index stays as small as the backlog, however long the table grows.
CREATE INDEX IF NOT EXISTS outbox_unsent ON outbox (id) WHERE sent_at IS NULL;

-- name: add
-- Inside the caller's transaction: the row exists if and only if the business change committed.
INSERT INTO outbox (subject, payload)
VALUES (%(subject)s, %(payload)s::jsonb)
RETURNING id;

-- name: claim
-- The relay's next batch, oldest first. The rows stay locked until the relay's transaction ends, and
-- SKIP LOCKED lets a second relay take the batch after it instead of waiting (or publishing the same
-- rows). Order then holds per relay only: run one relay per outbox when consumers rely on order.
SELECT id, event_id, subject, payload
FROM outbox
WHERE sent_at IS NULL
ORDER BY id
LIMIT %(limit)s
FOR UPDATE SKIP LOCKED;

-- name: mark_sent
-- After JetStream acknowledged them. If the relay dies before this commits, the rows are unsent again
-- and will be published a second time: the outbox promises at least once, never exactly once.
UPDATE outbox SET sent_at = now()
WHERE id = ANY(%(ids)s::bigint[]);

-- name: stats
-- What a dashboard needs: the backlog, and how long the oldest message has been waiting to go out.
SELECT count(*) FILTER (WHERE sent_at IS NULL)::int                                     AS unsent,
       count(*) FILTER (WHERE sent_at IS NOT NULL)::int                                 AS sent,
       coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE sent_at IS NULL)), 0)::float8
                                                                                        AS oldest_unsent_age_s
FROM outbox;
