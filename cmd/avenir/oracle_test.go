package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
)

// The oracle of the crash and concurrency tests: it holds the journal against YNAB, as read
// from the sandbox. The journal is replayed in order over the plan as it was at the start:
// every change marked applied sets its fields to its after, every change marked not_applied
// sets nothing; what that yields must be what YNAB holds, field by field. On the way each
// change's before must be what the replay holds at that point (the state read when the write
// was applied), each operation's status must follow from its changes' outcomes, every created
// transaction must be owned by one operation at most, entered without an import id, and no
// transaction may be in YNAB twice.
//
// The journal is read the way a person reads it, `avenir journal list --json`, and decoded
// loosely (jOp), so that fields the journal does not carry yet show as disagreements rather
// than as a build failure.

// jOp is an operation as `avenir journal list --json` prints it.
type jOp struct {
	ID       string    `json:"id"`
	Tool     string    `json:"tool"`
	Summary  string    `json:"summary"`
	Status   string    `json:"status"`
	Error    string    `json:"error"`
	Note     string    `json:"note"`
	UndoOf   string    `json:"undo_of"`
	UndoneBy string    `json:"undone_by"`
	Changes  []jChange `json:"changes"`
	Events   []jEvent  `json:"events"`
	raw      json.RawMessage
}

// jEvent is one event of a jOp.
type jEvent struct {
	Type string `json:"type"`
}

// jChange is one change of a jOp. Outcome is applied, not_applied or unknown; ID is, for a
// created transaction, the id YNAB gave it.
type jChange struct {
	Kind    string          `json:"kind"`
	ID      string          `json:"id"`
	Month   string          `json:"month"`
	Label   string          `json:"label"`
	Before  json.RawMessage `json:"before"`
	After   json.RawMessage `json:"after"`
	Outcome string          `json:"outcome"`
	// EnteredBy names the earlier operation that entered a transaction an identical retry
	// found in YNAB: the retry does not own it.
	EnteredBy string `json:"entered_by"`
}

// Outcomes of a change (spec/tools.md, "Journal and undo").
const (
	outcomeApplied    = "applied"
	outcomeNotApplied = "not_applied"
	outcomeUnknown    = "unknown"
)

// Kinds of journaled change the oracle models.
const (
	kindMonth   = "month_category"
	kindTx      = "transaction"
	kindCreated = "new_transaction"
	kindDeleted = "deleted_transaction"
)

// readJournal returns every operation of the journal, oldest first.
func readJournal(t *testing.T, env []string) []jOp {
	t.Helper()
	stdout, stderr, code := runBinary(t, env, "journal", "list", "--json", "--limit", "1000000")
	if code != 0 {
		t.Fatalf("avenir journal list --json: exit %d: %s", code, stderr)
	}
	var ops []jOp
	dec := json.NewDecoder(strings.NewReader(stdout))
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("avenir journal list --json: %v\n%s", err, stdout)
		}
		var op jOp
		if err := json.Unmarshal(raw, &op); err != nil {
			t.Fatalf("avenir journal list --json: %v\n%s", err, raw)
		}
		op.raw = raw
		ops = append(ops, op)
	}
	slices.SortFunc(ops, func(a, b jOp) int { return strings.Compare(a.ID, b.ID) }) // ULIDs: in time order
	return ops
}

// verdict is what the oracle found.
type verdict struct {
	problems   map[string]string // a key per distinct disagreement → its description
	byKind     map[string]int    // disagreements per kind
	duplicates int               // transactions YNAB holds more than once (by the memo each create sent)
	unowned    int               // transactions YNAB holds beyond those that applied creates own
	prepared   int               // operations still prepared
	noOutcome  int               // changes without an outcome
}

func newVerdict() *verdict {
	return &verdict{problems: map[string]string{}, byKind: map[string]int{}}
}

func (v *verdict) add(kind, key, format string, args ...any) {
	k := kind + "|" + key
	if _, seen := v.problems[k]; seen {
		return
	}
	v.problems[k] = kind + ": " + fmt.Sprintf(format, args...)
	v.byKind[kind]++
}

// merge adds w's disagreements to v (each counted once) and keeps the larger counts.
func (v *verdict) merge(w *verdict) {
	for k, p := range w.problems {
		if _, seen := v.problems[k]; !seen {
			v.problems[k] = p
			v.byKind[strings.SplitN(k, "|", 2)[0]]++
		}
	}
	v.duplicates = max(v.duplicates, w.duplicates)
	v.unowned = max(v.unowned, w.unowned)
	v.prepared = max(v.prepared, w.prepared)
	v.noOutcome = max(v.noOutcome, w.noOutcome)
}

// disagreements is how many distinct disagreements were found.
func (v *verdict) disagreements() int { return len(v.problems) }

// report lists the disagreements, at most n of each kind.
func (v *verdict) report(n int) string {
	byKind := map[string][]string{}
	for k, p := range v.problems {
		kind := strings.SplitN(k, "|", 2)[0]
		byKind[kind] = append(byKind[kind], p)
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&b, "%s %d; ", k, len(byKind[k]))
	}
	for _, k := range kinds {
		lines := byKind[k]
		sort.Strings(lines)
		for i, l := range lines {
			if i == n {
				fmt.Fprintf(&b, "\n  … and %d more of %s", len(lines)-n, k)
				break
			}
			b.WriteString("\n  " + l)
		}
	}
	return b.String()
}

// oracle holds the plan as it was before the first write.
type oracle struct {
	initial ynab.PlanDetail
	// memoMark starts the memo of every transaction the test creates, so that a duplicate can
	// be told by its memo.
	memoMark string
}

// key names one field of one thing in YNAB: a transaction's field, or a category's assigned
// amount in a month (id "month/category", field "budgeted").
type key struct{ id, field string }

func monthKey(month, category string) key { return key{month + "/" + category, "budgeted"} }

// replay is the plan as the journal says it must be: values set by applied changes over the
// initial plan.
type replay struct {
	o         *oracle
	vals      map[key]string
	exists    map[string]bool // transaction id → live, where a change made or deleted it
	uncertain map[key]bool    // set by a change whose outcome is not known: not compared
	gone      map[string]bool // transaction id whose existence is not known
	touched   map[key]bool
	txs       map[string]bool   // transaction ids a change is about
	labels    map[string]string // id (or month/category) → how a change named it
}

// check holds ops against now, YNAB's plan. allowPrepared says whether an operation may still
// be prepared (one in flight); after a restart whose recovery could read YNAB, none may.
func (o *oracle) check(ops []jOp, now ynab.PlanDetail, allowPrepared bool) *verdict {
	v := newVerdict()
	r := &replay{o: o, vals: map[key]string{}, exists: map[string]bool{}, uncertain: map[key]bool{},
		gone: map[string]bool{}, touched: map[key]bool{}, txs: map[string]bool{}, labels: map[string]string{}}
	owners := map[string][]string{}  // created transaction id → the operations owning it
	memoUnknown := map[string]bool{} // memos of creates whose outcome is not known
	sent := map[string][]string{}    // memo → the changes that sent it, for the messages
	for _, op := range ops {
		for _, ch := range op.Changes {
			if ch.Kind == kindCreated {
				memo := fieldString(ch.After, "memo")
				sent[memo] = append(sent[memo], fmt.Sprintf("%s %s %s: %s id %q%s", op.ID, op.Tool, op.Status, ch.Outcome, ch.ID,
					map[bool]string{true: " entered by " + ch.EnteredBy}[ch.EnteredBy != ""]))
			}
		}
	}
	for _, op := range ops {
		o.checkStatus(v, op, allowPrepared)
		for i, ch := range op.Changes {
			where := fmt.Sprintf("%s %s change %d (%s %s)", op.ID, op.Tool, i+1, ch.Kind, ch.Label)
			outcome := effectiveOutcome(op, ch)
			r.checkBefore(v, where, ch)
			switch outcome {
			case outcomeApplied:
				r.apply(v, where, op, ch, owners)
			case outcomeNotApplied:
				r.note(ch)
			default:
				r.doubt(ch)
				if ch.Kind == kindCreated {
					memoUnknown[fieldString(ch.After, "memo")] = true
				}
			}
		}
	}
	r.compare(v, now)
	o.checkOwners(v, owners, now)
	o.countDuplicates(v, r, now, memoUnknown, sent)
	return v
}

// effectiveOutcome is a change's outcome; where the journal records none (an older journal),
// the one its operation's status implies, so that the rest of the oracle still judges the
// substance.
func effectiveOutcome(op jOp, ch jChange) string {
	if ch.Outcome != "" {
		return ch.Outcome
	}
	switch op.Status {
	case "applied", "partial": // an older journal kept only the written changes of a partial one
		return outcomeApplied
	case "failed":
		return outcomeNotApplied
	}
	return outcomeUnknown
}

// checkStatus: the status follows from the outcomes (applied: all applied; failed: none;
// partial: some; prepared: not known), and only an operation in flight is prepared.
func (o *oracle) checkStatus(v *verdict, op jOp, allowPrepared bool) {
	counts := map[string]int{}
	for i, ch := range op.Changes {
		if ch.Outcome == "" {
			v.noOutcome++
			v.add("no outcome", fmt.Sprintf("%s/%d", op.ID, i), "%s %s (%s): change %d (%s) carries no outcome",
				op.ID, op.Tool, op.Status, i+1, ch.Label)
		}
		counts[ch.Outcome]++
	}
	n := len(op.Changes)
	switch op.Status {
	case "prepared":
		v.prepared++
		if !allowPrepared {
			v.add("left prepared", op.ID, "%s %s %q is still prepared after a restart whose recovery could read YNAB", op.ID, op.Tool, op.Summary)
		}
		if counts[outcomeUnknown] == 0 && counts[""] == 0 {
			v.add("status", op.ID, "%s %s is prepared but the outcome of each of its changes is known", op.ID, op.Tool)
		}
	case "applied":
		if counts[outcomeNotApplied]+counts[outcomeUnknown] > 0 {
			v.add("status", op.ID, "%s %s is applied but %d of its %d changes are not applied or unknown", op.ID, op.Tool,
				counts[outcomeNotApplied]+counts[outcomeUnknown], n)
		}
	case "failed":
		if counts[outcomeApplied]+counts[outcomeUnknown] > 0 {
			v.add("status", op.ID, "%s %s is failed but %d of its %d changes are applied or unknown", op.ID, op.Tool,
				counts[outcomeApplied]+counts[outcomeUnknown], n)
		}
	case "partial":
		if counts[outcomeUnknown] > 0 || (counts[""] == 0 && (counts[outcomeApplied] == 0 || counts[outcomeNotApplied] == 0)) {
			v.add("status", op.ID, "%s %s is partial but its changes are %v (want some applied and some not)", op.ID, op.Tool, counts)
		}
	default:
		v.add("status", op.ID, "%s %s has the status %q", op.ID, op.Tool, op.Status)
	}
	for i, ch := range op.Changes {
		if ch.Outcome != "" && ch.Outcome != outcomeApplied && ch.Outcome != outcomeNotApplied && ch.Outcome != outcomeUnknown {
			v.add("status", fmt.Sprintf("%s/%d", op.ID, i), "%s change %d has the outcome %q", op.ID, i+1, ch.Outcome)
		}
		if ch.Outcome == outcomeUnknown && op.Status != "prepared" {
			v.add("status", fmt.Sprintf("%s/%d", op.ID, i), "%s %s is %s but change %d (%s) is unknown", op.ID, op.Tool, op.Status, i+1, ch.Label)
		}
	}
}

// fields of a change that the replay compares, per kind; the rest (a new payee's name, an
// import id) YNAB turns into something else.
var createdFields = []string{"account_id", "date", "amount", "category_id", "memo", "cleared", "approved", "flag_color", "payee_id"}

// changeKeys are the fields a change is about.
func changeKeys(ch jChange) []key {
	var ks []key
	switch ch.Kind {
	case kindMonth:
		ks = append(ks, monthKey(ch.Month, ch.ID))
	case kindTx:
		names := map[string]bool{}
		for f := range decodeObject(ch.Before) {
			names[f] = true
		}
		for f := range decodeObject(ch.After) {
			names[f] = true
		}
		for f := range names {
			ks = append(ks, key{ch.ID, f})
		}
	case kindCreated, kindDeleted:
		if ch.ID != "" {
			for _, f := range createdFields {
				ks = append(ks, key{ch.ID, f})
			}
		}
	}
	return ks
}

// value is what the replay holds for k: set by a change, else what the plan had at the start.
func (r *replay) value(k key) (string, bool) {
	if s, ok := r.vals[k]; ok {
		return s, true
	}
	return readField(r.o.initial, k)
}

func (r *replay) live(id string) bool {
	if e, ok := r.exists[id]; ok {
		return e
	}
	return liveIn(r.o.initial, id)
}

// checkBefore: a change's before is what the replay holds when it is applied.
func (r *replay) checkBefore(v *verdict, where string, ch jChange) {
	if ch.Kind != kindMonth && ch.Kind != kindTx {
		return
	}
	for f, raw := range decodeObject(ch.Before) {
		k := key{ch.ID, f}
		if ch.Kind == kindMonth {
			k = monthKey(ch.Month, ch.ID)
		}
		if r.uncertain[k] || (ch.Kind == kindTx && r.gone[ch.ID]) {
			continue
		}
		want, ok := r.value(k)
		if got := canon(f, raw); ok && got != want {
			v.add("before", where+"/"+f, "%s: before %s = %s, but the journal's earlier applied changes leave %s", where, f, got, want)
		}
	}
}

// apply sets what an applied change wrote.
func (r *replay) apply(v *verdict, where string, op jOp, ch jChange, owners map[string][]string) {
	r.note(ch)
	switch ch.Kind {
	case kindMonth:
		k := monthKey(ch.Month, ch.ID)
		r.vals[k] = canon("budgeted", decodeObject(ch.After)["budgeted"])
		delete(r.uncertain, k)
	case kindTx:
		for f, raw := range decodeObject(ch.After) {
			r.vals[key{ch.ID, f}] = canon(f, raw)
			delete(r.uncertain, key{ch.ID, f})
		}
	case kindCreated:
		if ch.EnteredBy != "" { // an identical retry: the earlier operation owns it
			if ch.ID != "" && !r.gone[ch.ID] && !r.live(ch.ID) {
				v.add("entered by", where, "%s says %s entered it, but the journal's applied changes leave no transaction %s", where, ch.EnteredBy, ch.ID)
			}
			return
		}
		if ch.ID == "" {
			v.add("no id", where, "%s is applied but carries no id of the transaction YNAB created", where)
			return
		}
		owners[ch.ID] = append(owners[ch.ID], op.ID)
		r.exists[ch.ID] = true
		delete(r.gone, ch.ID)
		after := decodeObject(ch.After)
		for _, f := range createdFields {
			raw, sent := after[f]
			if !sent && (f == "approved" || f == "payee_id") {
				delete(r.vals, key{ch.ID, f})
				r.uncertain[key{ch.ID, f}] = true // not sent: YNAB decides
				continue
			}
			r.vals[key{ch.ID, f}] = canon(f, raw)
			delete(r.uncertain, key{ch.ID, f})
		}
		// Not compared with YNAB unless a change is about it (a split): what was sent, no lines
		// when none were.
		r.vals[key{ch.ID, "subtransactions"}] = canon("subtransactions", after["subtransactions"])
		delete(r.uncertain, key{ch.ID, "subtransactions"})
	case kindDeleted:
		r.exists[ch.ID] = false
		delete(r.gone, ch.ID)
	default:
		v.add("kind", where, "%s: a change of a kind the oracle does not model", where)
	}
}

// note records what a change is about, so that the end compares it with YNAB.
func (r *replay) note(ch jChange) {
	for _, k := range changeKeys(ch) {
		r.touched[k] = true
		r.labels[k.id] = ch.Label
	}
	if ch.ID != "" && ch.Kind != kindMonth {
		r.txs[ch.ID] = true
	}
}

// doubt marks what a change of unknown outcome is about as not comparable.
func (r *replay) doubt(ch jChange) {
	r.note(ch)
	for _, k := range changeKeys(ch) {
		r.uncertain[k] = true
	}
	if ch.Kind == kindCreated || ch.Kind == kindDeleted {
		r.gone[ch.ID] = true
	}
}

// compare holds the replay against YNAB.
func (r *replay) compare(v *verdict, now ynab.PlanDetail) {
	for id := range r.txs {
		if r.gone[id] {
			continue
		}
		want, got := r.live(id), liveIn(now, id)
		if want != got {
			v.add("exists", id, "transaction %s (%s): the journal says it %s, YNAB says it %s", id, r.labels[id], existsWords(want), existsWords(got))
		}
	}
	for k := range r.touched {
		if r.uncertain[k] {
			continue
		}
		if !strings.Contains(k.id, "/") && (r.gone[k.id] || !r.live(k.id) || !liveIn(now, k.id)) {
			continue // a transaction: compared above when it is not there
		}
		want, wok := r.value(k)
		got, gok := readField(now, k)
		if wok != gok || want != got {
			v.add("value", k.id+"/"+k.field, "%s (%s) %s: the journal's applied changes leave %s, YNAB holds %s", k.id, r.labels[k.id], k.field, want, got)
		}
	}
}

func existsWords(live bool) string {
	if live {
		return "is there"
	}
	return "is not there"
}

// checkOwners: one owner per created transaction, and no import id on it (avenir enters
// transactions as a person would).
func (o *oracle) checkOwners(v *verdict, owners map[string][]string, now ynab.PlanDetail) {
	for id, ops := range owners {
		if len(ops) > 1 {
			v.add("two owners", id, "transaction %s is owned by %d operations: %s", id, len(ops), strings.Join(ops, ", "))
		}
		if t := findTx(now, id); t != nil && !t.Deleted && t.ImportID != nil && *t.ImportID != "" {
			v.add("import id", id, "transaction %s (created by %s) carries the import id %s: it was not entered as a person would", id, ops[0], *t.ImportID)
		}
	}
}

// countDuplicates counts, per memo the test gave a created transaction, the live transactions
// beyond one (duplicates) and beyond those the replay says exist (unowned).
func (o *oracle) countDuplicates(v *verdict, r *replay, now ynab.PlanDetail, unknown map[string]bool, sent map[string][]string) {
	if o.memoMark == "" {
		return
	}
	live := map[string]int{}
	for _, t := range now.Transactions {
		if !t.Deleted && t.Memo != nil && strings.HasPrefix(*t.Memo, o.memoMark) {
			live[*t.Memo]++
		}
	}
	owned := map[string]int{}
	for id := range r.txs {
		if r.gone[id] || !r.live(id) {
			continue
		}
		if m, ok := r.vals[key{id, "memo"}]; ok {
			var s string
			if json.Unmarshal([]byte(m), &s) == nil && strings.HasPrefix(s, o.memoMark) {
				owned[s]++
			}
		}
	}
	for memo, n := range live {
		if n > 1 {
			v.duplicates += n - 1
			v.add("duplicate", memo, "YNAB holds %d transactions with the memo %q, which one create sent; the journal's changes that sent it: %s",
				n, memo, strings.Join(sent[memo], "; "))
		}
		if !unknown[memo] && n > owned[memo] {
			v.unowned += n - owned[memo]
			v.add("unowned", memo, "YNAB holds %d transaction(s) with the memo %q, the journal's applied creates own %d; the changes that sent it: %s",
				n, memo, owned[memo], strings.Join(sent[memo], "; "))
		}
	}
}

// readField reads k from a plan export, in canonical form; false when the thing is not there.
func readField(p ynab.PlanDetail, k key) (string, bool) {
	if month, cat, ok := strings.Cut(k.id, "/"); ok {
		for _, m := range p.Months {
			if m.Month != month {
				continue
			}
			for _, c := range m.Categories {
				if c.ID == cat {
					return strconv.FormatInt(c.Budgeted, 10), true
				}
			}
		}
		return "", false
	}
	t := findTx(p, k.id)
	if t == nil || t.Deleted {
		return "", false
	}
	if k.field == "subtransactions" {
		var lines []map[string]any
		for _, s := range p.Subtransactions {
			if s.TransactionID == k.id && !s.Deleted {
				lines = append(lines, map[string]any{"amount": s.Amount, "category_id": s.CategoryID, "memo": s.Memo})
			}
		}
		return canon("subtransactions", mustJSON(lines)), true
	}
	return canon(k.field, decodeObject(mustJSON(t))[k.field]), true
}

func findTx(p ynab.PlanDetail, id string) *ynab.TransactionSummary {
	for i := range p.Transactions {
		if p.Transactions[i].ID == id {
			return &p.Transactions[i]
		}
	}
	return nil
}

func liveIn(p ynab.PlanDetail, id string) bool {
	t := findTx(p, id)
	return t != nil && !t.Deleted
}

// canon is a field's value in one form for comparison: JSON with "" as null (YNAB writes "no
// memo" and "no flag" both ways), and a split's lines as a sorted list of amount, category and
// memo.
func canon(field string, raw json.RawMessage) string {
	if field == "subtransactions" {
		var lines []map[string]json.RawMessage
		if json.Unmarshal(raw, &lines) != nil {
			return "null"
		}
		if len(lines) == 0 {
			return "null" // no split
		}
		out := make([]string, 0, len(lines))
		for _, l := range lines {
			out = append(out, canon("amount", l["amount"])+","+canon("category_id", l["category_id"])+","+canon("memo", l["memo"]))
		}
		sort.Strings(out)
		return "[" + strings.Join(out, ";") + "]"
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == `""` || string(raw) == "null" {
		return "null"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return string(raw)
	}
	return string(mustJSON(x))
}

// decodeObject reads a journaled state (null or absent: no fields). One that is not a JSON
// object is a journal the oracle cannot read, and it says so rather than see no fields.
func decodeObject(raw json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &m); err != nil {
			panic(fmt.Sprintf("a journaled state that is not a JSON object: %s: %v", raw, err))
		}
	}
	return m
}

// fieldString is a string field of a journaled state: "" where it is absent or null.
func fieldString(raw json.RawMessage, field string) string {
	v, ok := decodeObject(raw)[field]
	if !ok {
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		panic(fmt.Sprintf("the journaled %s is not a string: %s: %v", field, v, err))
	}
	return s
}
