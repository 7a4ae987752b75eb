-- High availability (issue 14, O3). The lease row gains three marks in Unix milliseconds:
-- the holder's last cycle (a drill times a takeover by it), its last cycle that decided
-- something (standbys wake their agents' waiting syncs on it), and the last time a
-- standby took a submission or a cancellation (the leader runs a cycle on it at once).
ALTER TABLE leader_lease ADD COLUMN cycled_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE leader_lease ADD COLUMN decided_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE leader_lease ADD COLUMN nudged_ms BIGINT NOT NULL DEFAULT 0;

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
