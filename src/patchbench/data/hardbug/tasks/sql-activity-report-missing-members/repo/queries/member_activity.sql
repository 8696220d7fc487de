-- Member activity over the 365 days ending on :as_of (see README.md).
SELECT
    m.id                                                        AS member_id,
    m.name,
    COALESCE(m.branch, '(online)')                              AS branch,
    COUNT(l.id)                                                 AS loans,
    SUM(CASE WHEN l.returned_on > l.due_on THEN 1 ELSE 0 END)   AS late_returns,
    SUM(CASE WHEN l.condition <> 'damaged' THEN 0 ELSE 1 END)   AS damaged_returns,
    MAX(l.out_on)                                               AS last_loan_on
FROM members AS m
LEFT JOIN loans AS l
       ON l.member_id = m.id
WHERE m.suspended = 0
  AND l.out_on > date(:as_of, '-365 days')
  AND l.out_on <= :as_of
GROUP BY m.id, m.name, m.branch
ORDER BY loans DESC, m.name, m.id;
