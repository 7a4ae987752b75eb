-- Keeping jobs and callers out of the control plane: node tokens that expire, are
-- listed and revoked, and carry the pool an admin chose; refresh tokens that rotate
-- (a reused one revokes its family); logs with a per-job cap, served in byte ranges and
-- recorded once per agent offset; the image and environment a spec sets; an index for
-- every list on a hot path; a canary that waits for a second admin like a promotion.

ALTER TABLE node_tokens ADD COLUMN expires_at BIGINT;    -- refused from then on; NULL: no expiry
ALTER TABLE node_tokens ADD COLUMN pool TEXT;            -- the pool the admin put the node in; NULL: its current pool, else "default"
ALTER TABLE node_tokens ADD COLUMN last_used_at BIGINT;  -- the agent's last registration with it
CREATE INDEX node_tokens_by_node ON node_tokens (node_name);

-- One row per refresh token issued; only its sha256 is kept.
CREATE TABLE refresh_tokens (
    id                BIGSERIAL PRIMARY KEY,
    user_id           BIGINT NOT NULL REFERENCES users (id),
    family            TEXT NOT NULL,          -- one sign-in: every rotation of it shares the family
    token_sha256      TEXT NOT NULL UNIQUE,
    issued_at         BIGINT NOT NULL,
    expires_at        BIGINT NOT NULL,
    family_expires_at BIGINT NOT NULL,        -- no rotation lives past this: sign in again
    used_at           BIGINT,                 -- rotated; a second use revokes the family
    revoked_at        BIGINT                  -- logged out, or the family was revoked
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family);

ALTER TABLE job_logs ADD COLUMN agent_offset BIGINT;                 -- where the chunk starts in its allocation's output, as the agent read it: a retried chunk is recorded once
ALTER TABLE job_logs ADD COLUMN log_offset BIGINT NOT NULL DEFAULT 0; -- where the chunk starts in the job's log as served (ranges)
CREATE UNIQUE INDEX job_logs_once ON job_logs (allocation_id, agent_offset);
CREATE INDEX job_logs_by_offset ON job_logs (job_id, log_offset);
ALTER TABLE jobs ADD COLUMN log_bytes BIGINT NOT NULL DEFAULT 0;     -- bytes of its log kept
ALTER TABLE jobs ADD COLUMN log_capped BOOLEAN NOT NULL DEFAULT FALSE; -- the cap was reached: later output dropped, with a marker
ALTER TABLE jobs ADD COLUMN image TEXT;                              -- the container image it runs in (spec or template); NULL: the node's sandbox
ALTER TABLE jobs ADD COLUMN env TEXT;                                -- JSON object of environment variables its spec sets

CREATE INDEX jobs_by_template ON jobs (template_id);
CREATE INDEX jobs_by_submitter ON jobs (submitted_by, state);
CREATE INDEX jobs_by_group ON jobs (group_id, state);
CREATE INDEX allocations_by_job ON allocations (job_id);
CREATE INDEX allocations_by_node ON allocations (node_id, ended_at);
CREATE INDEX events_by_kind ON events (kind, id);

ALTER TABLE policy_versions ADD COLUMN canary_requested_by TEXT;     -- a canary waits for a second admin (B2)
ALTER TABLE policy_versions ADD COLUMN canary_requested TEXT;        -- JSON list of the groups asked for
