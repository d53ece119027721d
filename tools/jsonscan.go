package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A strict reader of JSON text, shared by the stdio framing (is a line one well-formed message?)
// and the tools' argument decoding (what does each argument hold?). It is stricter than
// encoding/json where leniency would let a client be misread: a key given twice is an error, not
// "the last one wins"; text that is not UTF-8 is an error, not silently replaced; nesting is
// bounded, so no message can exhaust the stack.

// maxNesting bounds how deep arrays and objects may nest in a message. avenir's deepest
// message (a split line inside a transaction inside arguments inside params) is about 8 levels.
const maxNesting = 64

// jsonError is why a text is not acceptable JSON. kind tells the framing which JSON-RPC error it
// is; path (e.g. `params.arguments.amount`) says where, for a key given twice.
type jsonError struct {
	kind   jsonErrorKind
	offset int    // byte offset in the text
	path   string // where the problem is, for errDuplicate and errDepth
	msg    string
}

type jsonErrorKind int

const (
	errSyntax    jsonErrorKind = iota // not JSON at all
	errDepth                          // nested deeper than allowed
	errDuplicate                      // an object repeats a key
)

func (e *jsonError) Error() string { return e.msg }

// jsonScanner reads one JSON text from data. Its methods leave pos after what they read.
type jsonScanner struct {
	data     []byte
	pos      int
	maxDepth int
}

func newScanner(data []byte) *jsonScanner { return &jsonScanner{data: data, maxDepth: maxNesting} }

func (s *jsonScanner) syntaxError(format string, args ...any) *jsonError {
	return &jsonError{kind: errSyntax, offset: s.pos, msg: fmt.Sprintf(format, args...)}
}

// unexpected describes the byte at pos for a syntax error.
func (s *jsonScanner) unexpected(what string) *jsonError {
	if s.pos >= len(s.data) {
		return s.syntaxError("the JSON text ends where %s was expected", what)
	}
	c := s.data[s.pos]
	if c >= 0x20 && c < 0x7f {
		return s.syntaxError("%q at byte %d where %s was expected", rune(c), s.pos+1, what)
	}
	return s.syntaxError("byte 0x%02x at byte %d where %s was expected", c, s.pos+1, what)
}

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// atEnd reports whether only white space is left.
func (s *jsonScanner) atEnd() bool {
	s.skipSpace()
	return s.pos == len(s.data)
}

// peek returns the next non-space byte, or 0 at the end (use atEnd to tell the end from a NUL).
func (s *jsonScanner) peek() byte {
	s.skipSpace()
	if s.pos == len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// jsonKindAt names the JSON type of the value starting with c, as an error message says it.
func jsonKindAt(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// skipValue checks the value at pos and moves past it. depth is the nesting of the value's
// container; path names it for errors.
func (s *jsonScanner) skipValue(depth int, path string) error {
	switch s.peek() {
	case '{':
		return s.object(depth, path, func(key string, depth int, path string) error { return s.skipValue(depth, path) })
	case '[':
		return s.array(depth, path, func(i, depth int, path string) error { return s.skipValue(depth, path) })
	case '"':
		_, err := s.readString()
		return err
	case 't', 'f', 'n':
		_, err := s.readLiteral()
		return err
	default:
		_, err := s.readNumber()
		return err
	}
}

// object reads an object, calling member for each value with the scanner at it. A key given
// twice is an errDuplicate.
func (s *jsonScanner) object(depth int, path string, member func(key string, depth int, path string) error) error {
	if depth+1 > s.maxDepth {
		return &jsonError{kind: errDepth, offset: s.pos, path: path,
			msg: fmt.Sprintf("the JSON nests deeper than %d levels", s.maxDepth)}
	}
	s.pos++ // '{'
	seen := map[string]bool{}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.unexpected("a key in quotes")
		}
		start := s.pos
		key, err := s.readString()
		if err != nil {
			return err
		}
		sub := joinPath(path, key)
		if seen[key] {
			return &jsonError{kind: errDuplicate, offset: start, path: sub,
				msg: fmt.Sprintf("%s is given twice", quoted(sub))}
		}
		seen[key] = true
		if s.peek() != ':' {
			return s.unexpected("':' after a key")
		}
		s.pos++
		if s.atEnd() {
			return s.unexpected("a value")
		}
		if err := member(key, depth+1, sub); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.unexpected("',' or '}'")
		}
	}
}

// array reads an array, calling item for each element with the scanner at it.
func (s *jsonScanner) array(depth int, path string, item func(i, depth int, path string) error) error {
	if depth+1 > s.maxDepth {
		return &jsonError{kind: errDepth, offset: s.pos, path: path,
			msg: fmt.Sprintf("the JSON nests deeper than %d levels", s.maxDepth)}
	}
	s.pos++ // '['
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if s.atEnd() {
			return s.unexpected("a value")
		}
		if err := item(i, depth+1, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.unexpected("',' or ']'")
		}
	}
}

// joinPath names a member of an object: "params" + "name" is "params.name".
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// readString reads a string literal and returns its value. Control characters must be escaped
// and the text must be UTF-8, as RFC 8259 requires.
func (s *jsonScanner) readString() (string, error) {
	if s.peek() != '"' {
		return "", s.unexpected("a string")
	}
	start := s.pos
	s.pos++
	escaped := false
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			raw := s.data[start:s.pos]
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			var v string
			if err := json.Unmarshal(raw, &v); err != nil { // the escapes were checked; this decodes them
				return "", &jsonError{kind: errSyntax, offset: start, msg: "a string's escapes cannot be read"}
			}
			return v, nil
		case c == '\\':
			escaped = true
			if err := s.escape(); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", s.syntaxError("a control character (0x%02x) inside a string at byte %d: escape it", c, s.pos+1)
		case c < utf8.RuneSelf:
			s.pos++
		default:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size <= 1 {
				return "", s.syntaxError("a string holds bytes that are not UTF-8 at byte %d", s.pos+1)
			}
			s.pos += size
		}
	}
	s.pos = start
	return "", s.syntaxError("a string starting at byte %d is not closed", start+1)
}

// escape checks the escape sequence at pos (a backslash) and moves past it.
func (s *jsonScanner) escape() error {
	if s.pos+1 >= len(s.data) {
		s.pos = len(s.data)
		return s.syntaxError("the JSON text ends inside an escape")
	}
	switch s.data[s.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos += 2
		return nil
	case 'u':
		if s.pos+6 > len(s.data) {
			return s.syntaxError("a \\u escape at byte %d needs four hex digits", s.pos+1)
		}
		for _, h := range s.data[s.pos+2 : s.pos+6] {
			if !isHex(h) {
				return s.syntaxError("a \\u escape at byte %d needs four hex digits", s.pos+1)
			}
		}
		s.pos += 6
		return nil
	}
	return s.syntaxError("an unknown escape at byte %d", s.pos+1)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// readNumber reads a number literal as RFC 8259 spells it and returns its text.
func (s *jsonScanner) readNumber() (string, error) {
	s.skipSpace()
	start := s.pos
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case s.pos < len(s.data) && '1' <= s.data[s.pos] && s.data[s.pos] <= '9':
		s.digits()
	default:
		if s.pos == start {
			return "", s.unexpected("a value")
		}
		return "", s.unexpected("a digit")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return "", s.unexpected("a digit after the decimal point")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return "", s.unexpected("a digit in the exponent")
		}
	}
	return string(s.data[start:s.pos]), nil
}

func (s *jsonScanner) digits() int {
	n := 0
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

// readLiteral reads true, false or null and returns it.
func (s *jsonScanner) readLiteral() (string, error) {
	s.skipSpace()
	for _, lit := range []string{"true", "false", "null"} {
		if strings.HasPrefix(string(s.data[s.pos:min(len(s.data), s.pos+len(lit))]), lit) {
			s.pos += len(lit)
			return lit, nil
		}
	}
	return "", s.unexpected("a value")
}

// checkJSON reports whether data is exactly one JSON value (surrounding space allowed) that
// repeats no key and nests at most maxNesting levels.
func checkJSON(data []byte) error {
	s := newScanner(data)
	if s.atEnd() {
		return s.unexpected("a value")
	}
	if err := s.skipValue(0, ""); err != nil {
		return err
	}
	if !s.atEnd() {
		return s.syntaxError("more text after the JSON value, at byte %d: send one JSON value", s.pos+1)
	}
	return nil
}
