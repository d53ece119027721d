package confirm

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// claims is what a sealed request state carries. The seal gives integrity, not
// secrecy: anyone can read a state, so it holds nothing secret.
type claims struct {
	Fingerprint string `json:"f"`
	Tool        string `json:"t"`
	Args        string `json:"a"` // argsDigest of the arguments the state was issued for
	Expires     int64  `json:"e"` // see Asker.stamp
	Nonce       string `json:"n"` // single use: spent at the first verified answer
}

// errBadState is why open refused a state; it never leaves the package, which
// answers every refusal with the same invalid-params error.
var errBadState = errors.New("the request state does not verify")

var b64 = base64.RawURLEncoding

// seal returns c as "body.mac", both base64url without padding, where mac is the
// HMAC-SHA256 of the body under the Asker's key.
func (a *Asker) seal(c claims) (string, error) {
	body, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("sealing the confirmation state: %w", err)
	}
	return b64.EncodeToString(body) + "." + b64.EncodeToString(a.mac(body)), nil
}

// open verifies a state's seal and returns its claims if it was sealed under this
// Asker's key for this tool and these arguments and has not expired. Whether its
// nonce is still unspent is the store's business, not the seal's.
func (a *Asker) open(state, tool, args string, now time.Time) (claims, error) {
	body64, mac64, ok := strings.Cut(state, ".")
	if !ok {
		return claims{}, errBadState
	}
	body, err := b64.DecodeString(body64)
	if err != nil {
		return claims{}, errBadState
	}
	mac, err := b64.DecodeString(mac64)
	if err != nil || !hmac.Equal(mac, a.mac(body)) {
		return claims{}, errBadState
	}
	var c claims
	if err := json.Unmarshal(body, &c); err != nil {
		return claims{}, errBadState
	}
	if c.Tool != tool || c.Args != args || a.stamp(now) >= c.Expires {
		return claims{}, errBadState
	}
	return c, nil
}

// stamp writes t as a sealed state's expiry: nanoseconds after the Asker's epoch on its
// monotonic clock, or, when its store may be shared across machines, Unix nanoseconds, which
// another instance reads the same.
func (a *Asker) stamp(t time.Time) int64 {
	if a.wall {
		return t.UnixNano()
	}
	return int64(t.Sub(a.epoch))
}

func (a *Asker) mac(body []byte) []byte {
	h := hmac.New(sha256.New, a.key)
	h.Write(body)
	return h.Sum(nil)
}

// argsDigest binds a state to the arguments of the call that received it. It
// hashes encoding/json's output, which is deterministic for a given Go value, so
// the same typed arguments give the same digest however the client spelled them.
func argsDigest(args any) (string, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("digesting the tool's arguments: %w", err)
	}
	sum := sha256.Sum256(raw)
	return b64.EncodeToString(sum[:]), nil
}

// keyLabel is HKDF's info for the sealing key: it gives this use of AVENIR_MCP_SECRET_KEY a key
// of its own, unrelated to the key that encrypts YNAB's tokens at rest or to any other use.
const keyLabel = "avenir/confirm/request-state-seal/v1"

// DeriveKey derives the key that seals request states (Options.Key) from hosted avenir's
// AVENIR_MCP_SECRET_KEY, with HKDF-SHA256 (RFC 5869) under a label of its own, so that every
// instance with that secret opens the states any of them sealed. The secret must be at least
// 32 bytes, as the variable's are.
func DeriveKey(secret []byte) ([]byte, error) {
	if len(secret) < keyBytes {
		return nil, fmt.Errorf("deriving the key that seals confirmation state: the secret must be at least %d bytes, not %d", keyBytes, len(secret))
	}
	key, err := hkdf.Key(sha256.New, secret, nil, keyLabel, keyBytes)
	if err != nil {
		return nil, fmt.Errorf("deriving the key that seals confirmation state: %w", err)
	}
	return key, nil
}
