-- The live single-use tokens of confirmation (confirm.Store): codes, sealed request states'
-- nonces and cards' tokens, shared by every instance so that any of them redeems what another
-- issued. A token is known only by its hash (SHA-256 over its kind and itself, made by
-- confirm.HashToken): a dump holds no token that could confirm anything. A row is used once, by
-- a DELETE … RETURNING; expired rows are swept.
CREATE TABLE avenir_confirm.tokens (
    hash         bytea PRIMARY KEY CHECK (length(hash) = 32),
    kind         text NOT NULL CHECK (kind IN ('code', 'state', 'card')),
    tool         text NOT NULL,
    fingerprint  text NOT NULL,
    args         text NOT NULL,  -- digest of the call's arguments (states, cards); '' for codes
    arguments    bytea,          -- a card's call's arguments as the client sent them, byte for byte
    expires      timestamptz NOT NULL
);

CREATE INDEX tokens_expires ON avenir_confirm.tokens (expires);
