package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/avenir-mcp/avenir/statement"
	"github.com/avenir-mcp/avenir/ynab"
)

var importStatementTool = mcp.Tool{
	Name:  "import_statement",
	Title: "Import a bank statement",
	Description: "Import a bank statement (CSV, OFX, CAMT.053, MT940) in one write: lines in YNAB marked cleared, others entered unapproved, none twice. Undo deletes them." +
		confirmDescription,
	Meta:        cardMeta,
	Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
}

type importStatementIn struct {
	planArg
	Account   string  `json:"account"`
	File      string  `json:"file,omitempty" jsonschema:"a path in AVENIR_MCP_STATEMENT_DIRS"`
	Content   string  `json:"content,omitempty"`
	Format    string  `json:"format,omitempty"`
	CSV       *csvArg `json:"csv,omitempty"`
	Since     string  `json:"since,omitempty"`
	Until     string  `json:"until,omitempty"`
	Reconcile bool    `json:"reconcile,omitempty"`
	confirmArg
}

// csvArg is import_statement's csv argument: statement.CSVOptions as the tool takes them.
type csvArg struct {
	Delimiter   string `json:"delimiter,omitempty"`
	Decimal     string `json:"decimal,omitempty"`
	DateFormat  string `json:"date_format,omitempty"`
	Date        string `json:"date,omitempty"`
	Amount      string `json:"amount,omitempty"`
	Debit       string `json:"debit,omitempty"`
	Credit      string `json:"credit,omitempty"`
	DebitCredit string `json:"debit_credit,omitempty"`
	Payee       string `json:"payee,omitempty"`
	Memo        string `json:"memo,omitempty"`
}

func (c *csvArg) options() statement.CSVOptions {
	if c == nil {
		return statement.CSVOptions{}
	}
	return statement.CSVOptions{Delimiter: c.Delimiter, Decimal: c.Decimal, DateFormat: c.DateFormat, Date: c.Date,
		Amount: c.Amount, Debit: c.Debit, Credit: c.Credit, DebitCredit: c.DebitCredit, Payee: c.Payee, Memo: c.Memo}
}

// The limits on what import_statement reads.
const (
	maxStatementFile    = 10 << 20 // a file: larger is no bank's statement of one account
	maxStatementContent = 1 << 20  // content, which passes through the model
)

// statementSubject is what import_statement confirms: the account and every planned change —
// the lines entered (with their import ids and the bank's own ids), the transactions marked
// cleared, those marked reconciled.
type statementSubject struct {
	AccountID  string            `json:"account_id"`
	Creates    []statementCreate `json:"creates,omitempty"`
	Cleared    []string          `json:"cleared,omitempty"`
	Reconciled []string          `json:"reconciled,omitempty"`
}

// statementCreate is one line entered. BankID is the bank's own id of the line (OFX FITID,
// CAMT AcctSvcrRef), kept here, in the journal's record of the operation, and never sent.
type statementCreate struct {
	ImportID   string `json:"import_id"`
	Date       string `json:"date"`
	Amount     int64  `json:"amount"`
	PayeeID    string `json:"payee_id,omitempty"`
	PayeeName  string `json:"payee_name,omitempty"`
	CategoryID string `json:"category_id,omitempty"`
	Memo       string `json:"memo,omitempty"`
	BankID     string `json:"bank_id,omitempty"`
	// Again: entered without ImportID, which YNAB keeps taken by the transaction an undo
	// deleted (ImportID still names the line, here and in Reconciled).
	Again bool `json:"again,omitempty"`
}

func (h *handlers) importStatement(ctx context.Context, req *mcp.CallToolRequest, in importStatementIn) (*mcp.CallToolResult, createdOut, error) {
	st, err := h.readStatement(in)
	if err != nil {
		return nil, createdOut{}, err
	}
	var plan *statementPlan
	build := func(ctx context.Context, p *ynab.Plan) (*edit, error) {
		now := h.Now().UTC()
		undone, err := h.undoneImports(ctx, p.ID, now)
		if err != nil {
			return nil, err
		}
		plan, err = planStatement(p, st, in, now, undone)
		if err != nil {
			return nil, err
		}
		return h.statementWrite(p, plan)
	}
	args, code := splitCode(in)
	res, out, err := h.confirmAndApply(ctx, req, in.PlanID, build, args, code)
	result := createdOut{writeOut: out}
	if op, ok := out.applied(); ok {
		entered := 0
		for _, c := range op.Changes {
			if c.Kind == journal.KindNewTransaction && c.Outcome == journal.OutcomeApplied {
				result.TransactionIDs = append(result.TransactionIDs, c.ID)
				entered++
			}
		}
		result.Message = fmt.Sprintf("Imported the statement into %s: %d new transaction(s) entered, unapproved, for you to approve in YNAB; %d marked cleared.",
			plan.acct.Name, entered, len(plan.subject.Cleared))
		if len(result.TransactionIDs) > maxCreates {
			// A statement may enter thousands: the result stays inside its budget (~60 KB).
			result.TransactionIDs = result.TransactionIDs[:maxCreates]
			result.Message += fmt.Sprintf(" transaction_ids holds the first %d; list_transactions with status unapproved lists them all.", maxCreates)
		}
		if len(plan.subject.Reconciled) > 0 {
			result.Message += fmt.Sprintf(" %s is reconciled.", plan.acct.Name)
		}
	}
	return res, result, err
}

// readStatement reads the statement import_statement is given: from file or content, parsed
// in the format asked. Its errors name the argument, never what the file holds.
func (h *handlers) readStatement(in importStatementIn) (statement.Statement, error) {
	var (
		data []byte
		arg  string
		err  error
	)
	switch {
	case in.File != "" && in.Content != "":
		return statement.Statement{}, errors.New("file, content: give one of them, not both")
	case in.File != "":
		arg = "file"
		if data, err = readStatementFile(in.File, h.StatementDirs); err != nil {
			return statement.Statement{}, err
		}
	case in.Content != "":
		arg = "content"
		if len(in.Content) > maxStatementContent {
			return statement.Statement{}, fmt.Errorf("content: it is %d bytes; at most 1 MB (%d bytes) is taken as content: save the statement in a folder avenir reads and pass file", len(in.Content), maxStatementContent)
		}
		data = []byte(in.Content)
	default:
		return statement.Statement{}, errors.New("file: give the statement's file (a path under the folders avenir reads) or its text as content")
	}
	f := statement.Format(strings.ToLower(strings.TrimSpace(in.Format)))
	switch f {
	case "", statement.FormatAuto, statement.FormatCSV, statement.FormatOFX, statement.FormatCAMT, statement.FormatMT940:
	default:
		return statement.Statement{}, fmt.Errorf("format: %s is not a format avenir reads: give auto, csv, ofx, camt053 or mt940", quoted(in.Format))
	}
	if f == "" {
		f = statement.FormatAuto
	}
	sts, err := statement.Parse(data, f, in.CSV.options())
	if err != nil {
		var se *statement.Error
		if errors.As(err, &se) {
			return statement.Statement{}, fmt.Errorf("%s: the statement cannot be read: %s", arg, se.Error())
		}
		return statement.Statement{}, fmt.Errorf("%s: the statement cannot be read", arg) // no parser's internals, nothing of the file
	}
	if len(sts) == 0 {
		return statement.Statement{}, fmt.Errorf("%s: the file holds no statement", arg)
	}
	return joinStatements(sts), nil
}

// joinStatements makes one statement of a file's statements (a day's MT940 statements, a CAMT
// file's pages) in the file's order; the account number is dropped when they name different
// ones, and planStatement picks the account's own.
func joinStatements(sts []statement.Statement) statement.Statement {
	out := sts[0]
	out.Lines = slices.Clone(out.Lines)
	for _, s := range sts[1:] {
		out.Lines = append(out.Lines, s.Lines...)
		if s.Closing != nil {
			out.Closing = s.Closing
		}
		if s.Account != out.Account {
			out.Account = multipleAccounts
		}
		if s.Currency != out.Currency && out.Currency == "" {
			out.Currency = s.Currency
		}
	}
	return out
}

// multipleAccounts marks a joined statement whose parts name different accounts.
const multipleAccounts = "\x00several"

// readStatementFile reads a statement file under one of dirs: after every symlink is resolved,
// the file must be a regular file of at most 10 MB inside one of them (each resolved too). Its
// errors name the path given and what is wrong, never the file's content.
func readStatementFile(path string, dirs []string) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("file: give an absolute path (%s is relative)", quoted(path))
	}
	if len(dirs) == 0 {
		return nil, errors.New("file: avenir may read statements from no folder: set AVENIR_MCP_STATEMENT_DIRS to the folders it may read, or pass the statement's text as content")
	}
	// Inside the folders as written, before the disk is asked anything: so that no answer tells
	// whether a file outside them exists. Then inside them as resolved, symlinks followed.
	notInside := fmt.Errorf("file: %s is not inside the folders avenir may read statements from (%s; AVENIR_MCP_STATEMENT_DIRS sets them)", quoted(path), strings.Join(dirs, string(filepath.ListSeparator)))
	resolved := func(d string) string { rd, _ := filepath.EvalSymlinks(d); return rd }
	if !within(filepath.Clean(path), dirs, filepath.Clean) && !within(filepath.Clean(path), dirs, resolved) {
		return nil, notInside
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("file: %s cannot be found or read", quoted(path))
	}
	if !within(real, dirs, resolved) {
		return nil, notInside
	}
	// What the path is, before it is opened: opening a named pipe blocks until something writes
	// to it, so a pipe in the Downloads folder would hold the call for ever.
	info, err := os.Stat(real)
	if err == nil {
		err = regularStatementFile(path, info)
	} else {
		err = fmt.Errorf("file: %s cannot be read", quoted(path))
	}
	if err != nil {
		return nil, err
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, fmt.Errorf("file: %s cannot be read", quoted(path))
	}
	defer f.Close()
	// The file opened is the one looked at (not one put in its place meanwhile).
	opened, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("file: %s cannot be read", quoted(path))
	}
	if !os.SameFile(info, opened) {
		return nil, fmt.Errorf("file: %s changed while it was opened; try again", quoted(path))
	}
	if err := regularStatementFile(path, opened); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStatementFile+1))
	if err != nil {
		return nil, fmt.Errorf("file: %s cannot be read", quoted(path))
	}
	if len(data) > maxStatementFile {
		return nil, fmt.Errorf("file: %s is over 10 MB; a statement file may be at most 10 MB", quoted(path))
	}
	return data, nil
}

// within reports whether path lies inside one of dirs, each taken as dir(d) ("" for a folder
// that is not there, which holds nothing).
func within(path string, dirs []string, dir func(string) string) bool {
	for _, d := range dirs {
		rd := dir(d)
		if rd == "" {
			continue
		}
		if rel, err := filepath.Rel(rd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// regularStatementFile refuses what is not a regular file of at most 10 MB: a folder, a
// device, a pipe or a socket, whose content is never read.
func regularStatementFile(path string, info os.FileInfo) error {
	switch {
	case info.IsDir():
		return fmt.Errorf("file: %s is a folder; give the statement file in it", quoted(path))
	case !info.Mode().IsRegular():
		return fmt.Errorf("file: %s is not a regular file (a device, pipe or socket); give a statement file", quoted(path))
	case info.Size() > maxStatementFile:
		return fmt.Errorf("file: %s is %d bytes; a statement file may be at most 10 MB", quoted(path), info.Size())
	}
	return nil
}

// statementPlan is import_statement's plan on one plan snapshot.
type statementPlan struct {
	acct      *ynab.Account
	lines     []stmtLine
	subject   statementSubject
	notes     []string
	reconcile bool // the cleared ones are marked reconciled
}

// planStatement checks the statement against p and acct and decides each line. undone holds,
// by account, the import ids whose transactions an undo deleted ([handlers.undoneImports]).
func planStatement(p *ynab.Plan, st statement.Statement, in importStatementIn, now time.Time, undone map[string]map[string]bool) (*statementPlan, error) {
	acct, err := openAccount(p, "account", in.Account)
	if err != nil {
		return nil, err
	}
	arg := "content"
	if in.File != "" {
		arg = "file"
	}
	cf := currency(p)
	digits := Digits(cf)
	if cf != nil && st.Currency != "" && !strings.EqualFold(st.Currency, cf.ISOCode) {
		return nil, fmt.Errorf("%s: the statement is in %s, and the plan in %s: avenir imports no statement in another currency than the plan's",
			arg, strings.ToUpper(st.Currency), cf.ISOCode)
	}
	if len(st.Lines) == 0 {
		return nil, fmt.Errorf("%s: the statement has no lines: nothing to import", arg)
	}
	for _, l := range st.Lines {
		if l.Decimals > digits {
			return nil, fmt.Errorf("%s: line %d: the amount has %d decimals, and the plan's currency has %d", arg, l.Source, l.Decimals, digits)
		}
	}
	var since, until string
	if strings.TrimSpace(in.Since) != "" {
		if since, err = ParseDate(in.Since, now); err != nil {
			return nil, fmt.Errorf("since: %w", err)
		}
	}
	if strings.TrimSpace(in.Until) != "" {
		if until, err = ParseDate(in.Until, now); err != nil {
			return nil, fmt.Errorf("until: %w", err)
		}
	}
	if since != "" && until != "" && until < since {
		return nil, fmt.Errorf("until: %s is before since (%s)", until, since)
	}
	sp := &statementPlan{acct: acct}
	all := numberLines(st.Lines) // occurrences count in the whole statement, whatever is taken
	// The plan runs oldest first whatever the bank's order (ING lists its lines newest first),
	// so the preview's first lines are the statement's first, in every format.
	slices.SortStableFunc(all, func(a, b stmtLine) int { return strings.Compare(a.Date, b.Date) })
	today := now.Format(time.DateOnly)
	oldest := now.AddDate(-maxYearsBack, 0, 0).Format(time.DateOnly)
	outside := 0
	for _, l := range all {
		switch {
		case (since != "" && l.Date < since) || (until != "" && l.Date > until):
			outside++
			continue
		case l.Amount == 0:
			l.kind, l.why = lineLeftOut, "0.00 is nothing to enter"
		case l.Date > today:
			l.kind, l.why = lineLeftOut, fmt.Sprintf("dated after today (%s); YNAB takes no future transaction", today)
		case l.Date < oldest:
			l.kind, l.why = lineLeftOut, fmt.Sprintf("more than %d years ago; YNAB takes none before %s", maxYearsBack, oldest)
		}
		sp.lines = append(sp.lines, l)
	}
	if len(sp.lines) == 0 {
		return nil, fmt.Errorf("since, until: none of the statement's %d line(s) is in these dates", len(all))
	}
	if outside > 0 {
		sp.notes = append(sp.notes, fmt.Sprintf("%d line(s) outside since/until are left out.", outside))
	}
	if st.Account != "" && st.Account != multipleAccounts && !namesAccount(acct, st.Account) {
		if other := accountNumbers(acct.Name + " " + str(acct.Note)); len(other) > 0 {
			sp.notes = append(sp.notes, fmt.Sprintf("The statement is for account number %s, and %s's name or note in YNAB says %s: it may be another account's statement; check before you confirm.",
				st.Account, acct.Name, strings.Join(other, ", ")))
		} else {
			sp.notes = append(sp.notes, fmt.Sprintf("The statement is for account number %s, which is not in %s's name or note in YNAB: check that it is the right account.", st.Account, acct.Name))
		}
	} else if st.Account == multipleAccounts {
		sp.notes = append(sp.notes, fmt.Sprintf("The file holds statements for more than one account number; all their lines are planned for %s: check that they are its own.", acct.Name))
	}
	matchLines(p, acct, sp.lines, undone[acct.ID])

	finder := newPayeeFinder(p)
	sp.subject.AccountID = acct.ID
	cleared := acct.ClearedBalance
	settled := true
	for i := range sp.lines {
		l := &sp.lines[i]
		switch l.kind {
		case lineNew:
			if id := finder.find(l.bankText()); id != "" {
				l.payeeID, l.categoryID = id, onlyCategory(p, id)
			} else {
				l.payeeName = newPayeeText(l)
			}
			memo := strings.Join(strings.Fields(l.Description), " ")
			if utf8.RuneCountInString(memo) > maxMemo {
				memo = string([]rune(memo)[:maxMemo])
			}
			sp.subject.Creates = append(sp.subject.Creates, statementCreate{ImportID: l.importID, Date: l.Date, Amount: l.Amount,
				PayeeID: l.payeeID, PayeeName: l.payeeName, CategoryID: l.categoryID, Memo: memo, BankID: l.BankID, Again: l.again})
			cleared += l.Amount
		case lineMatched:
			if l.tx.Cleared == ynab.Uncleared {
				sp.subject.Cleared = append(sp.subject.Cleared, l.tx.ID)
				cleared += l.tx.Amount
			}
		case lineAmbiguous, lineLeftOut:
			settled = false
		case lineImported:
			if l.tx.Deleted {
				settled = false
			}
		}
	}
	sp.warnUncleared(p)
	if in.Reconcile {
		switch {
		case !settled:
			sp.notes = append(sp.notes, "Not reconciled: some lines are ambiguous or left out; settle them first.")
		case st.Closing == nil:
			sp.notes = append(sp.notes, "Not reconciled: the statement gives no closing balance.")
		case st.Closing.Amount != cleared:
			sp.notes = append(sp.notes, fmt.Sprintf("Not reconciled: the statement's closing balance is %s, and %s's cleared balance after the import would be %s.",
				FormatPlain(st.Closing.Amount, digits), acct.Name, FormatPlain(cleared, digits)))
		default:
			sp.reconcile = true
			for i := range p.Transactions {
				t := &p.Transactions[i]
				if t.AccountID == acct.ID && !t.Deleted && (t.Cleared == ynab.Cleared || slices.Contains(sp.subject.Cleared, t.ID)) {
					sp.subject.Reconciled = append(sp.subject.Reconciled, t.ID)
				}
			}
			for _, c := range sp.subject.Creates {
				sp.subject.Reconciled = append(sp.subject.Reconciled, c.ImportID)
			}
		}
	}
	if len(sp.subject.Creates) == 0 && len(sp.subject.Cleared) == 0 && len(sp.subject.Reconciled) == 0 {
		n := sp.count()
		return nil, fmt.Errorf("%s: nothing to import: of the statement's %d line(s), %d are imported already, %d match transactions that are cleared already, %d are ambiguous and %d left out%s",
			arg, len(sp.lines), n[lineImported], n[lineMatched], n[lineAmbiguous], n[lineLeftOut], sp.leftOutWhy())
	}
	return sp, nil
}

// leftOutWhy says why lines were left out, for a statement with nothing to import: " (more than 5
// years ago; YNAB takes none before 2021-12-02)", or with several reasons each with its count,
// in the order the lines come; "" when none was.
func (sp *statementPlan) leftOutWhy() string {
	var whys []string
	count := map[string]int{}
	for _, l := range sp.lines {
		if l.kind != lineLeftOut {
			continue
		}
		if count[l.why] == 0 {
			whys = append(whys, l.why)
		}
		count[l.why]++
	}
	if len(whys) == 0 {
		return ""
	}
	if len(whys) == 1 {
		return " (" + whys[0] + ")"
	}
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = fmt.Sprintf("%d: %s", count[why], why)
	}
	return " (" + strings.Join(parts, " — ") + ")"
}

// count is how many lines are of each kind.
func (sp *statementPlan) count() map[lineKind]int {
	n := map[lineKind]int{}
	for _, l := range sp.lines {
		n[l.kind]++
	}
	return n
}

// namesAccount reports whether an account number is in the account's name or note, spaces
// and case aside.
func namesAccount(acct *ynab.Account, number string) bool {
	norm := func(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), "")) }
	n := norm(number)
	return n != "" && strings.Contains(norm(acct.Name+" "+str(acct.Note)), n)
}

// accountNumber is how an account number is written in an account's name or note: an IBAN,
// with or without its groups of four spaced, or a run of at least seven digits.
var accountNumber = regexp.MustCompile(`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b|\b[0-9]{7,}\b`)

// accountNumbers are the account numbers written in s, spaces taken out.
func accountNumbers(s string) []string {
	var out []string
	for _, m := range accountNumber.FindAllString(strings.ToUpper(s), -1) {
		out = append(out, strings.ReplaceAll(m, " ", ""))
	}
	return out
}

// warnUncleared names the uncleared transactions of the account in the statement's period
// (its first to its last line) that no line is.
func (sp *statementPlan) warnUncleared(p *ynab.Plan) {
	first, last := "", ""
	onLine := map[string]bool{}
	for _, l := range sp.lines {
		if first == "" || l.Date < first {
			first = l.Date
		}
		last = max(last, l.Date)
		if l.tx != nil {
			onLine[l.tx.ID] = true
		}
		for _, t := range l.fits {
			onLine[t.ID] = true
		}
	}
	var names []string
	for _, t := range p.TransactionsByDate() {
		if t.AccountID == sp.acct.ID && t.Cleared == ynab.Uncleared && t.Date >= first && t.Date <= last && !onLine[t.ID] {
			names = append(names, txLabel(p, t))
		}
	}
	if len(names) == 0 {
		return
	}
	slices.Reverse(names) // oldest first, as the statement runs
	if len(names) > maxPreviewLines {
		names = append(names[:maxPreviewLines], fmt.Sprintf("… and %d more", len(names)-maxPreviewLines))
	}
	sp.notes = append(sp.notes, fmt.Sprintf("Uncleared in YNAB from %s to %s and on no line of the statement: %s.", first, last, strings.Join(names, "; ")))
}

// statementWrite makes the write of a statement plan: the first line and one line per statement
// line, the journal's changes (each line entered, each transaction marked cleared or
// reconciled), and apply, with one POST and one PATCH.
func (h *handlers) statementWrite(p *ynab.Plan, sp *statementPlan) (*edit, error) {
	digits := Digits(currency(p))
	n := sp.count()
	// The first line's totals are the lines settled (tools.md): ambiguous and left-out lines
	// count in none of them, and are named below.
	first := fmt.Sprintf("Import %d statement line(s) into %s: %d new, %d matched, %d already imported?",
		n[lineNew]+n[lineMatched]+n[lineImported], sp.acct.Name, n[lineNew], n[lineMatched], n[lineImported])
	var asides []string
	if n[lineAmbiguous] > 0 {
		asides = append(asides, fmt.Sprintf("%d ambiguous line(s) are left alone", n[lineAmbiguous]))
	}
	if n[lineLeftOut] > 0 {
		asides = append(asides, fmt.Sprintf("%d line(s) YNAB would not take are left out", n[lineLeftOut]))
	}
	if len(asides) > 0 {
		sp.notes = append([]string{strings.Join(asides, "; ") + ": see their lines."}, sp.notes...)
	}
	if sp.reconcile {
		sp.notes = append(sp.notes, fmt.Sprintf("Then %s is reconciled: its cleared balance equals the statement's closing balance, and %d transaction(s) are marked reconciled.",
			sp.acct.Name, len(sp.subject.Reconciled)))
	}
	ed := &edit{plan: p, tool: importStatementTool.Name, subject: sp.subject, first: first, notes: sp.notes}
	target := ynab.Cleared
	if sp.reconcile {
		target = ynab.Reconciled
	}
	var marks []ynab.SaveTransaction
	marked := map[string]bool{}
	k := 0       // the next of subject.Creates
	entered := 0 // of them, the lines entered again without their import ids
	// The preview shows 20 lines: those the person must look at come first — left out,
	// ambiguous, then what is written (the new ones, the ones marked cleared), then what needs
	// nothing (imported already, matched and cleared already) — each group oldest first, so a
	// long statement's few odd lines are never behind "… and N more".
	const (
		showLeftOut = iota
		showAmbiguous
		showNew
		showMarked
		showImported
		showSettled
		showGroups
	)
	group := func(l *stmtLine) int {
		switch l.kind {
		case lineLeftOut:
			return showLeftOut
		case lineAmbiguous:
			return showAmbiguous
		case lineNew:
			return showNew
		case lineImported:
			return showImported
		}
		if l.tx.Cleared == ynab.Uncleared {
			return showMarked
		}
		return showSettled
	}
	shown := make([][]string, showGroups)
	for _, l := range sp.lines {
		before := len(ed.lines)
		amount := FormatFlow(l.Amount, digits)
		bank := shortBank(l.bankText())
		switch l.kind {
		case lineNew:
			c := sp.subject.Creates[k]
			k++
			payee, label := c.PayeeName, ""
			if c.PayeeID != "" {
				payee = payeeName(p, &c.PayeeID)
			}
			label = fmt.Sprintf("%s %s %s", c.Date, payee, amount)
			shown := payee
			if c.PayeeID == "" && payee != "" {
				shown += " (new payee)"
			}
			if payee == "" {
				shown, label = "(no payee)", fmt.Sprintf("%s (no payee) %s", c.Date, amount)
			}
			cat := "Uncategorized"
			if c.CategoryID != "" {
				cat = categoryShort(p, &c.CategoryID)
			}
			again := ""
			if c.Again {
				again, entered = ", again without its import id", entered+1
			}
			ed.lines = append(ed.lines, fmt.Sprintf("new: %s %s %s, %s, cleared, unapproved%s%s", c.Date, shown, amount, cat, again, bankNote(bank, payee)))
			s := ynab.SaveTransaction{AccountID: sp.acct.ID, Date: c.Date, Amount: ynab.Some(c.Amount), ImportID: ynab.Some(c.ImportID),
				Cleared: ynab.Cleared, Approved: ynab.Some(false)}
			if c.Again {
				s.ImportID = ynab.Opt[string]{} // as redo enters it: YNAB would skip the id it keeps taken
			}
			if c.PayeeID != "" {
				s.PayeeID = ynab.Some(c.PayeeID)
			} else if c.PayeeName != "" {
				s.PayeeName = ynab.Some(c.PayeeName)
			}
			if c.CategoryID != "" {
				s.CategoryID = ynab.Some(c.CategoryID)
			}
			if c.Memo != "" {
				s.Memo = ynab.Some(c.Memo)
			}
			ed.changes = append(ed.changes, newTxChange(s, label))
		case lineMatched:
			state := "already cleared"
			switch {
			case l.tx.Cleared == ynab.Uncleared:
				state = "marked " + target
			case l.tx.Cleared == ynab.Reconciled:
				state = "reconciled already"
			}
			ed.lines = append(ed.lines, fmt.Sprintf("matched: %s %s%s → %s, %s", l.Date, amount, bankNote(bank, ""), txLabel(p, l.tx), state))
		case lineImported:
			state := ""
			if l.why != "" {
				state = ", " + l.why
			}
			ed.lines = append(ed.lines, fmt.Sprintf("already imported: %s %s%s%s", l.Date, amount, bankNote(bank, ""), state))
		case lineAmbiguous:
			var fits []string
			for _, t := range l.fits {
				fits = append(fits, txLabel(p, t))
			}
			ed.lines = append(ed.lines, fmt.Sprintf("ambiguous, left alone: %s %s%s: %s (%s)", l.Date, amount, bankNote(bank, ""), l.why, strings.Join(fits, "; ")))
		case lineLeftOut:
			ed.lines = append(ed.lines, fmt.Sprintf("left out: %s %s%s: %s", l.Date, amount, bankNote(bank, ""), l.why))
		}
		g := group(&l)
		shown[g] = append(shown[g], ed.lines[before:]...)
	}
	ed.lines = slices.Concat(shown...)
	for _, id := range sp.subject.Cleared {
		t, _ := p.Transaction(id)
		ed.changes = append(ed.changes, editChange(id, txLabel(p, t), "cleared", t.Cleared, target))
		marks = append(marks, ynab.SaveTransaction{ID: id, Cleared: target})
		marked[id] = true
	}
	for _, id := range sp.subject.Reconciled {
		if t, ok := p.Transaction(id); ok && !marked[id] {
			ed.changes = append(ed.changes, editChange(id, txLabel(p, t), "cleared", t.Cleared, ynab.Reconciled))
			marks = append(marks, ynab.SaveTransaction{ID: id, Cleared: ynab.Reconciled})
		}
	}
	switch {
	case entered > 0:
		ed.notes = append(ed.notes, fmt.Sprintf("The new ones are entered unapproved, for you to approve in YNAB. %d of them an undo took back: those are entered again without their import ids, as a redo enters them, since YNAB keeps a deleted transaction's import id taken and would skip them; the others with the import ids YNAB's own file import gives them.", entered))
	case n[lineNew] > 0:
		ed.notes = append(ed.notes, "The new ones are entered unapproved, for you to approve in YNAB, with the import ids YNAB's own file import gives them.")
	}
	ed.apply = func(ctx context.Context) (journal.Outcome, error) {
		return h.applyStatement(ctx, p, ed.changes, marks, sp.reconcile)
	}
	return ed, nil
}

// shortBank is the bank's text of a line as a preview line shows it: at most 40 characters.
func shortBank(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:39]) + "…"
	}
	return s
}

// bankNote is ", bank: X" when the bank's text says more than the payee's name.
func bankNote(bank, payee string) string {
	if bank == "" || strings.EqualFold(bank, payee) {
		return ""
	}
	return " (bank: " + bank + ")"
}

// applyStatement enters the new lines with one POST, then marks the cleared (and reconciled)
// with one PATCH: the new ones too when the account is reconciled, which only their ids from
// the POST's answer allow. A line YNAB refuses as a duplicate import id is not applied.
func (h *handlers) applyStatement(ctx context.Context, p *ynab.Plan, changes []journal.Change, marks []ynab.SaveTransaction, reconcile bool) (journal.Outcome, error) {
	out := journal.Outcome{Changes: slices.Clone(changes)}
	var batch []ynab.SaveTransaction
	byImport := map[string]int{}
	var plain []int // the lines entered again without an import id, found as redo finds them
	for i, ch := range changes {
		if ch.Kind != journal.KindNewTransaction {
			continue
		}
		s, err := saveTransaction("", ch.After)
		if err != nil {
			return out, err
		}
		var f struct {
			ImportID *string `json:"import_id"`
		}
		if err := json.Unmarshal(ch.After, &f); err != nil {
			return out, fmt.Errorf("a planned line cannot be read: %w", err)
		}
		batch = append(batch, s)
		if f.ImportID == nil || *f.ImportID == "" {
			plain = append(plain, i)
			continue
		}
		s.ImportID = ynab.Some(*f.ImportID)
		batch[len(batch)-1] = s
		byImport[*f.ImportID] = i
	}
	var newIDs []string
	if len(batch) > 0 {
		res, err := h.YNAB.CreateTransactions(ctx, p.ID, batch)
		if err != nil {
			return out, err
		}
		out.ServerKnowledge = res.ServerKnowledge
		used := map[string]bool{}
		for _, i := range plain {
			for k := range res.Transactions {
				t := &res.Transactions[k]
				if !used[t.ID] && t.ImportID == nil && !t.Deleted && sentMatches(changes[i].After, t) {
					used[t.ID] = true
					out.Changes[i] = createdChange(changes[i], t)
					out.Changes[i].Outcome = journal.OutcomeApplied
					newIDs = append(newIDs, t.ID)
					break
				}
			}
			if out.Changes[i].Outcome == "" {
				out.Changes[i].Outcome = journal.OutcomeNotApplied // YNAB's answer does not have it
			}
		}
		for _, t := range res.Transactions {
			if t.ImportID == nil {
				continue
			}
			i, ok := byImport[str(t.ImportID)]
			if !ok || out.Changes[i].Outcome != "" {
				continue
			}
			if _, existed := p.Transaction(t.ID); existed {
				// YNAB matched the line to a transaction that was there: nothing new was entered,
				// and undo must not delete that transaction.
				out.Changes[i].Outcome = journal.OutcomeNotApplied
				continue
			}
			out.Changes[i] = createdChange(changes[i], &t)
			out.Changes[i].Outcome = journal.OutcomeApplied
			newIDs = append(newIDs, t.ID)
		}
		for _, dup := range res.DuplicateImportIDs {
			if i, ok := byImport[dup]; ok {
				out.Changes[i].Outcome = journal.OutcomeNotApplied
			}
		}
		for _, i := range byImport {
			if out.Changes[i].Outcome == "" {
				out.Changes[i].Outcome = journal.OutcomeNotApplied // YNAB's answer does not have it
			}
		}
	}
	if reconcile {
		for _, id := range newIDs {
			marks = append(marks, ynab.SaveTransaction{ID: id, Cleared: ynab.Reconciled})
		}
	}
	if len(marks) == 0 {
		return out, nil
	}
	res, err := h.YNAB.UpdateTransactions(ctx, p.ID, marks)
	if err != nil {
		if len(newIDs) > 0 {
			return out, fmt.Errorf("the %d new line(s) were entered, but marking the others %s failed: %w", len(newIDs), ynab.Cleared, err)
		}
		return out, err
	}
	out.ServerKnowledge = res.ServerKnowledge
	got := map[string]*ynab.Transaction{}
	for i := range res.Transactions {
		got[res.Transactions[i].ID] = &res.Transactions[i]
	}
	for i, ch := range out.Changes {
		switch {
		case ch.Kind == journal.KindTransaction:
			out.Changes[i].Outcome = journal.OutcomeApplied
		case ch.Kind == journal.KindNewTransaction && reconcile && ch.Outcome == journal.OutcomeApplied && got[ch.ID] != nil:
			out.Changes[i] = createdChange(changes[i], got[ch.ID]) // it ends reconciled: recorded as YNAB holds it
			out.Changes[i].Outcome = journal.OutcomeApplied
		}
	}
	return out, nil
}

// maxUndoneLookup bounds the undo operations undoneImports reads: far more than a person makes
// in YNAB's five years.
const maxUndoneLookup = 10_000

// undoneImports is, by account, the import ids of the transactions an undo deleted from plan
// planID within YNAB's five years, as the journal recorded them: YNAB keeps such an id taken
// (and its export leaves the deleted transaction out), so a line that carries it again would be
// skipped. An undo's deletion records the transaction as it was entered, import id and account
// included.
func (h *handlers) undoneImports(ctx context.Context, planID string, now time.Time) (map[string]map[string]bool, error) {
	ops, err := h.Journal.List(ctx, journal.Filter{PlanID: planID, Tool: undoOperationTool.Name,
		Since: now.AddDate(-maxYearsBack, 0, -1), Limit: maxUndoneLookup})
	if err != nil {
		return nil, fmt.Errorf("reading the journal for the lines an undo took back: %w", err)
	}
	out := map[string]map[string]bool{}
	for _, op := range ops {
		for _, ch := range op.Changes {
			if ch.Kind != journal.KindDeletedTransaction || ch.Outcome != journal.OutcomeApplied {
				continue
			}
			var f struct {
				AccountID string  `json:"account_id"`
				ImportID  *string `json:"import_id"`
			}
			if json.Unmarshal(ch.Before, &f) != nil || f.ImportID == nil || *f.ImportID == "" {
				continue
			}
			if out[f.AccountID] == nil {
				out[f.AccountID] = map[string]bool{}
			}
			out[f.AccountID][*f.ImportID] = true
		}
	}
	return out, nil
}
