-- Pair Looper Dispatching → Finished per thread, as the awk script in issue 14 does: a Finished
-- counts when the thread's previous printer line was a Dispatching.
SELECT count(*) AS messages, printf('%.1f', max(d)) AS max_ms, printf('%.3f', avg(d)) AS mean_ms,
       sum(d >= 16) AS ge16, sum(d >= 100) AS ge100
FROM (
    SELECT log_time_msecs - lag(log_time_msecs) OVER w AS d,
           substr(log_body, 1, 6) = '<<<<< ' AS fin,
           lag(substr(log_body, 1, 6) = '>>>>> ') OVER w AS after_dispatch
    FROM logcat_threadtime
    WHERE log_body LIKE '>>>>> Dispatching to %' OR log_body LIKE '<<<<< Finished to %'
    WINDOW w AS (PARTITION BY tid ORDER BY log_line)
)
WHERE fin AND after_dispatch
