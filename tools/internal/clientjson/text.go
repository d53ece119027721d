package clientjson

import (
	"regexp"
	"strconv"
)

// MaxQuoted is how many characters of a client's value a message quotes.
const MaxQuoted = 80

// Quoted shows a value from the client in a message: quoted so space and control characters
// are visible, and cut after MaxQuoted characters (then "…") so that a huge argument cannot
// flood the reply. Every message that quotes a client's text goes through it.
func Quoted(s string) string {
	return strconv.Quote(Bound(s, MaxQuoted))
}

// Bound cuts s to at most n characters, marking the cut with "…".
func Bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// ShowsGoInternals reports whether msg reads as Go wrote it, not a person: a message about a
// client's call should never show one, so a message that does is a bug to log and replace.
func ShowsGoInternals(msg string) bool { return goInternals.MatchString(msg) }

// goInternals matches what Go, not a person, would write: reflection, %v dumps of maps and
// structs, fmt's complaints, Go type names of the SDK and the standard library.
var goInternals = regexp.MustCompile(`reflect|map\[|struct \{|struct field|%!|\b(mcp|jsonrpc2?|json|jsonschema|tools|ynab|confirm|journal|http|url|time|strconv|errors|context|io|os)\.[A-Z]|\binterface ?\{|Go (struct|value|type)|\bunmarshal`)
