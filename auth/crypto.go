package auth

import (
	"crypto/aes"
	"crypto/cipher"
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
// goes only to its holder, and its SHA-256, which is all the database keeps. A hash without a
// salt is enough: the input has 256 bits of entropy, so there is no dictionary to try.
func newSecret() (string, []byte) {
	var b [32]byte
	rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+): it crashes the program instead
	s := base64.RawURLEncoding.EncodeToString(b[:])
	return s, hashSecret(s)
}

func hashSecret(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
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
