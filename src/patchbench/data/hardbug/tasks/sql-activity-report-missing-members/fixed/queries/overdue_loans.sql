-- Loans still out past their due date, as of :as_of.
SELECT
    l.id                                            AS loan_id,
    t.name                                          AS tool,
    COALESCE(m.name, '(workshop)')                  AS borrower,
    l.due_on,
    CAST(julianday(:as_of) - julianday(l.due_on) AS INTEGER) AS days_overdue
FROM loans AS l
JOIN tools AS t ON t.id = l.tool_id
LEFT JOIN members AS m ON m.id = l.member_id
WHERE l.returned_on IS NULL
  AND l.due_on < :as_of
ORDER BY days_overdue DESC, l.id;
