-- The journal of hosted avenir (journal.Store): every row belongs to one person, and every query
-- names the person, so a person reaches only their own operations. events are the truth: rows
-- are appended, never updated or deleted. operations and outcomes are indexes of the events,
-- written in the same transaction as the event they index, and can be rebuilt from the events
-- alone. Ids are ULIDs as their 16 bytes, most significant first, so byte order is time order;
-- an operation's id is the id of its "prepared" event.
CREATE TABLE avenir_journal.events (
    person     bigint NOT NULL,
    id         bytea NOT NULL CHECK (length(id) = 16),
    operation  bytea NOT NULL CHECK (length(operation) = 16),
    type       text NOT NULL,
    event      json NOT NULL, -- the journal.Event, byte for byte as the bbolt journal stores it
    PRIMARY KEY (person, id)
);

CREATE INDEX events_by_operation ON avenir_journal.events (person, operation, id);

-- One row per operation, from its "prepared" event: what List filters on.
CREATE TABLE avenir_journal.operations (
    person   bigint NOT NULL,
    id       bytea NOT NULL,
    plan_id  text NOT NULL,
    tool     text NOT NULL,
    time     timestamptz NOT NULL,
    undo_of  bytea CHECK (length(undo_of) = 16),
    writer   text NOT NULL, -- the instance that prepared it (host, process, session), for the operator
    PRIMARY KEY (person, id),
    FOREIGN KEY (person, id) REFERENCES avenir_journal.events (person, id)
);

CREATE INDEX operations_by_plan ON avenir_journal.operations (person, plan_id, id);
CREATE INDEX operations_by_tool ON avenir_journal.operations (person, tool, id);
CREATE INDEX operations_by_undo ON avenir_journal.operations (person, undo_of) WHERE undo_of IS NOT NULL;

-- One row per operation whose outcome is known, from the event that settled it (applied, failed,
-- recovered, resolved): an operation without one is prepared. The primary key is the journal's
-- rule that an outcome is recorded once.
CREATE TABLE avenir_journal.outcomes (
    person     bigint NOT NULL,
    operation  bytea NOT NULL,
    status     text NOT NULL CHECK (status IN ('applied', 'partial', 'failed')),
    event      bytea NOT NULL,
    PRIMARY KEY (person, operation),
    FOREIGN KEY (person, operation) REFERENCES avenir_journal.operations (person, id),
    FOREIGN KEY (person, event) REFERENCES avenir_journal.events (person, id)
);

CREATE INDEX outcomes_by_status ON avenir_journal.outcomes (person, status, operation);
