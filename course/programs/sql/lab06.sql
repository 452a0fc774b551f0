-- Lab 06's StayHub: hotels, bookings, a loyalty ledger, and a table of processed keys. The notebook
-- shows and runs the `tables` block (`sql.show("lab06", "tables")`); lab 06's checks build their own
-- sandbox with the same block, so the check's tables are the notebook's, by construction.

-- name: tables
CREATE TABLE hotels (
    id         int  PRIMARY KEY,
    name       text NOT NULL,
    rooms_left int  NOT NULL
);
CREATE TABLE bookings (
    id       bigint PRIMARY KEY,
    hotel_id int    NOT NULL REFERENCES hotels (id),
    guest    text   NOT NULL,
    email    text   NOT NULL,
    nights   int    NOT NULL,
    status   text   NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed', 'cancelled'))
);
CREATE TABLE loyalty_points (
    booking_id bigint NOT NULL REFERENCES bookings (id),
    points     int    NOT NULL
);
CREATE TABLE processed (
    key     text        PRIMARY KEY,
    done_at timestamptz NOT NULL DEFAULT now()
);
