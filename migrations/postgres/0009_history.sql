-- Usage history and the weekly reports (issue 12: A2, A5, O4, Q5, R5, T3, V4).
-- Times are Unix seconds (UTC); weeks and days are cut in the organisation's time zone
-- when a report is computed, never stored as local times.

-- The organisation's settings: one row.
CREATE TABLE org_settings (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    time_zone       TEXT NOT NULL,       -- IANA name ("Europe/Berlin"): weeks, days, nights
    currency        TEXT NOT NULL,       -- what prices are in ("EUR")
    report_webhook  TEXT,                -- where finished weeks are posted; NULL: none
    updated_by      TEXT,
    updated_at      BIGINT
);
INSERT INTO org_settings (id, time_zone, currency) VALUES (1, 'UTC', 'EUR');

-- The price of one GPU-hour per model (A5), in hundredths of the currency; set by admins.
CREATE TABLE gpu_prices (
    model               TEXT PRIMARY KEY,
    cents_per_gpu_hour  BIGINT NOT NULL CHECK (cents_per_gpu_hour >= 0),
    set_by              TEXT NOT NULL,
    set_at              BIGINT NOT NULL
);

-- Utilisation while held, from the agents' samples, per allocation and UTC hour: each
-- sync adds the seconds since the allocation's previous sample. Rolled into
-- usage_hours when the hour closes, then pruned.
CREATE TABLE usage_samples (
    hour            BIGINT NOT NULL,     -- the hour's first second (UTC)
    allocation_id   BIGINT NOT NULL REFERENCES allocations (id),
    sampled_gpu_s   BIGINT NOT NULL,     -- GPU-seconds covered by samples
    util_pct_gpu_s  BIGINT NOT NULL,     -- sum of utilisation % x GPU-seconds (busy = / 100)
    idle_gpu_s      BIGINT NOT NULL,     -- GPU-seconds below the idle threshold (R2)
    PRIMARY KEY (hour, allocation_id)
);
ALTER TABLE allocations ADD COLUMN sampled_at BIGINT;                          -- its last sample
ALTER TABLE allocations ADD COLUMN sampled_gpu_s BIGINT NOT NULL DEFAULT 0;     -- whole-life totals,
ALTER TABLE allocations ADD COLUMN util_pct_gpu_s BIGINT NOT NULL DEFAULT 0;    -- for its average
ALTER TABLE allocations ADD COLUMN idle_gpu_s BIGINT NOT NULL DEFAULT 0;        -- utilisation

-- The roll-up: one row per closed UTC hour x group x pool x model x category that held
-- GPUs or started or finished a job. Exact integers; a year of a 10,000-GPU cluster is
-- measured by `tidepool bench reports`.
CREATE TABLE usage_hours (
    hour            BIGINT NOT NULL,
    group_id        BIGINT NOT NULL REFERENCES groups (id),
    pool            TEXT NOT NULL,
    model           TEXT NOT NULL,
    category        TEXT NOT NULL,
    held_gpu_s      BIGINT NOT NULL,     -- GPU-seconds held (allocations' spans)
    sampled_gpu_s   BIGINT NOT NULL,
    util_pct_gpu_s  BIGINT NOT NULL,
    idle_gpu_s      BIGINT NOT NULL,
    jobs_started    BIGINT NOT NULL,     -- first placements in the hour
    jobs_finished   BIGINT NOT NULL,
    wait_s          BIGINT NOT NULL,     -- summed waits of the jobs started
    PRIMARY KEY (hour, group_id, pool, model, category)
);
-- Hours before this one are rolled up (one row).
CREATE TABLE usage_rollup (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    rolled_until  BIGINT NOT NULL
);
INSERT INTO usage_rollup (id, rolled_until) VALUES (1, 0);
CREATE INDEX allocations_by_start ON allocations (started_at);
CREATE INDEX allocations_by_end ON allocations (ended_at, started_at);

-- Finished weeks, frozen (A2): later edits to the records do not change them.
CREATE TABLE weekly_reports (
    id          BIGSERIAL PRIMARY KEY,
    group_id    BIGINT NOT NULL,        -- 0: the organisation
    week        TEXT NOT NULL,          -- ISO week, "2026-W48"
    frozen_at   BIGINT NOT NULL,
    body        TEXT NOT NULL,          -- the report as the API answers it (JSON)
    UNIQUE (group_id, week)
);

-- Each delivery of a frozen report: to whom, by which channel, and how it went.
CREATE TABLE report_deliveries (
    id          BIGSERIAL PRIMARY KEY,
    report_id   BIGINT NOT NULL REFERENCES weekly_reports (id),
    channel     TEXT NOT NULL CHECK (channel IN ('email', 'webhook')),
    recipient   TEXT NOT NULL,
    sent_at     BIGINT NOT NULL,
    error       TEXT                    -- NULL: delivered
);

ALTER TABLE users ADD COLUMN email TEXT;  -- where reports and alerts go; NULL: in-app only
