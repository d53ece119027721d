-- The card exchange, version 2 (confirmation.md §2.4): a card's token names the handle whose
-- card it was given, and the records of cards' handles and of the changes asked on cards live
-- here, shared by every instance, so that a card opened or answered through any instance counts.
-- A record is known by its hash (confirm.HashToken over its kind and its key, then the person's
-- scope), holds the Asker's JSON, and is replaced only by a compare-and-swap on that JSON.
ALTER TABLE avenir_confirm.tokens ADD COLUMN handle bytea CHECK (handle IS NULL OR length(handle) = 32);

CREATE TABLE avenir_confirm.records (
    hash     bytea PRIMARY KEY CHECK (length(hash) = 32),
    kind     text NOT NULL CHECK (kind IN ('handle', 'change')),
    data     bytea NOT NULL,
    expires  timestamptz NOT NULL
);

CREATE INDEX records_expires ON avenir_confirm.records (expires);
