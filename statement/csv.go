package statement

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// headerScan is how many of a file's first lines are looked at for its header row: a preamble
// (Knab's "KNAB EXPORT" line, the dozen lines of account details German banks write) comes
// before it.
const headerScan = 30

// maxHeaderFields bounds the lines looked at as a header: no bank's header has this many
// columns, and a line of thousands of fields is not worth matching name by name.
const maxHeaderFields = 256

// knownLayouts names the layouts the unknown-layout error lists.
const knownLayouts = "ING, Rabobank, ABN AMRO (TAB), ASN/SNS/RegioBank, bunq, Triodos, Knab"

// parseCSV reads a CSV bank export (UTF-8, BOM already removed) into one statement per account
// the file names, in the order the accounts first appear: nearly every export is of one
// account, but Rabobank's may hold several, and one statement of two accounts' lines would
// have neither's balances. Each statement keeps its lines in the file's order.
//
// It tells the delimiter, the layout (a bank's own, or a header in English, Dutch, German or
// French, or a headerless bank export by the shape of its lines), the decimal mark and the date
// format from the file itself; o overrides what cannot be told. A file it cannot read is an
// *Error naming the line and column and what to pass, never quoting the file.
func parseCSV(data []byte, o CSVOptions) ([]Statement, error) {
	opts, err := checkCSVOptions(o)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.Trim(data, " \t\r\n,;|")) == 0 {
		return nil, &Error{Msg: "the file is empty"}
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, &Error{Msg: "the file is not text (it holds NUL bytes)"}
	}
	delim := opts.delim
	if delim == 0 {
		sample := data
		if len(sample) > 64<<10 {
			sample = sample[:64<<10]
		}
		if delim, _, _ = sniffDelimiter(sample); delim == 0 {
			return nil, &Error{Msg: "the file's delimiter cannot be told: no line splits into columns on , ; TAB or |; pass csv.delimiter"}
		}
	}
	recs, err := readCSV(data, delim, '"', 0)
	if err != nil {
		return nil, err
	}
	recs = dropBlank(recs)
	if len(recs) == 0 {
		return nil, &Error{Msg: "the file is empty"}
	}
	p, err := planCSV(recs, delim, opts)
	if err != nil {
		return nil, err
	}
	if p.layout != nil && p.layout.quote != 0 && p.layout.quote != '"' {
		q := csvQuoting{from: p.layout.quotedFrom, singleLine: true}
		if recs, err = readCSVWith(data, delim, p.layout.quote, 0, q); err != nil {
			return nil, err
		}
		recs = dropBlank(recs)
	}
	rows := recs[p.first:]
	if len(rows) == 0 {
		if p.header != nil {
			return nil, &Error{Line: p.headerLine, Msg: "the file has a header but no transaction lines"}
		}
		return nil, &Error{Msg: "the file holds no transaction lines"}
	}
	return p.read(rows, opts)
}

// csvPlan is how a file is to be read: its layout, header and where each role's cells are.
type csvPlan struct {
	layout     *csvLayout // nil for a generic header or columns given in the csv argument
	header     []string   // nil for a file without a header row
	headerLine int
	first      int // index in the records of the first transaction line
	m          csvMapping
	width      int // fields every transaction line has at least
}

// planCSV finds a file's header row (or tells it has none) and its layout, and maps the
// columns, applying the csv argument's columns over what detection found.
func planCSV(recs []csvRecord, delim byte, opts csvOpts) (*csvPlan, error) {
	named := opts.namedColumns()
	scan := recs[:min(len(recs), headerScan)]
	p := &csvPlan{}
	var dateOnly *csvRecord // a header naming a date but no amount, for the error
	for i := range scan {
		r := scan[i]
		if len(r.fields) > maxHeaderFields {
			continue
		}
		if len(named) > 0 {
			if !hasNames(r.fields, named) {
				continue
			}
			p.setHeader(recs, i)
			p.layout = matchHeaderLayout(r.fields)
			break
		}
		if l := matchHeaderLayout(r.fields); l != nil {
			p.setHeader(recs, i)
			p.layout = l
			break
		}
		m := mapGeneric(r.fields, recs[i+1:])
		if m.has(roleDate) && (m.has(roleAmount) || (m.has(roleDebit) && m.has(roleCredit))) {
			p.setHeader(recs, i)
			break
		}
		if m.has(roleDate) && dateOnly == nil && !looksLikeData(r.fields) {
			dateOnly = &scan[i]
		}
	}
	if p.header == nil && len(named) > 0 {
		return nil, &Error{Msg: fmt.Sprintf("%s names a column by name, but no line among the file's first %d has every name the csv argument gives: check the names, or give the columns' numbers (1 for the first)", named[0].arg, headerScan)}
	}

	maxFields := 0
	for _, r := range recs {
		maxFields = max(maxFields, len(r.fields))
	}
	switch {
	case p.header != nil && p.layout != nil:
		p.m = mapNamed(p.layout, p.header)
	case p.header != nil:
		p.m = mapGeneric(p.header, recs[p.first:])
	default:
		// No header: a bank's headerless export, or columns the csv argument numbers.
		for _, l := range headerlessLayouts {
			if l.delim != delim {
				continue
			}
			ok := true
			for _, r := range recs[:min(len(recs), 3)] {
				if !l.shape(r.fields) {
					ok = false
					break
				}
			}
			if ok {
				p.layout = l
				p.width = l.minFields
				for role, cols := range l.columns {
					p.m.cols[role] = append([]int(nil), cols...)
				}
				break
			}
		}
		if p.layout == nil {
			if !opts.numbersColumns() {
				if dateOnly != nil {
					return nil, &Error{Line: dateOnly.line, Msg: "this line looks like a header with a date column but no amount column: pass csv.amount, or csv.debit and csv.credit, or csv.amount with csv.debit_credit (each a header name or a column number, 1 for the first)"}
				}
				return nil, &Error{Msg: "the file's columns cannot be told: no line among its first " + strconv.Itoa(headerScan) +
					" is a header naming a date and an amount, and its lines are not those of a layout avenir knows (" + knownLayouts +
					"); pass csv with date and amount (or debit and credit, or amount and debit_credit) as header names or column numbers (1 for the first), and delimiter, decimal and date_format where they cannot be told"}
			}
		}
	}
	if err := p.applyOptions(opts, maxFields); err != nil {
		return nil, err
	}
	if err := p.m.check(); err != nil {
		return nil, err
	}
	if p.header == nil && p.layout == nil {
		// Columns given by number, no header found: lines before the first whose date cell
		// holds a digit are a preamble (a header in words the synonyms do not know).
		dc := p.m.col(roleDate)
		for p.first < min(len(recs), headerScan) && !strings.ContainsAny(recs[p.first].field(dc), "0123456789") {
			p.first++
		}
	}
	if p.header != nil {
		w := len(p.header)
		for w > 0 && strings.TrimSpace(p.header[w-1]) == "" {
			w--
		}
		p.width = w
	}
	for _, cols := range p.m.cols {
		for _, c := range cols {
			p.width = max(p.width, c+1)
		}
	}
	return p, nil
}

func (p *csvPlan) setHeader(recs []csvRecord, i int) {
	p.header = recs[i].fields
	p.headerLine = recs[i].line
	p.first = i + 1
}

func matchHeaderLayout(fields []string) *csvLayout {
	for _, l := range headerLayouts {
		if hasSignature(l, fields) {
			return l
		}
	}
	return nil
}

// looksLikeData says a row is a transaction line rather than a header: one of its cells is an
// amount with digits.
func looksLikeData(fields []string) bool {
	for _, f := range fields {
		if isAmountish(f) {
			return true
		}
	}
	return false
}

func hasNames(fields []string, refs []colRef) bool {
	for _, ref := range refs {
		if findColumn(fields, ref.name) < 0 {
			return false
		}
	}
	return true
}

// findColumn finds a header name as the csv argument gives it: case, accents and spacing do
// not matter.
func findColumn(header []string, name string) int {
	want, _ := normHeader(name)
	for i, h := range header {
		if strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(name)) {
			return i
		}
	}
	for i, h := range header {
		if n, _ := normHeader(h); n == want {
			return i
		}
	}
	return -1
}

// applyOptions puts the columns the csv argument names over the detected ones.
func (p *csvPlan) applyOptions(opts csvOpts, maxFields int) error {
	for _, role := range []csvRole{roleDate, roleAmount, roleDebit, roleCredit, roleDC, rolePayee, roleMemo} {
		ref, ok := opts.cols[role]
		if !ok {
			continue
		}
		idx := ref.index
		if idx < 0 {
			if p.header == nil {
				return &Error{Msg: ref.arg + " names a column by name, but the file has no header line: give the column's number (1 for the first)"}
			}
			if idx = findColumn(p.header, ref.name); idx < 0 {
				return &Error{Line: p.headerLine, Msg: ref.arg + " names no column of the header"}
			}
		} else if idx >= maxFields {
			return &Error{Msg: fmt.Sprintf("%s names column %d, but the file's lines have %d columns", ref.arg, idx+1, maxFields)}
		}
		p.m.cols[role] = []int{idx}
	}
	_, amount := opts.cols[roleAmount]
	_, debit := opts.cols[roleDebit]
	_, credit := opts.cols[roleCredit]
	_, dc := opts.cols[roleDC]
	if amount {
		p.m.cols[roleDebit], p.m.cols[roleCredit] = nil, nil
	}
	if (debit || credit) && !amount {
		p.m.cols[roleAmount] = nil
		if !dc {
			p.m.cols[roleDC] = nil
		}
	}
	return nil
}

// check says whether the mapping can give every line a date and an amount.
func (m *csvMapping) check() error {
	if !m.has(roleDate) {
		return &Error{Msg: "no column of the file can be told to hold the booking date: pass csv.date (a header name or a column number, 1 for the first)"}
	}
	switch {
	case m.has(roleAmount):
	case m.has(roleDebit) && m.has(roleCredit):
	case m.has(roleDebit):
		return &Error{Msg: "the file has a debit column but no credit column can be told: pass csv.credit, or csv.amount"}
	case m.has(roleCredit):
		return &Error{Msg: "the file has a credit column but no debit column can be told: pass csv.debit, or csv.amount"}
	default:
		return &Error{Msg: "no column of the file can be told to hold the amount: pass csv.amount, or csv.debit and csv.credit, or csv.amount with csv.debit_credit (each a header name or a column number, 1 for the first)"}
	}
	if m.has(roleDC) && !m.has(roleAmount) {
		return &Error{Msg: "csv.debit_credit needs csv.amount: the column of the amount it gives the direction of"}
	}
	return nil
}

// colName is a column's name in messages: its header name, or its 1-based number.
func (p *csvPlan) colName(idx int) string {
	if p.header != nil && idx < len(p.header) {
		if h := single(p.header[idx]); h != "" {
			if utf8.RuneCountInString(h) > 60 {
				h = string([]rune(h)[:60]) + "…"
			}
			return h
		}
	}
	return strconv.Itoa(idx + 1)
}

func (p *csvPlan) errAt(r csvRecord, role csvRole, msg string) error {
	return &Error{Line: r.line, Column: p.colName(p.m.col(role)), Msg: msg}
}

// read turns the transaction lines into statements.
func (p *csvPlan) read(rows []csvRecord, opts csvOpts) ([]Statement, error) {
	dec, err := p.decimal(rows, opts)
	if err != nil {
		return nil, err
	}
	dateFmt, err := p.dateFormat(rows, opts, roleDate)
	if err != nil {
		return nil, err
	}
	valueFmt := p.valueDateFormat(rows, opts, dateFmt)

	type group struct {
		st  Statement
		bal []lineBalance
	}
	var groups []*group
	byAccount := map[string]*group{}
	rows = p.dropFooter(rows, dateFmt)
	for _, r := range rows {
		if len(r.fields) < p.width {
			return nil, &Error{Line: r.line, Msg: fmt.Sprintf("has %d columns where the file's lines have %d: is the line cut short?", len(r.fields), p.width)}
		}
		if p.header != nil && len(r.fields) > len(p.header) {
			for _, f := range r.fields[len(p.header):] {
				if strings.TrimSpace(f) != "" {
					return nil, &Error{Line: r.line, Msg: fmt.Sprintf("has %d columns where the header has %d: is a delimiter inside a field that is not quoted? Pass csv.delimiter if the file uses another one", len(r.fields), len(p.header))}
				}
			}
		}
		l, lb, currency, err := p.line(r, dec, dateFmt, valueFmt)
		if err != nil {
			return nil, err
		}
		account := strings.Join(strings.Fields(r.field(p.m.col(roleAccount))), "")
		g := byAccount[account]
		if g == nil {
			g = &group{st: Statement{Format: FormatCSV, Account: account, Currency: currency}}
			byAccount[account] = g
			groups = append(groups, g)
		}
		if currency != "" && g.st.Currency == "" {
			g.st.Currency = currency
		}
		if currency != "" && currency != g.st.Currency {
			return nil, p.errAt(r, roleCurrency, "names another currency than the lines before it: a statement has one currency")
		}
		g.st.Lines = append(g.st.Lines, l)
		g.bal = append(g.bal, lb)
	}
	out := make([]Statement, 0, len(groups))
	for _, g := range groups {
		if g.st.Currency == "" {
			g.st.Currency = p.m.currency
		}
		if g.st.Currency == "" && p.layout != nil && p.layout.currency != nil {
			g.st.Currency = p.layout.currency(g.st.Account)
		}
		g.st.Opening, g.st.Closing = statementBalances(g.st.Lines, g.bal)
		out = append(out, g.st)
	}
	return out, nil
}

// footerLines bounds the summary lines a bank may write after the transactions.
const footerLines = 5

// dropFooter leaves out the summary lines some banks write after the transactions ("Kontostand
// am 31.05.2024;;;1.234,56", "Totaal"): trailing lines, a few at most, whose date cell holds a
// word, not a date. A line whose date is empty or a date that does not exist stays, for its
// error.
func (p *csvPlan) dropFooter(rows []csvRecord, dateFmt dateFormat) []csvRecord {
	c := p.m.col(roleDate)
	n := len(rows)
	for k := 0; k < footerLines && n > 1; k++ {
		cell := rows[n-1].field(c)
		if _, ok := dateFmt.parse(cell); ok || !hasLetter(cell) {
			break
		}
		n--
	}
	return rows[:n]
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// line reads one transaction line.
func (p *csvPlan) line(r csvRecord, dec byte, dateFmt, valueFmt dateFormat) (Line, lineBalance, string, error) {
	var l Line
	var lb lineBalance
	l.Source = r.line
	m := &p.m

	cell := r.field(m.col(roleDate))
	if cell == "" {
		return l, lb, "", p.errAt(r, roleDate, "is empty (expected a date)")
	}
	d, ok := dateFmt.parse(cell)
	if !ok {
		return l, lb, "", p.errAt(r, roleDate, "is not a date (expected "+dateFmt.String()+")")
	}
	l.Date = d
	if m.has(roleValueDate) {
		if cell := r.field(m.col(roleValueDate)); cell != "" {
			v, ok := valueFmt.parse(cell)
			if !ok {
				return l, lb, "", p.errAt(r, roleValueDate, "is not a date (expected "+valueFmt.String()+")")
			}
			l.ValueDate = v
		}
	}

	if m.has(roleAmount) {
		v, decimals, msg := parseAmount(r.field(m.col(roleAmount)), dec)
		if msg != "" {
			return l, lb, "", p.errAt(r, roleAmount, msg)
		}
		if m.has(roleDC) {
			switch dcSign(r.field(m.col(roleDC))) {
			case -1:
				v = -abs(v)
			case 1:
				v = abs(v)
			default:
				return l, lb, "", p.errAt(r, roleDC, "says neither debit nor credit (expected Af/Bij, D/C, Debet/Credit or S/H)")
			}
		}
		l.Amount, l.Decimals = v, decimals
	} else {
		dcell, ccell := r.field(m.col(roleDebit)), r.field(m.col(roleCredit))
		var dv, cv int64
		var dd, cd int
		if dcell != "" {
			var msg string
			if dv, dd, msg = parseAmount(dcell, dec); msg != "" {
				return l, lb, "", p.errAt(r, roleDebit, msg)
			}
		}
		if ccell != "" {
			var msg string
			if cv, cd, msg = parseAmount(ccell, dec); msg != "" {
				return l, lb, "", p.errAt(r, roleCredit, msg)
			}
		}
		switch {
		case dcell == "" && ccell == "":
			return l, lb, "", &Error{Line: r.line, Msg: "has neither a debit nor a credit amount"}
		case dv != 0 && cv != 0:
			return l, lb, "", &Error{Line: r.line, Msg: "has both a debit and a credit amount"}
		case dv != 0:
			l.Amount, l.Decimals = -abs(dv), dd
		case cv != 0:
			l.Amount, l.Decimals = abs(cv), cd
		default: // zero, written in one or both
			l.Amount, l.Decimals = 0, max(dd, cd)
		}
	}

	l.Payee = single(r.field(m.col(rolePayee)))
	var memo []string
	for _, c := range m.cols[roleMemo] {
		if s := single(r.field(c)); s != "" {
			memo = append(memo, s)
		}
	}
	l.Description = strings.Join(memo, " ")
	l.Counterparty = strings.Join(strings.Fields(r.field(m.col(roleCounterparty))), "")
	l.BankID = single(r.field(m.col(roleBankID)))

	for _, role := range balanceRoles {
		if !m.has(role) {
			continue
		}
		cell := r.field(m.col(role))
		if cell == "" {
			continue
		}
		v, _, msg := parseAmount(cell, dec)
		if msg != "" {
			return l, lb, "", p.errAt(r, role, msg)
		}
		switch role {
		case roleBalAfter:
			lb.after, lb.hasAfter = v, true
		case roleBalBefore:
			lb.before, lb.hasBefore = v, true
		case roleBal:
			lb.either, lb.hasEither = v, true
		}
	}
	currency := ""
	if m.has(roleCurrency) {
		currency = strings.ToUpper(r.field(m.col(roleCurrency)))
		switch currency {
		case "€":
			currency = "EUR"
		case "£":
			currency = "GBP"
		}
		if currency != "" && !isUpper3(currency) {
			return l, lb, "", p.errAt(r, roleCurrency, "is not a currency code (expected three letters, such as EUR)")
		}
	}
	if p.layout != nil && p.layout.refine != nil {
		p.layout.refine(&l)
	}
	return l, lb, currency, nil
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// decimal settles the decimal mark: the csv argument's, the layout's, or the one the amount
// cells show (see voteDecimal); amounts that show both, or only "1,234"-like cells that could
// be either, need csv.decimal.
func (p *csvPlan) decimal(rows []csvRecord, opts csvOpts) (byte, error) {
	if opts.decimal != 0 {
		return opts.decimal, nil
	}
	if p.layout != nil && p.layout.decimal != 0 {
		return p.layout.decimal, nil
	}
	var comma, point, either int
	for _, role := range append([]csvRole{roleAmount, roleDebit, roleCredit}, balanceRoles...) {
		if !p.m.has(role) {
			continue
		}
		c := p.m.col(role)
		for _, r := range rows {
			switch voteDecimal(r.field(c)) {
			case voteComma:
				comma++
			case votePoint:
				point++
			case voteEither:
				either++
			}
		}
	}
	switch {
	case comma > 0 && point > 0:
		return 0, &Error{Column: p.colName(p.amountCol()), Msg: "amounts are written both with a decimal comma and with a decimal point: pass csv.decimal (\".\" or \",\")"}
	case comma > 0:
		return ',', nil
	case point > 0:
		return '.', nil
	case either > 0:
		return 0, &Error{Column: p.colName(p.amountCol()), Msg: "the amounts could be written with a decimal comma or a decimal point (every one has three digits after its only separator): pass csv.decimal (\".\" or \",\")"}
	}
	return '.', nil // no amount has a separator: the mark does not matter
}

func (p *csvPlan) amountCol() int {
	if p.m.has(roleAmount) {
		return p.m.col(roleAmount)
	}
	return p.m.col(roleDebit)
}

// dateFormat settles a date column's format: the csv argument's, the layout's, or the one
// that reads the most of the column's cells (see guessDateFormat).
func (p *csvPlan) dateFormat(rows []csvRecord, opts csvOpts, role csvRole) (dateFormat, error) {
	if opts.dateFormat != nil {
		return *opts.dateFormat, nil
	}
	if p.layout != nil && p.layout.dateFormat != "" {
		return mustDateFormat(p.layout.dateFormat), nil
	}
	c := p.m.col(role)
	cells := make([]string, 0, len(rows))
	first := 0
	for _, r := range rows {
		if v := r.field(c); v != "" {
			if len(cells) == 0 {
				first = r.line
			}
			cells = append(cells, v)
		}
	}
	if len(cells) == 0 {
		if role == roleValueDate {
			return dateFormat{}, nil // never read: every cell is empty
		}
		return dateFormat{}, &Error{Column: p.colName(c), Msg: "holds no dates"}
	}
	dayFirst := false
	if p.header != nil && c < len(p.header) {
		n, _ := normHeader(p.header[c])
		dayFirst = dayFirstDateHeaders[n] || role == roleValueDate && dayFirstDateHeaders[p.headerNameOf(roleDate)]
	}
	g := guessDateFormat(cells, dayFirst)
	if !g.ok {
		return dateFormat{}, &Error{Line: first, Column: p.colName(c), Msg: "is not a date in a form avenir knows (such as YYYY-MM-DD, DD-MM-YYYY, DD.MM.YYYY, DD/MM/YYYY or YYYYMMDD): pass csv.date_format"}
	}
	if g.ambiguous {
		o := g.format
		o.order[0], o.order[1] = o.order[1], o.order[0]
		return dateFormat{}, &Error{Column: p.colName(c), Msg: fmt.Sprintf("the dates could be day first or month first (no day in them is above 12): pass csv.date_format, %s or %s", g.format, o)}
	}
	return g.format, nil
}

// valueDateFormat settles the value date column's format: the booking date's where it reads
// every cell, else as dateFormat does. The value date is not what a line is booked on, so a
// column whose format cannot be told is left unread rather than failing the file; a cell that
// is no date in a format that was told is still an error.
func (p *csvPlan) valueDateFormat(rows []csvRecord, opts csvOpts, dateFmt dateFormat) dateFormat {
	if !p.m.has(roleValueDate) {
		return dateFmt
	}
	c := p.m.col(roleValueDate)
	all := true
	for _, r := range rows {
		if v := r.field(c); v != "" {
			if _, ok := dateFmt.parse(v); !ok {
				all = false
				break
			}
		}
	}
	if all {
		return dateFmt
	}
	if opts.dateFormat == nil && (p.layout == nil || p.layout.dateFormat == "") {
		f, err := p.dateFormat(rows, opts, roleValueDate)
		if err != nil {
			p.m.cols[roleValueDate] = nil
			return dateFmt
		}
		return f
	}
	return dateFmt
}

func (p *csvPlan) headerNameOf(role csvRole) string {
	c := p.m.col(role)
	if p.header == nil || c < 0 || c >= len(p.header) {
		return ""
	}
	n, _ := normHeader(p.header[c])
	return n
}

func dropBlank(recs []csvRecord) []csvRecord {
	out := recs[:0]
	for _, r := range recs {
		if !r.blank() {
			out = append(out, r)
		}
	}
	return out
}

// csvOpts is CSVOptions checked and read.
type csvOpts struct {
	delim      byte
	decimal    byte
	dateFormat *dateFormat
	cols       map[csvRole]colRef
}

// colRef is a column the csv argument names: by header name, or by number.
type colRef struct {
	arg   string // the argument's field, "csv.amount"
	name  string // the header name as given, when not a number
	index int    // 0-based when given as a number, else -1
}

func (o csvOpts) namedColumns() []colRef {
	var out []colRef
	for _, role := range []csvRole{roleDate, roleAmount, roleDebit, roleCredit, roleDC, rolePayee, roleMemo} {
		if ref, ok := o.cols[role]; ok && ref.index < 0 {
			out = append(out, ref)
		}
	}
	return out
}

// numbersColumns says the csv argument gives the date and an amount by number: enough to read
// a file no detection knows.
func (o csvOpts) numbersColumns() bool {
	_, date := o.cols[roleDate]
	_, amount := o.cols[roleAmount]
	_, debit := o.cols[roleDebit]
	_, credit := o.cols[roleCredit]
	return date && (amount || debit || credit)
}

// checkCSVOptions reads the csv argument, refusing what it cannot mean.
func checkCSVOptions(o CSVOptions) (csvOpts, error) {
	out := csvOpts{cols: map[csvRole]colRef{}}
	switch d := o.Delimiter; d {
	case "":
	case ",", ";", "|", "\t":
		out.delim = d[0]
	case `\t`, "tab", "TAB", "Tab":
		out.delim = '\t'
	default:
		return out, &Error{Msg: `csv.delimiter must be one character: "," ";" "|" or a tab`}
	}
	switch o.Decimal {
	case "":
	case ".", ",":
		out.decimal = o.Decimal[0]
	default:
		return out, &Error{Msg: `csv.decimal must be "." or ","`}
	}
	if o.DateFormat != "" {
		f, ok := parseDateFormat(o.DateFormat)
		if !ok {
			return out, &Error{Msg: "csv.date_format must be YYYY (or YY), MM and DD in some order, with one of - . / or a space between them or nothing at all, such as DD-MM-YYYY or YYYYMMDD"}
		}
		out.dateFormat = &f
	}
	for _, rv := range []struct {
		role csvRole
		v    string
	}{
		{roleDate, o.Date}, {roleAmount, o.Amount}, {roleDebit, o.Debit}, {roleCredit, o.Credit},
		{roleDC, o.DebitCredit}, {rolePayee, o.Payee}, {roleMemo, o.Memo},
	} {
		role, v := rv.role, strings.TrimSpace(rv.v)
		if v == "" {
			continue
		}
		ref := colRef{arg: roleArg[role], name: v, index: -1}
		if allDigits(v) {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				return out, &Error{Msg: ref.arg + " must be a header name or a column number from 1 (the first column)"}
			}
			ref.index = n - 1
		}
		out.cols[role] = ref
	}
	_, amount := out.cols[roleAmount]
	_, debit := out.cols[roleDebit]
	_, credit := out.cols[roleCredit]
	if amount && (debit || credit) {
		return out, &Error{Msg: "csv gives amount and debit/credit: give amount (with debit_credit where the amount is unsigned), or debit and credit, not both"}
	}
	return out, nil
}
