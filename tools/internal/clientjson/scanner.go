package clientjson

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The strict reader of JSON text. It is stricter than encoding/json where leniency would let a
// client be misread: a key given twice is an error, not "the last one wins"; text that is not
// UTF-8 is an error, not silently replaced; nesting is bounded, so no message can exhaust the
// stack.

// MaxNesting bounds how deep arrays and objects may nest in a message. avenir's deepest
// message (a split line inside a transaction inside arguments inside params) is about 8 levels.
const MaxNesting = 64

// Error is why a text is not acceptable JSON. Kind tells the stdio framing which JSON-RPC error
// it is, and the tools how to word it; Path (e.g. `params.arguments.amount`) says where.
type Error struct {
	Kind   ErrorKind
	Offset int    // byte offset in the text
	Path   string // where the problem is, for Duplicate and TooDeep
	msg    string
}

// ErrorKind is what is wrong with a text.
type ErrorKind int

const (
	Syntax    ErrorKind = iota // not JSON at all
	TooDeep                    // nested deeper than MaxNesting
	Duplicate                  // an object repeats a key
)

func (e *Error) Error() string { return e.msg }

// Scanner reads one JSON text. Its methods start at the current position (skipping white space
// before a value) and leave it after what they read; an error is an [*Error].
type Scanner struct {
	data     []byte
	pos      int
	maxDepth int
}

// NewScanner returns a Scanner at the start of data.
func NewScanner(data []byte) *Scanner { return &Scanner{data: data, maxDepth: MaxNesting} }

// Pos is the current position: the offset of the next byte to read.
func (s *Scanner) Pos() int { return s.pos }

// Seek moves back (or on) to pos, an offset Pos returned: a caller can look at a value and read
// it again.
func (s *Scanner) Seek(pos int) { s.pos = pos }

// Since returns the text from start, an offset Pos returned, to the current position: the text
// of a value just read.
func (s *Scanner) Since(start int) []byte { return s.data[start:s.pos] }

func (s *Scanner) syntaxError(format string, args ...any) *Error {
	return &Error{Kind: Syntax, Offset: s.pos, msg: fmt.Sprintf(format, args...)}
}

// unexpected describes the byte at pos for a syntax error.
func (s *Scanner) unexpected(what string) *Error {
	if s.pos >= len(s.data) {
		return s.syntaxError("the JSON text ends where %s was expected", what)
	}
	c := s.data[s.pos]
	if c >= 0x20 && c < 0x7f {
		return s.syntaxError("%q at byte %d where %s was expected", rune(c), s.pos+1, what)
	}
	return s.syntaxError("byte 0x%02x at byte %d where %s was expected", c, s.pos+1, what)
}

// SkipSpace moves past white space.
func (s *Scanner) SkipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// AtEnd reports whether only white space is left.
func (s *Scanner) AtEnd() bool {
	s.SkipSpace()
	return s.pos == len(s.data)
}

// Peek returns the next non-space byte, or 0 at the end (use AtEnd to tell the end from a NUL).
func (s *Scanner) Peek() byte {
	s.SkipSpace()
	if s.pos == len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

// KindAt names the JSON type of the value starting with c, as an error message says it.
func KindAt(c byte) string {
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

// SkipValue checks the value at pos and moves past it. depth is the nesting of the value's
// container; path names it for errors.
func (s *Scanner) SkipValue(depth int, path string) error {
	switch s.Peek() {
	case '{':
		return s.Object(depth, path, func(key string, depth int, path string) error { return s.SkipValue(depth, path) })
	case '[':
		return s.Array(depth, path, func(i, depth int, path string) error { return s.SkipValue(depth, path) })
	case '"':
		_, err := s.ReadString()
		return err
	case 't', 'f', 'n':
		_, err := s.ReadLiteral()
		return err
	default:
		_, err := s.ReadNumber()
		return err
	}
}

// Object reads an object, calling member for each value with the scanner at it. A key given
// twice is an Duplicate.
func (s *Scanner) Object(depth int, path string, member func(key string, depth int, path string) error) error {
	if depth+1 > s.maxDepth {
		return &Error{Kind: TooDeep, Offset: s.pos, Path: path,
			msg: fmt.Sprintf("the JSON nests deeper than %d levels", s.maxDepth)}
	}
	s.pos++ // '{'
	seen := map[string]bool{}
	if s.Peek() == '}' {
		s.pos++
		return nil
	}
	for {
		if s.Peek() != '"' {
			return s.unexpected("a key in quotes")
		}
		start := s.pos
		key, err := s.ReadString()
		if err != nil {
			return err
		}
		sub := JoinPath(path, key)
		if seen[key] {
			return &Error{Kind: Duplicate, Offset: start, Path: sub,
				msg: fmt.Sprintf("%s is given twice", Quoted(sub))}
		}
		seen[key] = true
		if s.Peek() != ':' {
			return s.unexpected("':' after a key")
		}
		s.pos++
		if s.AtEnd() {
			return s.unexpected("a value")
		}
		if err := member(key, depth+1, sub); err != nil {
			return err
		}
		switch s.Peek() {
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

// Array reads an array, calling item for each element with the scanner at it.
func (s *Scanner) Array(depth int, path string, item func(i, depth int, path string) error) error {
	if depth+1 > s.maxDepth {
		return &Error{Kind: TooDeep, Offset: s.pos, Path: path,
			msg: fmt.Sprintf("the JSON nests deeper than %d levels", s.maxDepth)}
	}
	s.pos++ // '['
	if s.Peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if s.AtEnd() {
			return s.unexpected("a value")
		}
		if err := item(i, depth+1, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
		switch s.Peek() {
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

// JoinPath names a member of an object: "params" + "name" is "params.name".
func JoinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// ReadString reads a string literal and returns its value. Control characters must be escaped
// and the text must be UTF-8, as RFC 8259 requires.
func (s *Scanner) ReadString() (string, error) {
	if s.Peek() != '"' {
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
				return "", &Error{Kind: Syntax, Offset: start, msg: "a string's escapes cannot be read"}
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
func (s *Scanner) escape() error {
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

// ReadNumber reads a number literal as RFC 8259 spells it and returns its text.
func (s *Scanner) ReadNumber() (string, error) {
	s.SkipSpace()
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

func (s *Scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

// ReadLiteral reads true, false or null and returns it.
func (s *Scanner) ReadLiteral() (string, error) {
	s.SkipSpace()
	for _, lit := range []string{"true", "false", "null"} {
		if strings.HasPrefix(string(s.data[s.pos:min(len(s.data), s.pos+len(lit))]), lit) {
			s.pos += len(lit)
			return lit, nil
		}
	}
	return "", s.unexpected("a value")
}

// Check returns nil when data is exactly one JSON value (surrounding space allowed) that
// repeats no key and nests at most MaxNesting levels, and else says why it is not.
func Check(data []byte) error {
	s := NewScanner(data)
	if s.AtEnd() {
		return s.unexpected("a value")
	}
	if err := s.SkipValue(0, ""); err != nil {
		return err
	}
	if !s.AtEnd() {
		return s.syntaxError("more text after the JSON value, at byte %d: send one JSON value", s.pos+1)
	}
	return nil
}
