package tools

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pastVerbs turn the verb a preview's first line starts with into its past tense. Every first
// line of spec/tools.md and confirmation.md §7 starts with one of these.
var pastVerbs = map[string]string{
	"Approve": "Approved", "Budget": "Budgeted", "Change": "Changed", "Create": "Created",
	"Delete": "Deleted", "Import": "Imported", "Merge": "Merged", "Move": "Moved",
	"Recategorise": "Recategorised", "Reconcile": "Reconciled", "Rename": "Renamed",
	"Schedule": "Scheduled", "Set": "Set", "Split": "Split",
}

// happened is what a write did, said from its preview's first line, which asks it: "Move 30.00
// from Tennis to Restaurants for 2026-12-01?" becomes "Moved 30.00 from Tennis to Restaurants
// for 2026-12-01", "Undo: recategorise 2 transaction(s)?" becomes "Undone: recategorised 2
// transaction(s)". The journal keeps the question in the preview, as the person saw it, and
// this as the summary that lists show. A line of a verb it does not know loses its question
// mark only.
func happened(first string) string {
	s := strings.TrimSuffix(strings.TrimSpace(first), "?")
	for prefix, done := range map[string]string{"Undo: ": "Undone: ", "Redo: ": "Redone: "} {
		if rest, ok := strings.CutPrefix(s, prefix); ok {
			return done + lowerFirst(happened(upperFirst(rest)))
		}
	}
	verb, rest, _ := strings.Cut(s, " ")
	if past, ok := pastVerbs[verb]; ok {
		if rest == "" {
			return past
		}
		return past + " " + rest
	}
	return s
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
