-- Logs written before 0005 have no offsets: each chunk gets its place in its job's log
-- (the bytes of the chunks before it), and each job its log's size, so range reads find
-- them. Bytes, not characters: OCTET_LENGTH is the size of a chunk's UTF-8 encoding.

UPDATE job_logs SET log_offset = o.start
FROM (
    SELECT id, SUM(OCTET_LENGTH(chunk)) OVER (PARTITION BY job_id ORDER BY id)
               - OCTET_LENGTH(chunk) AS start
    FROM job_logs
) AS o
WHERE o.id = job_logs.id AND job_logs.agent_offset IS NULL;

UPDATE jobs SET log_bytes = (SELECT COALESCE(SUM(OCTET_LENGTH(chunk)), 0) FROM job_logs WHERE job_id = jobs.id)
WHERE log_bytes = 0 AND id IN (SELECT job_id FROM job_logs);
