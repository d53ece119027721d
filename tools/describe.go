package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/undo"
	"github.com/avenir-mcp/avenir/ynab"
)

// Saying a change in words: the preview line of one journaled change (what a person reads
// before an undo, a merge of payees, an edit of transactions or of a scheduled transaction, and
// on the card), each field's value as a person reads it, and what a partly applied write left in
// YNAB. The words come from the change as the journal records it, and from the plan for names.

// describeChange is one line of a preview: what happens to one thing.
func describeChange(p *ynab.Plan, ch journal.Change) string {
	switch ch.Kind {
	case journal.KindDeletedTransaction:
		return "Delete " + ch.Label
	case journal.KindNewTransaction:
		return "Create " + ch.Label
	case journal.KindDeletedScheduled:
		return "Delete the scheduled transaction " + ch.Label
	case journal.KindNewScheduled:
		return "Schedule " + ch.Label
	}
	before, _ := decodeFields(ch.Before)
	after, _ := decodeFields(ch.After)
	var parts []string
	if b, a := payeeWords(p, before), payeeWords(p, after); a != "" && a != b {
		parts = append(parts, "payee "+b+" → "+a)
	}
	names := make([]string, 0, len(after))
	for k := range after {
		if k != "payee_id" && k != "payee_name" && k != "transfer" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		if strings.HasPrefix(k, "goal_") || undo.Holds(map[string]json.RawMessage{k: before[k]}, fieldsJSON(map[string]any{k: after[k]})) {
			continue
		}
		name := fieldNames[k]
		if name != "" && (len(after) > 1 || !slices.Contains(unnamedFields, k)) {
			name += " "
		} else {
			name = ""
		}
		parts = append(parts, name+fieldWords(p, k, before[k])+" → "+fieldWords(p, k, after[k]))
	}
	if _, ok := after["goal_type"]; ok {
		parts = append(parts, "target "+targetWords(p, before)+" → "+targetWords(p, after))
	}
	return ch.Label + ": " + strings.Join(parts, ", ")
}

// fieldNames name the fields of a change in a preview line ("date 2026-12-01 → 2026-11-30").
// A change of one of unnamedFields alone shows its values only, which say what they are.
var (
	fieldNames = map[string]string{"account_id": "account", "amount": "amount", "approved": "approval", "category_id": "category",
		"category_group_id": "group", "cleared": "cleared", "date": "date", "flag_color": "flag", "frequency": "frequency",
		"memo": "memo", "name": "name", "note": "note"}
	unnamedFields = []string{"approved", "budgeted", "category_group_id", "category_id", "flag_color", "name"}
)

// payeeWords names the payee of a change's fields: an existing one by its name, a new one by
// the name it will have; "" when the fields name no payee.
func payeeWords(p *ynab.Plan, f map[string]json.RawMessage) string {
	var s *string
	if raw, ok := f["payee_name"]; ok && json.Unmarshal(raw, &s) == nil && s != nil {
		return *s + " (new payee)"
	}
	raw, ok := f["payee_id"]
	if !ok {
		return ""
	}
	if json.Unmarshal(raw, &s) != nil || s == nil {
		return "no payee"
	}
	if n := payeeName(p, s); n != "" {
		return n
	}
	return *s
}

// fieldWords shows one field's value the way a person reads it.
func fieldWords(p *ynab.Plan, field string, raw json.RawMessage) string {
	var s *string
	switch field {
	case "category_id":
		_ = json.Unmarshal(raw, &s)
		return categoryShort(p, s)
	case "category_group_id":
		_ = json.Unmarshal(raw, &s)
		if s == nil {
			return "no group"
		}
		return groupName(p, *s)
	case "flag_color":
		_ = json.Unmarshal(raw, &s)
		if s == nil || *s == "" {
			return "none"
		}
		return *s
	case "approved":
		var b bool
		_ = json.Unmarshal(raw, &b)
		if b {
			return "approved"
		}
		return "not approved"
	case "budgeted":
		var n int64
		_ = json.Unmarshal(raw, &n)
		return FormatPlain(n, Digits(currency(p)))
	case "name":
		_ = json.Unmarshal(raw, &s)
		return "‘" + str(s) + "’"
	case "amount":
		var n int64
		_ = json.Unmarshal(raw, &n)
		return FormatFlow(n, Digits(currency(p)))
	case "account_id":
		_ = json.Unmarshal(raw, &s)
		return accountName(p, str(s))
	case "memo":
		_ = json.Unmarshal(raw, &s)
		if s == nil || *s == "" {
			return "none"
		}
		return quoted(*s)
	case "note":
		_ = json.Unmarshal(raw, &s)
		return noteWords(s)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil || v == nil {
		return "none"
	}
	return fmt.Sprint(v)
}

// targetWords describes a target from a category's goal fields.
func targetWords(p *ynab.Plan, f map[string]json.RawMessage) string {
	return targetFrom(f).words(Digits(currency(p)))
}

func targetFrom(f map[string]json.RawMessage) target {
	var c ynab.Category
	b, _ := json.Marshal(f)
	_ = json.Unmarshal(b, &c)
	return targetOf(&c)
}

// describeAfter is " (assigned now X)" for a change whose after-state is an assigned amount,
// the common case of a multi-request write (move_money); otherwise empty.
func describeAfter(c journal.Change, digits int) string {
	var f struct {
		Budgeted *int64 `json:"budgeted"`
	}
	if c.Kind != journal.KindMonthCategory || json.Unmarshal(c.After, &f) != nil || f.Budgeted == nil {
		return ""
	}
	return fmt.Sprintf(" (assigned now %s)", FormatPlain(*f.Budgeted, digits))
}
