-- A waiting job's rank: a number that sorts like the queue, rewritten only when the job's
-- order changes. Its place is counted from it when read (the waiting jobs ranked before
-- it), so jobs starting ahead of it no longer rewrite its row every cycle.
ALTER TABLE jobs ADD COLUMN queue_rank BIGINT;
-- Waiting jobs keep the order their last recorded place gave them.
UPDATE jobs SET queue_rank = (position + 1) * 1048576 WHERE state = 'pending' AND position IS NOT NULL;
UPDATE jobs SET position = NULL;
CREATE INDEX jobs_by_rank ON jobs (state, queue_rank);
