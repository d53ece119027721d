-- Hardening of the hosted sign-in (issue 30): keyed hashes, rate counters, PKCE on the YNAB leg,
-- a binding cookie issued at consent, clients swept when they never got a grant, an absolute
-- lifetime for grants, and a person's own page of the apps they let in.

-- Settings avenir keeps about its own data; 'hash_scheme' says how secrets are hashed (absent:
-- plain SHA-256, as 0001 stored them; 'hmac-sha256-v1': HMAC keyed from AVENIR_MCP_SECRET_KEY
-- over that SHA-256, so that rows hashed before are re-keyed in place and nobody is signed out).
CREATE TABLE auth.settings (
    name   text PRIMARY KEY,
    value  text NOT NULL
);

-- When the client was last given a grant: registered clients that never were are swept.
ALTER TABLE auth.clients ADD COLUMN granted_at timestamptz;
UPDATE auth.clients c SET granted_at = (SELECT max(g.created_at) FROM auth.grants g WHERE g.client_id = c.client_id);

-- The binding cookie's hash is known only once the person consents; the YNAB leg's PKCE
-- verifier is kept until YNAB's callback. purpose is 'authorize' (an app's sign-in) or
-- 'account' (a person signing in to their own page), which has no client.
ALTER TABLE auth.pending_authorizations ALTER COLUMN browser_hash DROP NOT NULL;
ALTER TABLE auth.pending_authorizations ALTER COLUMN client_id DROP NOT NULL;
ALTER TABLE auth.pending_authorizations ADD COLUMN ynab_verifier text;
ALTER TABLE auth.pending_authorizations ADD COLUMN purpose text NOT NULL DEFAULT 'authorize'
    CHECK (purpose IN ('authorize', 'account'));

-- Requests counted per endpoint, per client address (or '*' for everyone) and per window.
CREATE TABLE auth.rate_counters (
    endpoint      text NOT NULL,
    key           text NOT NULL,
    window_start  timestamptz NOT NULL,
    n             integer NOT NULL,
    PRIMARY KEY (endpoint, key, window_start)
);
CREATE INDEX ON auth.rate_counters (window_start);

-- A person signed in to their own page (/account), where they see and revoke their grants.
CREATE TABLE auth.sessions (
    session_hash  bytea PRIMARY KEY,
    person_id     bigint NOT NULL REFERENCES auth.people ON DELETE CASCADE,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL
);
CREATE INDEX ON auth.sessions (expires_at);
