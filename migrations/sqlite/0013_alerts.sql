-- Alerts (issue 13, O2): conditions the records show, raised once while they stay open,
-- told to their recipients in the app, by mail and on the alert webhook, repeated until
-- a recipient acknowledges them. Times are Unix seconds (UTC).

CREATE TABLE alerts (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    dedup_key        TEXT NOT NULL,        -- rule + subject + period: one open alert per key
    rule             TEXT NOT NULL,        -- budget, grant-lapsing, node-lost, policy-fault, ...
    severity         TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
    group_id         BIGINT REFERENCES groups (id),  -- the group it concerns; NULL: admins only
    audience         TEXT NOT NULL CHECK (audience IN ('admins', 'managers', 'members')), -- who in the group
    subject          TEXT NOT NULL,        -- what it is about, in words
    message          TEXT NOT NULL,        -- the latest wording of the condition
    linger_s         BIGINT NOT NULL,      -- stays open this long after last found (one-off events)
    opened_at        BIGINT NOT NULL,
    last_seen_at     BIGINT NOT NULL,      -- the last evaluation that found it
    resolved_at      BIGINT,               -- its condition ended; NULL: open
    acknowledged_at  BIGINT,               -- a recipient acknowledged it: no more repeats
    acknowledged_by  TEXT,
    sent_at          BIGINT NOT NULL,      -- when its last round (first telling or repeat) was queued
    rounds           BIGINT NOT NULL       -- rounds queued so far (1: told once)
);
-- The de-duplication: a key is raised again only after its alert resolved.
CREATE UNIQUE INDEX alerts_open_key ON alerts (dedup_key) WHERE resolved_at IS NULL;
CREATE INDEX alerts_by_group ON alerts (group_id, id);

-- Who has read which alert (the inbox's unread count).
CREATE TABLE alert_reads (
    alert_id  BIGINT NOT NULL REFERENCES alerts (id),
    user_id   BIGINT NOT NULL REFERENCES users (id),
    read_at   BIGINT NOT NULL,
    PRIMARY KEY (alert_id, user_id)
);

-- Each mail and webhook post of each round of an alert, with its retries.
CREATE TABLE alert_deliveries (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    alert_id      BIGINT NOT NULL REFERENCES alerts (id),
    round         BIGINT NOT NULL,         -- 1: the first telling; more: repeats
    channel       TEXT NOT NULL CHECK (channel IN ('email', 'webhook')),
    recipient     TEXT NOT NULL,           -- an address or the webhook's URL
    attempts      BIGINT NOT NULL,         -- tries so far
    next_at       BIGINT NOT NULL,         -- the next try, backing off after failures
    delivered_at  BIGINT,                  -- NULL: not (yet) delivered
    error         TEXT,                    -- the last failure, in words
    UNIQUE (alert_id, round, channel, recipient)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (delivered_at, next_at);

-- Where alerts are posted: one row.
CREATE TABLE alert_settings (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    webhook     TEXT,                      -- an http(s) URL; NULL: none
    shape       TEXT NOT NULL CHECK (shape IN ('json', 'chat')), -- the notice, or {"text": ...}
    updated_by  TEXT,
    updated_at  BIGINT
);
INSERT INTO alert_settings (id, shape) VALUES (1, 'json');

-- The last event the event rules (policy faults, idle notices and reclaims) have read:
-- events older than this migration are history, never alerts.
CREATE TABLE alert_cursor (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    last_event_id  BIGINT NOT NULL
);
INSERT INTO alert_cursor (id, last_event_id) SELECT 1, COALESCE(MAX(id), 0) FROM events;
