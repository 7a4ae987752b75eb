-- High availability (issue 14, O3): the lease row's marks, in Unix milliseconds, beside it
-- (one row): the holder's last cycle (a drill times a takeover by it), its last cycle that
-- decided something (standbys wake their agents' waiting syncs on it), and the last time
-- a standby took a submission or a cancellation (the leader runs a cycle on it at once).
-- The holder writes them in the transaction that fences its decisions.
CREATE TABLE lease_marks (
    id          INTEGER PRIMARY KEY CHECK (id = 1), -- one row
    cycled_ms   BIGINT NOT NULL,
    decided_ms  BIGINT NOT NULL,
    nudged_ms   BIGINT NOT NULL
);
INSERT INTO lease_marks (id, cycled_ms, decided_ms, nudged_ms) VALUES (1, 0, 0, 0);

-- Failover drills (`tidepool drill failover`): when one ran, on what, and what it found,
-- so "drilled" has a date and a figure. Times are Unix seconds (UTC).
CREATE TABLE drills (
    id                  BIGSERIAL PRIMARY KEY,
    kind                TEXT NOT NULL,      -- failover
    started_at          BIGINT NOT NULL,
    finished_at         BIGINT NOT NULL,
    servers             BIGINT NOT NULL,    -- server processes on the database
    rounds              BIGINT NOT NULL,    -- leaders killed
    passed              BOOLEAN NOT NULL,   -- every round: nothing written twice, nothing lost, old leader fenced
    takeover_median_ms  BIGINT NOT NULL,
    takeover_max_ms     BIGINT NOT NULL,
    detail              TEXT NOT NULL       -- the rounds' figures, JSON
);
