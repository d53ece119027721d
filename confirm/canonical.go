package confirm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Canonical returns the canonical JSON form of v, the bytes a fingerprint hashes.
//
// v is first encoded with encoding/json (so struct tags apply), then rewritten:
//   - object keys sorted by their UTF-8 bytes, no white space anywhere;
//   - numbers as integers in plain decimal (-0 becomes 0); a number with a fraction
//     or an exponent, or outside int64, is an error, because amounts are milliunits
//     and a float in a subject is a bug;
//   - strings with only '"', '\' and the control characters escaped (\b \t \n \f \r,
//     else \u00xx in lower-case hex), everything else as UTF-8, as RFC 8785 does;
//   - every array sorted by its elements' canonical bytes, so a list of changes
//     gives the same bytes in any order.
//
// Because every array is treated as a set of changes, never put values whose order
// matters in an array (a "from, to" pair, say): give each its own key.
func Canonical(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the value as JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("decoding the value's JSON: %w", err)
	}
	return appendCanonical(nil, tree)
}

// Fingerprint returns the hex SHA-256 of the canonical JSON of the pair
// [planID, subject]. The pair itself is positional, not a list of changes: it is
// never sorted, so a plan id and a subject cannot trade places. planID must be the
// resolved plan id, never an alias such as "last-used".
func Fingerprint(planID string, subject any) (string, error) {
	if planID == "" {
		return "", errors.New("fingerprinting a change: the plan id is empty")
	}
	plan, err := Canonical(planID)
	if err != nil {
		return "", fmt.Errorf("fingerprinting a change: %w", err)
	}
	body, err := Canonical(subject)
	if err != nil {
		return "", fmt.Errorf("fingerprinting a change: %w", err)
	}
	pair := make([]byte, 0, len(plan)+len(body)+3)
	pair = append(pair, '[')
	pair = append(pair, plan...)
	pair = append(pair, ',')
	pair = append(pair, body...)
	pair = append(pair, ']')
	sum := sha256.Sum256(pair)
	return hex.EncodeToString(sum[:]), nil
}

// appendCanonical appends the canonical form of a tree decoded with UseNumber.
func appendCanonical(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("the number %s is not an int64: canonical JSON holds integers only (amounts are milliunits)", v)
		}
		return strconv.AppendInt(dst, n, 10), nil
	case string:
		return appendString(dst, v), nil
	case []any:
		return appendArray(dst, v)
	case map[string]any:
		return appendObject(dst, v)
	default:
		return nil, fmt.Errorf("unexpected JSON value of type %T", v)
	}
}

func appendArray(dst []byte, elems []any) ([]byte, error) {
	encoded := make([][]byte, len(elems))
	for i, e := range elems {
		b, err := appendCanonical(nil, e)
		if err != nil {
			return nil, err
		}
		encoded[i] = b
	}
	slices.SortFunc(encoded, bytes.Compare)
	dst = append(dst, '[')
	for i, b := range encoded {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, b...)
	}
	return append(dst, ']'), nil
}

func appendObject(dst []byte, obj map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		var err error
		if dst, err = appendCanonical(dst, obj[k]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendString appends s as a JSON string, escaping only what JSON requires.
// s is valid UTF-8: it comes out of encoding/json, which replaces invalid bytes.
func appendString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
