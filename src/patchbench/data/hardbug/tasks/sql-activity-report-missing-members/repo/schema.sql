-- Tool library: members borrow tools from the branch that owns them.
-- Dates are ISO-8601 text (YYYY-MM-DD).

CREATE TABLE members (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    branch      TEXT,                       -- home branch; NULL until an online sign-up picks one
    joined_on   TEXT    NOT NULL,
    suspended   INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1))
);

CREATE TABLE tools (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    category    TEXT    NOT NULL,
    branch      TEXT    NOT NULL,
    retired_on  TEXT                        -- NULL while the tool is in circulation
);

CREATE TABLE loans (
    id          INTEGER PRIMARY KEY,
    tool_id     INTEGER NOT NULL REFERENCES tools (id),
    member_id   INTEGER REFERENCES members (id),  -- NULL: workshop use by staff (repairs, demos)
    out_on      TEXT    NOT NULL,
    due_on      TEXT    NOT NULL,
    returned_on TEXT,                       -- NULL while the tool is out
    condition   TEXT CHECK (condition IN ('ok', 'worn', 'damaged'))
                                            -- set when a volunteer inspects the return;
                                            -- NULL while out, or returned but not inspected
);

CREATE INDEX loans_by_member ON loans (member_id, out_on);
CREATE INDEX loans_by_tool ON loans (tool_id, returned_on);
