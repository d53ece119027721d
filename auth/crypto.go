package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
)

// newSecret makes one of avenir's opaque credentials (token, code, client secret, state): 32
// random bytes, base64url without padding (43 characters). It returns the credential, which
// goes only to its holder, and its keyed hash ([hasher]), which is all the database keeps.
func (h *hasher) newSecret() (string, []byte) {
	var b [32]byte
	rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+): it crashes the program instead
	s := base64.RawURLEncoding.EncodeToString(b[:])
	return s, h.hashSecret(s)
}

// hasher hashes avenir's credentials for the database: HMAC-SHA256, keyed with a key derived
// from AVENIR_MCP_SECRET_KEY, over the credential's SHA-256. A salt-free hash would be enough
// against guessing (each credential has 256 bits of entropy), but not against someone who can
// write to the database: with a plain hash they could store the hash of a token of their own
// making beside anyone's grant and then use it. Keyed, a row is worth nothing without the key.
// The SHA-256 inside is what 0001 stored, so [rekey] turns old rows into new ones in place.
type hasher struct{ key []byte }

func newHasher(secretKey []byte) *hasher {
	m := hmac.New(sha256.New, secretKey)
	m.Write([]byte("avenir/auth/credential-hash/v1"))
	return &hasher{key: m.Sum(nil)}
}

// CredentialHash is what the database keeps of one of avenir's credentials (a token, a code, a
// client secret) under the secret key: for tools and tests that look a credential's row up.
func CredentialHash(secretKey []byte, credential string) []byte {
	return newHasher(secretKey).hashSecret(credential)
}

func (h *hasher) hashSecret(s string) []byte {
	inner := sha256.Sum256([]byte(s))
	return h.rekeyed(inner[:])
}

// rekeyed is the keyed hash of a credential whose plain SHA-256 is given.
func (h *hasher) rekeyed(sha []byte) []byte {
	m := hmac.New(sha256.New, h.key)
	m.Write(sha)
	return m.Sum(nil)
}

// wellFormedSecret: what newSecret makes. Anything else is refused before the database is asked.
func wellFormedSecret(s string) bool {
	if len(s) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

func equalHashes(a, b []byte) bool {
	return len(a) == sha256.Size && subtle.ConstantTimeCompare(a, b) == 1
}

// s256 is PKCE's S256 transform (RFC 7636 §4.2): BASE64URL(SHA256(ASCII(code_verifier))).
func s256(verifier string) string {
	h := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// validVerifier: RFC 7636 §4.1, 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." /
// "_" / "~".
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range []byte(v) {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// validChallenge: an S256 challenge is the base64url of 32 bytes, 43 characters.
func validChallenge(c string) bool {
	b, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil && len(b) == sha256.Size
}

// sealer seals a person's YNAB tokens with AES-256-GCM. A sealed value is a version byte, a
// random 12-byte nonce and the ciphertext with its tag. The associated data names the person,
// so a sealed value moved to another person's row does not open: the database cannot be made
// to hand one person's YNAB access to another, even by someone who can write to it but lacks
// the key.
type sealer struct{ aead cipher.AEAD }

const sealVersion = 1

func newSealer(key []byte) (*sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("the secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead}, nil
}

func sealAD(personID int64) []byte {
	return []byte("avenir/auth/ynab-grant/v1/person/" + strconv.FormatInt(personID, 10))
}

func (s *sealer) seal(personID int64, plaintext []byte) []byte {
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(plaintext)+s.aead.Overhead())
	out[0] = sealVersion
	rand.Read(out[1:])
	return s.aead.Seal(out, out[1:], plaintext, sealAD(personID))
}

var errUnseal = errors.New("the stored YNAB sign-in cannot be decrypted with this AVENIR_MCP_SECRET_KEY (the key changed, or the row was altered)")

func (s *sealer) open(personID int64, sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < 1+n+s.aead.Overhead() || sealed[0] != sealVersion {
		return nil, errUnseal
	}
	pt, err := s.aead.Open(nil, sealed[1:1+n], sealed[1+n:], sealAD(personID))
	if err != nil {
		return nil, errUnseal
	}
	return pt, nil
}
