package tools

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/avenir-mcp/avenir/statement"
	"github.com/avenir-mcp/avenir/ynab"
)

// How import_statement tells which of a statement's lines YNAB holds already (tools.md,
// "Statements"): by the import id a file import gives a line, else by a transaction of the same
// amount dated near it; and how a new line's payee is found in the plan's own history.

// matchWindow is how many days apart a line and a transaction may be dated and still match:
// YNAB's own window for matching an imported transaction to a user-entered one (the API's
// NewTransaction.import_id: "with a date +/-10 days from the imported transaction date").
const matchWindow = 10

// importID is the import id YNAB gives a line its File Based Import or Direct Import brings in:
// "YNAB:[milliunit_amount]:[iso_date]:[occurrence]", the occurrence counting the lines of the
// same amount and date before it, from 1 (the API's NewTransaction.import_id: "If a second
// transaction on the same account was imported and had the same date and same amount, its
// import_id would be 'YNAB:-294230:2015-12-30:2'"). Using YNAB's own format is what lets a later
// file or Direct Import of the same line recognise it, and YNAB refuses it twice on an account.
func importID(amount int64, date string, occurrence int) string {
	return fmt.Sprintf("YNAB:%d:%s:%d", amount, date, occurrence)
}

// lineKind is what import_statement does with a statement line.
type lineKind int

const (
	lineNew       lineKind = iota // entered, with its import id (or without it, again)
	lineMatched                   // a transaction in YNAB is this line: marked cleared
	lineImported                  // a transaction carries its import id: nothing to do
	lineAmbiguous                 // two or more transactions fit equally: left alone
	lineLeftOut                   // YNAB would not take it (0.00, too old, in the future)
)

// stmtLine is one line of a statement as import_statement plans it.
type stmtLine struct {
	statement.Line
	importID string
	kind     lineKind
	tx       *ynab.TransactionSummary   // lineMatched, lineImported: the transaction in YNAB
	fits     []*ynab.TransactionSummary // lineAmbiguous: the transactions that fit
	why      string                     // lineAmbiguous, lineLeftOut: in words

	// lineNew: what it is entered with.
	payeeID, payeeName string // an existing payee's id, or a new payee's name ("" and "": none)
	categoryID         string
	// again: an undo deleted the transaction an earlier import entered for this line. YNAB
	// keeps a deleted transaction's import id taken and skips a line that carries it, so the
	// line is entered as redo enters it, without an import id.
	again bool
}

// bankText is what the bank calls a line: its payee, else its description.
func (l *stmtLine) bankText() string {
	if s := strings.TrimSpace(l.Payee); s != "" {
		return s
	}
	return strings.TrimSpace(l.Description)
}

// numberLines gives each line its import id, counting occurrences of an amount and date in the
// statement's order, as YNAB's file import counts them.
func numberLines(lines []statement.Line) []stmtLine {
	seen := map[string]int{}
	out := make([]stmtLine, len(lines))
	for i, l := range lines {
		key := fmt.Sprintf("%d:%s", l.Amount, l.Date)
		seen[key]++
		out[i] = stmtLine{Line: l, importID: importID(l.Amount, l.Date, seen[key])}
	}
	return out
}

// matchLines decides, for the lines of ls not left out, which are imported already, which match
// a transaction of acct, which are ambiguous and which are new. undone holds the import ids on
// acct whose transactions an undo deleted (the journal knows them; YNAB's export leaves deleted
// transactions out): their lines are new again, to be entered without the id. Each transaction is the match of
// at most one line; the pairs are taken closest date first, then most alike payee; a line with
// two equally good transactions, or a transaction two lines fit equally well, is ambiguous.
func matchLines(p *ynab.Plan, acct *ynab.Account, ls []stmtLine, undone map[string]bool) {
	// The account's live transactions by amount: a line is only ever compared with those of its
	// own amount (a statement of 10,000 lines against an account of 25,000 transactions would
	// otherwise compare every pair).
	byAmount := map[int64][]*ynab.TransactionSummary{}
	byImport := map[string]*ynab.TransactionSummary{}
	for i := range p.Transactions {
		t := &p.Transactions[i]
		if t.AccountID != acct.ID {
			continue
		}
		if t.ImportID != nil {
			byImport[*t.ImportID] = t // a deleted transaction keeps its import id taken in YNAB
		}
		if !t.Deleted {
			byAmount[t.Amount] = append(byAmount[t.Amount], t)
		}
	}
	claimed := map[string]int{} // transaction id → the line that has it
	for i := range ls {
		l := &ls[i]
		if l.kind == lineLeftOut {
			continue
		}
		t, ok := byImport[l.importID]
		if undone[l.importID] && (!ok || t.Deleted) {
			l.again = true
			continue
		}
		if ok {
			l.kind, l.tx = lineImported, t
			if t.Deleted {
				l.why = "deleted in YNAB since; YNAB keeps its import id and will not take it again"
			} else {
				claimed[t.ID] = i
			}
		}
	}
	type pair struct {
		line, gap, alike int
		tx               *ynab.TransactionSummary
	}
	var pairs []pair
	for i := range ls {
		l := &ls[i]
		if l.kind != lineNew {
			continue
		}
		var words []string
		for _, t := range byAmount[l.Amount] {
			if _, ok := claimed[t.ID]; ok {
				continue
			}
			gap := dayGap(l.Date, t.Date)
			if gap > matchWindow {
				continue
			}
			if words == nil {
				words = bankWords(l.Payee + " " + l.Description)
			}
			pairs = append(pairs, pair{line: i, gap: gap, alike: alikeness(words, p, t), tx: t})
		}
	}
	better := func(a, b pair) int {
		if a.gap != b.gap {
			return a.gap - b.gap
		}
		return b.alike - a.alike
	}
	slices.SortStableFunc(pairs, better)
	taken := map[string]bool{}
	decided := map[int]bool{}
	for k, pr := range pairs {
		if decided[pr.line] || taken[pr.tx.ID] {
			continue
		}
		// Every other free pair as good as this one, sharing its line or its transaction, makes
		// the choice a guess.
		var rivals []pair
		for _, q := range pairs[k+1:] {
			if better(pr, q) != 0 {
				break
			}
			if (q.line == pr.line && !taken[q.tx.ID]) || (q.tx.ID == pr.tx.ID && !decided[q.line]) {
				rivals = append(rivals, q)
			}
		}
		if len(rivals) == 0 {
			ls[pr.line].kind, ls[pr.line].tx = lineMatched, pr.tx
			decided[pr.line], taken[pr.tx.ID] = true, true
			claimed[pr.tx.ID] = pr.line
			continue
		}
		fits := []*ynab.TransactionSummary{pr.tx}
		lines := []int{pr.line}
		for _, q := range rivals {
			if q.line == pr.line {
				fits = append(fits, q.tx)
			} else {
				lines = append(lines, q.line)
			}
		}
		for _, i := range lines {
			if !decided[i] {
				ls[i].kind, ls[i].fits, decided[i] = lineAmbiguous, fits, true
				ls[i].why = "fits more than one transaction equally well"
				if len(fits) == 1 {
					ls[i].why = "another line fits the same transaction equally well"
				}
			}
		}
	}
	// A line left new while a transaction of its amount is near it, taken by another line: YNAB
	// itself would match the new line to that transaction when it is entered with an import id
	// (a user-entered one, not matched yet, no split or transfer), so it would vanish into it.
	for i := range ls {
		l := &ls[i]
		if l.kind != lineNew || decided[i] {
			continue
		}
		for _, t := range byAmount[l.Amount] {
			if dayGap(l.Date, t.Date) <= matchWindow && ynabWouldMatch(p, t) {
				l.kind, l.fits = lineAmbiguous, []*ynab.TransactionSummary{t}
				l.why = "YNAB would match it to a transaction another line matches"
				break
			}
		}
	}
}

// ynabWouldMatch reports whether YNAB matches an imported transaction to t: t was entered by a
// person (no import id), is not matched yet, and is neither a split nor a transfer.
func ynabWouldMatch(p *ynab.Plan, t *ynab.TransactionSummary) bool {
	return t.ImportID == nil && t.MatchedTransactionID == nil && t.TransferAccountID == nil && len(p.Lines(t.ID)) == 0
}

// alikeness is how many of the words of t's payee (and of the bank text YNAB kept of it) are
// among words.
func alikeness(words []string, p *ynab.Plan, t *ynab.TransactionSummary) int {
	theirs := bankWords(payeeName(p, t.PayeeID) + " " + str(t.ImportPayeeName))
	n := 0
	for _, w := range theirs {
		if slices.Contains(words, w) {
			n++
		}
	}
	return n
}

// noiseWords are what Dutch, German and English banks write around a payee's name: payment
// channels, card and terminal words, legal forms.
var noiseWords = map[string]bool{
	"bea": true, "gea": true, "betaalpas": true, "pas": true, "ideal": true, "sepa": true, "incasso": true,
	"overboeking": true, "overschrijving": true, "machtiging": true, "kenmerk": true, "omschrijving": true,
	"iban": true, "bic": true, "naam": true, "datum": true, "tijd": true,
	"nr": true, "term": true, "bv": true, "b": true, "v": true, "nv": true, "gmbh": true, "ltd": true,
	"eur": true, "nld": true, "nl": true, "card": true, "debit": true, "pos": true, "payment": true,
	"lastschrift": true, "kartenzahlung": true, "online": true, "bankieren": true, "via": true,
}

// bankWords splits a bank's text or a payee's name into lower-case words, leaving out numbers,
// words with digits (card and terminal numbers: "PAS123") and the noise of noiseWords.
func bankWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if noiseWords[w] || strings.ContainsFunc(w, unicode.IsDigit) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// payeeFinder finds the plan's own payee for a bank's text, from the plan's history.
type payeeFinder struct {
	p       *ynab.Plan
	byBank  map[string]string // the words of a bank text YNAB kept (import_payee_name) → the payee id it got
	names   []namedPayee      // the payees that are no transfer, with their words
	history map[string]int    // payee id → how many transactions it has
}

type namedPayee struct {
	id    string
	words []string
}

func newPayeeFinder(p *ynab.Plan) *payeeFinder {
	f := &payeeFinder{p: p, byBank: map[string]string{}, history: map[string]int{}}
	conflict := map[string]bool{}
	for i := range p.Transactions {
		t := &p.Transactions[i]
		if t.Deleted || t.PayeeID == nil {
			continue
		}
		f.history[*t.PayeeID]++
		for _, bank := range []*string{t.ImportPayeeNameOriginal, t.ImportPayeeName} {
			if bank == nil {
				continue
			}
			key := strings.Join(bankWords(*bank), " ")
			if key == "" {
				continue
			}
			if id, ok := f.byBank[key]; ok && id != *t.PayeeID {
				conflict[key] = true
			}
			f.byBank[key] = *t.PayeeID
		}
	}
	for k := range conflict {
		delete(f.byBank, k)
	}
	for i := range p.Payees {
		y := &p.Payees[i]
		if y.Deleted || y.TransferAccountID != nil {
			continue
		}
		if w := bankWords(y.Name); len(w) > 0 {
			f.names = append(f.names, namedPayee{id: y.ID, words: w})
		}
	}
	return f
}

// find returns the payee id the plan's history gives a bank's text, or "": the payee YNAB gave
// the same bank text before, else the one payee whose name's words stand, in order, in the
// text — the longest such name, and among equally long ones the one with the most history.
// Two equally good payees are a guess, and give none.
func (f *payeeFinder) find(text string) string {
	words := bankWords(text)
	if len(words) == 0 {
		return ""
	}
	if id, ok := f.byBank[strings.Join(words, " ")]; ok {
		if y, ok := f.p.Payee(id); ok && !y.Deleted {
			return id
		}
	}
	best, bestLen, bestUse, tie := "", 0, 0, false
	for _, n := range f.names {
		size := len(strings.Join(n.words, ""))
		if size < 3 || !containsRun(words, n.words) {
			continue
		}
		use := f.history[n.id]
		switch {
		case size > bestLen || (size == bestLen && use > bestUse):
			best, bestLen, bestUse, tie = n.id, size, use, false
		case size == bestLen && use == bestUse:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// containsRun reports whether run stands in words, its words one after another.
func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// onlyCategory is the category every categorised transaction of a payee has, when they all
// have the same one (a split's lines and YNAB's internal categories other than Ready to Assign
// say nothing); "" when they differ or there are none.
func onlyCategory(p *ynab.Plan, payeeID string) string {
	only := ""
	for i := range p.Transactions {
		t := &p.Transactions[i]
		if t.Deleted || str(t.PayeeID) != payeeID || t.CategoryID == nil || len(p.Lines(t.ID)) > 0 {
			continue
		}
		c, ok := p.Category(*t.CategoryID)
		if !ok || c.Deleted || (c.Internal && c.Name != readyToAssign) {
			continue
		}
		if only != "" && only != c.ID {
			return ""
		}
		only = c.ID
	}
	return only
}

// newPayeeText is the name a line's payee gets when the plan has none for it: the bank's payee
// as given, else its description's first words without the noise, cut to YNAB's limit.
func newPayeeText(l *stmtLine) string {
	name := strings.Join(strings.Fields(l.Payee), " ")
	if name == "" {
		words := strings.Fields(l.Description)
		var keep []string
		for _, w := range words {
			if len(bankWords(w)) == 0 {
				if len(keep) > 0 {
					break // the name ends where numbers and noise begin again
				}
				continue
			}
			keep = append(keep, strings.Trim(w, ",;:/"))
			if len(keep) == 4 {
				break
			}
		}
		name = strings.Join(keep, " ")
	}
	if utf8.RuneCountInString(name) > maxPayeeName {
		name = string([]rune(name)[:maxPayeeName])
	}
	return name
}
