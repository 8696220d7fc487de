-- Tools that can be lent right now.
SELECT
    t.branch,
    t.category,
    t.name AS tool
FROM tools AS t
WHERE t.retired_on IS NULL
  AND t.id NOT IN (SELECT l.tool_id FROM loans AS l WHERE l.returned_on IS NULL)
ORDER BY t.branch, t.category, t.name;
