-- When a waiting job could start if running jobs end as expected: the time of the
-- backfill reservation the dispatcher holds for it. NULL: no estimate (it is not the
-- first job waiting for its GPU model, or it waits for quota rather than capacity).
ALTER TABLE jobs ADD COLUMN estimated_start BIGINT;
