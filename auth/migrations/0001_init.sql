-- avenir's sign-in: people, OAuth clients, pending sign-ins, codes, grants, tokens, and each
-- person's YNAB grant. Secrets never appear here in the clear: avenir's codes, tokens and
-- client secrets are stored as SHA-256 hashes, YNAB's tokens sealed with AES-256-GCM.

-- A person is a YNAB user.
CREATE TABLE auth.people (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ynab_user_id  text NOT NULL UNIQUE,
    created_at    timestamptz NOT NULL,
    signed_in_at  timestamptz NOT NULL
);

-- OAuth clients: registered dynamically (RFC 7591) or known by their metadata document (the
-- client_id is the document's https URL; the row caches it).
CREATE TABLE auth.clients (
    client_id      text PRIMARY KEY,
    kind           text NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
    secret_hash    bytea,
    auth_method    text NOT NULL CHECK (auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
    name           text NOT NULL,
    client_uri     text NOT NULL DEFAULT '',
    redirect_uris  text[] NOT NULL,
    grant_types    text[] NOT NULL,
    created_at     timestamptz NOT NULL,
    fresh_until    timestamptz,
    CHECK ((auth_method = 'none') = (secret_hash IS NULL))
);

-- An authorization request between the client's /oauth/authorize and YNAB's callback. id_hash
-- is the hash of the consent form's token, browser_hash of the cookie that binds the sign-in to
-- one browser, ynab_state_hash of the state sent to YNAB (set once the person consents).
CREATE TABLE auth.pending_authorizations (
    id_hash          bytea PRIMARY KEY,
    browser_hash     bytea NOT NULL,
    ynab_state_hash  bytea UNIQUE,
    client_id        text NOT NULL REFERENCES auth.clients ON DELETE CASCADE,
    redirect_uri     text NOT NULL,
    redirect_given   boolean NOT NULL,  -- the request named redirect_uri (RFC 6749 §4.1.3)
    state            text NOT NULL,
    code_challenge   text NOT NULL,
    resource         text NOT NULL,
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL
);
CREATE INDEX ON auth.pending_authorizations (expires_at);

-- A grant is what one sign-in gave one client for one person: its code and every token issued
-- from it, through all refreshes. Revoking the grant revokes them all.
CREATE TABLE auth.grants (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    person_id   bigint NOT NULL REFERENCES auth.people ON DELETE CASCADE,
    client_id   text NOT NULL REFERENCES auth.clients ON DELETE CASCADE,
    resource    text NOT NULL,
    created_at  timestamptz NOT NULL,
    revoked_at  timestamptz
);
CREATE INDEX ON auth.grants (person_id);

CREATE TABLE auth.codes (
    code_hash       bytea PRIMARY KEY,
    grant_id        bigint NOT NULL REFERENCES auth.grants ON DELETE CASCADE,
    person_id       bigint NOT NULL REFERENCES auth.people ON DELETE CASCADE,
    client_id       text NOT NULL,
    redirect_uri    text NOT NULL,
    redirect_given  boolean NOT NULL,
    code_challenge  text NOT NULL,
    resource        text NOT NULL,
    created_at      timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    used_at         timestamptz
);
CREATE INDEX ON auth.codes (expires_at);

CREATE TABLE auth.tokens (
    token_hash  bytea PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('access', 'refresh')),
    grant_id    bigint NOT NULL REFERENCES auth.grants ON DELETE CASCADE,
    person_id   bigint NOT NULL REFERENCES auth.people ON DELETE CASCADE,
    client_id   text NOT NULL,
    resource    text NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    revoked_at  timestamptz
);
CREATE INDEX ON auth.tokens (grant_id);
CREATE INDEX ON auth.tokens (expires_at);

-- The person's YNAB tokens (access and refresh), sealed: version byte, 12-byte nonce,
-- AES-256-GCM ciphertext whose associated data names the person.
CREATE TABLE auth.ynab_grants (
    person_id          bigint PRIMARY KEY REFERENCES auth.people ON DELETE CASCADE,
    sealed             bytea NOT NULL,
    access_expires_at  timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
);

-- One row per YNAB request made for a person within the last hour: the per-person budget.
CREATE TABLE auth.ynab_requests (
    person_id  bigint NOT NULL REFERENCES auth.people ON DELETE CASCADE,
    at         timestamptz NOT NULL
);
CREATE INDEX ON auth.ynab_requests (person_id, at);
