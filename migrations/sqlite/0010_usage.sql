-- Usage history (issue 12, V4): the roll-up finds the jobs that finished in an hour.
CREATE INDEX jobs_by_finish ON jobs (finished_at);
