package statement

import (
	"strings"
	"time"
)

// MT940 is SWIFT's customer statement message, which Dutch and German banks still give as a
// download. A file holds one or more statements, each a run of fields that start a line with
// their tag (":20:", ":61:") and go on over the lines that follow until the next tag:
//
//	:20: reference, which starts a statement     :61: a transaction (value date, entry date,
//	:25: the account (an IBAN, maybe with its          D/C/RD/RC, amount, type, references,
//	     currency)                                     and a supplementary line)
//	:28C: statement number                       :86: what the bank says of that transaction
//	:60F:/:60M: opening balance (M: intermediate) :62F:/:62M: closing balance
//	:64: closing available balance
//
// Around them banks put SWIFT blocks ({1:…}{2:…}{4: … -}{5:…}), an old ING header
// ("0000 01INGBNL2AXXXX00001", "940 00"), ABN AMRO's "ABNANL2A"/"940" lines, "-" or "-XXX" ends
// and empty lines; all of those are skipped. References: SWIFT's MT940 field specification
// (Category 9, "Cash Management"), and the Dutch banks' own MT940 format descriptions (Rabobank,
// ING, ABN AMRO) for the structured :86: codes.

// mtField is one tagged field of the file with the lines it spans.
type mtField struct {
	tag   string   // "20", "61", "60F"
	line  int      // 1-based line of its tag
	lines []string // its first line after the tag, then its continuation lines, as written
}

// mt940Statement is a statement being read, with what the format says of it beyond Statement.
type mt940Statement struct {
	st         Statement
	line       int // where it starts
	hasOpening bool
	openingM   bool // the opening balance is :60M:, the statement continues an earlier one
	closingM   bool // the closing balance is :62M:, the statement goes on in the next one
}

func parseMT940(text []byte) ([]Statement, error) {
	fields := mt940Fields(string(text))
	var (
		done []*mt940Statement
		cur  *mt940Statement
		// lastLine is the index in cur's lines of the transaction an :86: would describe, -1
		// when the field before was not a :61:.
		lastLine = -1
	)
	finish := func() error {
		if cur == nil {
			return nil
		}
		s := cur
		cur = nil
		if !s.hasOpening {
			return &Error{Line: s.line, Msg: "the statement that starts here has no opening balance (:60F:)"}
		}
		if s.st.Closing == nil {
			return &Error{Line: s.line, Msg: "the statement that starts here has no closing balance (:62F:): the file may be truncated"}
		}
		if n := len(done); n > 0 && s.openingM && done[n-1].closingM &&
			done[n-1].st.Account == s.st.Account && done[n-1].st.Currency == s.st.Currency {
			// An intermediate statement continues the one before: the bank split one statement
			// over several messages (:62M: then :60M:), so they are one statement here, with the
			// first part's opening and the last part's closing balance.
			prev := done[n-1]
			prev.st.Lines = append(prev.st.Lines, s.st.Lines...)
			prev.st.Closing = s.st.Closing
			prev.closingM = s.closingM
			return nil
		}
		done = append(done, s)
		return nil
	}
	start := func(line int) {
		cur = &mt940Statement{line: line, st: Statement{Format: FormatMT940}}
	}
	for _, f := range fields {
		described := lastLine
		lastLine = -1
		switch f.tag {
		case "20":
			if err := finish(); err != nil {
				return nil, err
			}
			start(f.line)
		case "25":
			if cur == nil {
				start(f.line)
			}
			cur.st.Account, cur.st.Currency = mt940Account(f.lines[0], cur.st.Currency)
		case "60F", "60M":
			if cur != nil && cur.st.Closing != nil {
				// A new opening balance after a closing one without a :20: between: the next
				// statement of the same account.
				acct, ccy := cur.st.Account, cur.st.Currency
				if err := finish(); err != nil {
					return nil, err
				}
				start(f.line)
				cur.st.Account, cur.st.Currency = acct, ccy
			}
			if cur == nil {
				start(f.line)
			}
			if cur.hasOpening {
				return nil, &Error{Line: f.line, Msg: "a statement has a second opening balance (:60F:) before its closing balance"}
			}
			b, ccy, err := mt940Balance(f)
			if err != nil {
				return nil, err
			}
			if err := cur.currency(ccy, f.line); err != nil {
				return nil, err
			}
			cur.st.Opening, cur.hasOpening, cur.openingM = b, true, f.tag == "60M"
		case "61":
			if cur == nil {
				start(f.line)
			}
			if cur.st.Closing != nil {
				return nil, &Error{Line: f.line, Msg: "a transaction (:61:) comes after its statement's closing balance (:62F:)"}
			}
			l, err := mt940Line(f)
			if err != nil {
				return nil, err
			}
			cur.st.Lines = append(cur.st.Lines, l)
			lastLine = len(cur.st.Lines) - 1
		case "86":
			if described >= 0 {
				mt940Describe(&cur.st.Lines[described], f.lines)
			}
			// An :86: after the closing balance (ING's totals) describes the statement: skipped.
		case "62F", "62M":
			if cur == nil {
				start(f.line)
			}
			if cur.st.Closing != nil {
				return nil, &Error{Line: f.line, Msg: "a statement has a second closing balance (:62F:)"}
			}
			b, ccy, err := mt940Balance(f)
			if err != nil {
				return nil, err
			}
			if err := cur.currency(ccy, f.line); err != nil {
				return nil, err
			}
			cur.st.Closing, cur.closingM = b, f.tag == "62M"
		}
		// Other fields (:28C:, :64:, :65:, :21:, :13D:, :940:) say nothing a statement keeps.
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(done) == 0 {
		return nil, &Error{Msg: "the file holds no MT940 statement (a :20: with its :60F: and :62F: balances)"}
	}
	out := make([]Statement, len(done))
	for i, s := range done {
		out[i] = s.st
	}
	return out, nil
}

// currency sets the statement's currency from a balance's, which must agree with what the
// statement already names.
func (s *mt940Statement) currency(ccy string, line int) error {
	switch {
	case s.st.Currency == "":
		s.st.Currency = ccy
	case s.st.Currency != ccy && (s.hasOpening || s.st.Closing != nil):
		return &Error{Line: line, Msg: "the balance is in another currency than the statement's other balance"}
	default:
		// The balance's currency wins over one guessed from the :25: account.
		s.st.Currency = ccy
	}
	return nil
}

// mt940Fields splits the text into tagged fields, dropping what lies between them: SWIFT block
// headers, "-" ends, bank header lines before the first tag and after an end.
func mt940Fields(text string) []mtField {
	var (
		fields []mtField
		open   = false // a field is open: untagged lines continue it
	)
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := raw
		if strings.HasPrefix(line, "{") {
			// {1:…}{2:…}{3:…}{4: starts a message; {5:…} alone is its trailer.
			j := strings.Index(line, "{4:")
			if j < 0 {
				open = false
				continue
			}
			line = line[j+3:]
			if strings.TrimSpace(line) == "" {
				open = false
				continue
			}
		}
		if mt940End(line) {
			open = false
			continue
		}
		if tag, rest, ok := mt940Tag(line); ok {
			fields = append(fields, mtField{tag: tag, line: n, lines: []string{rest}})
			open = true
			continue
		}
		if open {
			last := &fields[len(fields)-1]
			last.lines = append(last.lines, line)
		}
	}
	return fields
}

// mt940End tells a message's end: "-", "-}", "-}{5:…}", ING's "-XXX".
func mt940End(line string) bool {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "-") {
		return false
	}
	rest := t[1:]
	if rest == "" || rest[0] == '}' {
		return true
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < 'A' || rest[i] > 'Z' {
			return false
		}
	}
	return len(rest) <= 4
}

// mt940Tag reads ":NN:" or ":NNa:" (":20:", ":28C:", ":60F:", and Rabobank's ":940:") at the
// start of a line.
func mt940Tag(line string) (tag, rest string, ok bool) {
	if len(line) < 4 || line[0] != ':' {
		return "", "", false
	}
	end := strings.IndexByte(line[1:], ':')
	if end < 2 || end > 4 {
		return "", "", false
	}
	tag = line[1 : 1+end]
	digits := 0
	for digits < len(tag) && tag[digits] >= '0' && tag[digits] <= '9' {
		digits++
	}
	switch {
	case digits == len(tag) && (digits == 2 || digits == 3):
	case digits == 2 && len(tag) == 3 && tag[2] >= 'A' && tag[2] <= 'Z':
	default:
		return "", "", false
	}
	return tag, line[2+end:], true
}

// mt940Account reads :25:: "NL00TEST0123456789", "NL00TEST0123456789EUR" (ING), "NL00TEST0123456789 EUR",
// "ABNANL2A/0517852257" (a BIC before the account), "0001234567". ccy is the currency it names,
// else the one passed in.
func mt940Account(v, ccy string) (string, string) {
	fs := strings.Fields(v)
	if len(fs) == 0 {
		return "", ccy
	}
	acct := fs[0]
	if len(fs) > 1 && isCurrencyCode(fs[1]) {
		ccy = fs[1]
	}
	if bic, rest, ok := strings.Cut(acct, "/"); ok && looksBIC(bic) && rest != "" {
		acct = rest
	}
	if n, ok := ibanLength[acct[:min(2, len(acct))]]; ok && len(acct) == n+3 && looksIBAN(acct[:n]) && isCurrencyCode(acct[n:]) {
		acct, ccy = acct[:n], acct[n:]
	}
	return acct, ccy
}

// mt940Balance reads :60F:, :60M:, :62F: or :62M:: C or D, YYMMDD, currency, amount
// ("C130101EUR000000001000,00").
func mt940Balance(f mtField) (*Balance, string, error) {
	v := strings.TrimSpace(f.lines[0])
	bad := &Error{Line: f.line, Msg: "the :" + f.tag + ": balance is not C or D, a date (YYMMDD), a currency and an amount"}
	if len(v) < 11 || (v[0] != 'C' && v[0] != 'D') {
		return nil, "", bad
	}
	date, ok := mt940Date(v[1:7])
	if !ok {
		return nil, "", &Error{Line: f.line, Msg: "the :" + f.tag + ": balance's date is not a date (YYMMDD)"}
	}
	ccy := v[7:10]
	if !isCurrencyCode(ccy) {
		return nil, "", bad
	}
	amt, _, problem := exactDecimal(v[10:], ',')
	if problem != "" {
		return nil, "", &Error{Line: f.line, Msg: "the :" + f.tag + ": balance's amount " + problem}
	}
	if amt < 0 {
		return nil, "", bad
	}
	if v[0] == 'D' {
		amt = -amt
	}
	return &Balance{Date: date, Amount: amt}, ccy, nil
}

// mt940Date reads YYMMDD; SWIFT's two-digit years are 1980–2079 here.
func mt940Date(s string) (string, bool) {
	if len(s) != 6 {
		return "", false
	}
	yy, ok1 := digitsInt(s[0:2])
	m, ok2 := digitsInt(s[2:4])
	d, ok3 := digitsInt(s[4:6])
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	y := 2000 + yy
	if yy >= 80 {
		y = 1900 + yy
	}
	return civilDate(y, m, d)
}

// mt940Line reads a :61: field: value date YYMMDD, an optional entry (booking) date MMDD, the
// mark D, C, RD or RC, an optional funds code letter, the amount with a decimal comma, the
// transaction type (N, S or F and three characters), the reference for the account owner,
// optionally "//" and the bank's reference, and on the next line supplementary details.
func mt940Line(f mtField) (Line, error) {
	s := strings.TrimRight(f.lines[0], " ")
	l := Line{Source: f.line}
	bad := func(what string) (Line, error) {
		return Line{}, &Error{Line: f.line, Msg: "the :61: transaction " + what}
	}
	if len(s) < 6 {
		return bad("is too short for a value date, D or C, and an amount")
	}
	value, ok := mt940Date(s[:6])
	if !ok {
		return bad("has a value date that is not a date (YYMMDD)")
	}
	l.ValueDate, l.Date = value, value
	i := 6
	if len(s) >= i+4 && digitsOnly(s[i:i+4]) {
		booked, ok := mt940EntryDate(value, s[i:i+4])
		if !ok {
			return bad("has an entry date that is not a date (MMDD)")
		}
		l.Date = booked
		i += 4
	}
	var debit bool
	switch {
	case strings.HasPrefix(s[i:], "RC"):
		// The reversal of a credit is booked as a debit.
		debit, l.Reversal = true, true
		i += 2
	case strings.HasPrefix(s[i:], "RD"):
		l.Reversal = true
		i += 2
	case strings.HasPrefix(s[i:], "D"):
		debit = true
		i++
	case strings.HasPrefix(s[i:], "C"):
		i++
	default:
		return bad("has no debit/credit mark (D, C, RD or RC) after its dates")
	}
	if i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		i++ // funds code: the third letter of the currency code
	}
	j := i
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ',') {
		j++
	}
	if j == i {
		return bad("has no amount after its debit/credit mark")
	}
	amt, dec, problem := exactDecimal(s[i:j], ',')
	if problem != "" {
		return Line{}, &Error{Line: f.line, Msg: "the :61: transaction's amount " + problem}
	}
	if debit {
		amt = -amt
	}
	l.Amount, l.Decimals = amt, dec
	rest := s[j:]
	if len(rest) < 4 || !strings.ContainsRune("NSF", rune(rest[0])) {
		return bad("has no transaction type (N, S or F and three characters) after its amount")
	}
	owner, bankRef, _ := strings.Cut(rest[4:], "//")
	owner = strings.TrimSpace(owner)
	l.BankID = strings.TrimSpace(bankRef)
	if looksIBAN(owner) {
		// ASN Bank puts the counterparty's IBAN where the owner's reference goes.
		l.Counterparty = owner
	}
	if sup := oneSpaced(strings.Join(f.lines[1:], " ")); sup != "" {
		// Supplementary details: Rabobank writes the counterparty's account there, ASN Bank its
		// name.
		switch {
		case strings.HasPrefix(sup, "/"):
			// ING's transaction code (/TRCD/01028/): the :86: says more.
		case !strings.Contains(sup, " ") && looksAccount(sup):
			l.Counterparty = sup
		default:
			l.Payee = sup
		}
	}
	return l, nil
}

// mt940EntryDate reads the entry date MMDD of a transaction of value date value (YYYY-MM-DD):
// its year is the one that puts it nearest the value date, so a value date of 31 December with
// an entry date of 0102 is booked on 2 January of the next year, and the other way round.
func mt940EntryDate(value, mmdd string) (string, bool) {
	vt, err := time.Parse(time.DateOnly, value)
	if err != nil {
		return "", false
	}
	m, _ := digitsInt(mmdd[:2])
	d, _ := digitsInt(mmdd[2:])
	best, bestGap := "", time.Duration(-1)
	for y := vt.Year() - 1; y <= vt.Year()+1; y++ {
		s, ok := civilDate(y, m, d)
		if !ok {
			continue
		}
		t, _ := time.Parse(time.DateOnly, s)
		gap := t.Sub(vt)
		if gap < 0 {
			gap = -gap
		}
		if bestGap < 0 || gap < bestGap {
			best, bestGap = s, gap
		}
	}
	return best, best != ""
}

// mt940LineWidth is how wide a bank writes :86: lines: a line this long was cut where it was
// full, maybe inside a word, so the next one continues it without a space.
const mt940LineWidth = 65

// mt940Describe reads an :86: field into the line it describes: the structured form of Dutch
// banks (/EREF/…/NAME/…/REMI/…), the ?-subfields of German banks (?20…?32…), or free text.
func mt940Describe(l *Line, lines []string) {
	first := strings.TrimSpace(lines[0])
	switch {
	case dutchStructured(first):
		// The lines are cut at a fixed width wherever that falls: a name or remittance goes on
		// at the next line's first character, and the codes' slashes keep fields apart.
		mt940Dutch(l, strings.Join(lines, ""))
		return
	case germanStructured(first):
		mt940German(l, strings.Join(lines, ""))
		return
	}
	var b strings.Builder
	for i, ln := range lines {
		if i > 0 && len(lines[i-1]) < mt940LineWidth {
			b.WriteByte(' ')
		}
		b.WriteString(ln)
	}
	text := oneSpaced(b.String())
	// ASN Bank repeats the counterparty's IBAN and name at the start of its :86:; the line
	// has them apart already.
	if l.Counterparty != "" && strings.HasPrefix(text, l.Counterparty) {
		text = strings.TrimSpace(text[len(l.Counterparty):])
		if l.Payee != "" && strings.HasPrefix(text, l.Payee) {
			text = strings.TrimSpace(text[len(l.Payee):])
		}
	}
	l.Description = text
}

// dutchCodes are the codes of the structured :86: of Rabobank, ING, ABN AMRO, ASN/SNS and
// Triodos (their MT940 format descriptions), each written /CODE/.
var dutchCodes = map[string]bool{
	"EREF": true, "MARF": true, "CSID": true, "BENM": true, "ORDP": true, "NAME": true,
	"ADDR": true, "REMI": true, "ISDT": true, "TRTP": true, "IBAN": true, "BIC": true,
	"CNTP": true, "RTRN": true, "PURP": true, "ULTC": true, "ULTD": true, "ULTB": true,
	"SVCL": true, "PREF": true, "NRTX": true, "ACCW": true, "CDTRREFTP": true, "CDTRREF": true,
	"BUSP": true, "EXCH": true, "CHGS": true, "OCMT": true, "FCNT": true, "RTYP": true,
}

// dutchCodeAt returns the code that starts s[i:] as "/CODE/", "" if none does.
func dutchCodeAt(s string, i int) string {
	if s[i] != '/' {
		return ""
	}
	j := strings.IndexByte(s[i+1:], '/')
	if j < 3 || j > 9 {
		return ""
	}
	if c := s[i+1 : i+1+j]; dutchCodes[c] {
		return c
	}
	return ""
}

func dutchStructured(first string) bool {
	return strings.HasPrefix(first, "/") && dutchCodeAt(first, 0) != ""
}

// mt940Dutch reads /CODE/value/CODE/value…: NAME (or CNTP's, BENM's, ORDP's third part) is the
// payee, IBAN (or CNTP's first part) the counterparty, REMI the description; the rest (end-to-end
// and mandate references, dates, transaction types) says nothing a person keeps.
func mt940Dutch(l *Line, s string) {
	type part struct{ code, value string }
	var parts []part
	for i := 0; i < len(s); {
		c := dutchCodeAt(s, i)
		if c == "" {
			i++
			continue
		}
		start := i + len(c) + 2
		end := start
		for end < len(s) && dutchCodeAt(s, end) == "" {
			k := strings.IndexByte(s[end+1:], '/')
			if k < 0 {
				end = len(s)
				break
			}
			end += 1 + k
		}
		parts = append(parts, part{c, strings.Trim(s[start:end], "/ ")})
		i = end
	}
	var payee, account, remi, trtp string
	for _, p := range parts {
		switch p.code {
		case "NAME":
			if payee == "" {
				payee = p.value
			}
		case "IBAN", "ACCW":
			if account == "" {
				account = p.value
			}
		case "CNTP", "BENM", "ORDP":
			// account/BIC/name/city, when not split into /NAME/ and /IBAN/ codes.
			sub := strings.Split(p.value, "/")
			if account == "" && looksAccount(sub[0]) {
				account = sub[0]
			}
			if payee == "" && len(sub) > 2 {
				payee = sub[2]
			}
		case "REMI":
			if remi == "" {
				remi = dutchRemittance(p.value)
			}
		case "TRTP":
			trtp = p.value
		}
	}
	if payee = oneSpaced(payee); payee != "" {
		l.Payee = payee
	}
	if account = strings.TrimSpace(account); account != "" {
		l.Counterparty = account
	}
	l.Description = oneSpaced(remi)
	if l.Description == "" {
		l.Description = oneSpaced(trtp)
	}
}

// dutchRemittance drops the USTD (unstructured) or STRD/CUR (structured creditor reference)
// marks ING and ABN AMRO put before the remittance text.
func dutchRemittance(v string) string {
	switch {
	case strings.HasPrefix(v, "USTD/"):
		v = strings.TrimLeft(v[len("USTD"):], "/")
	case strings.HasPrefix(v, "STRD/"):
		v = strings.TrimLeft(v[len("STRD"):], "/")
		if strings.HasPrefix(v, "CUR/") {
			v = strings.TrimLeft(v[len("CUR"):], "/")
		}
	}
	return strings.ReplaceAll(strings.Trim(v, "/"), "//", " ")
}

// germanStructured tells the :86: of German banks: a three-digit transaction code, then
// ?NN subfields.
func germanStructured(first string) bool {
	return len(first) >= 6 && digitsOnly(first[:3]) && first[3] == '?' && digitsOnly(first[4:6])
}

// mt940German reads ?00 (booking text), ?20–?29 and ?60–?63 (purpose), ?31 (the counterparty's
// account) and ?32–?33 (its name).
func mt940German(l *Line, s string) {
	var booking, purpose, account, name strings.Builder
	for _, sub := range strings.Split(s[3:], "?")[1:] {
		if len(sub) < 2 || !digitsOnly(sub[:2]) {
			continue
		}
		code, _ := digitsInt(sub[:2])
		v := sub[2:]
		switch {
		case code == 0:
			booking.WriteString(v)
		case code >= 20 && code <= 29, code >= 60 && code <= 63:
			purpose.WriteString(v)
		case code == 31:
			account.WriteString(v)
		case code == 32 || code == 33:
			name.WriteString(v)
		}
	}
	l.Payee = oneSpaced(name.String())
	if a := strings.TrimSpace(account.String()); a != "" {
		l.Counterparty = a
	}
	l.Description = oneSpaced(sepaRemittance(purpose.String()))
	if l.Description == "" {
		l.Description = oneSpaced(booking.String())
	}
}

// sepaKeys are the keywords with which German banks tag the parts of a SEPA purpose
// (Deutsche Kreditwirtschaft, "Spezifikation der Datenformate", the SEPA fields in MT940).
var sepaKeys = []string{
	"EREF+", "KREF+", "MREF+", "CRED+", "DEBT+", "SVWZ+", "ABWA+", "ABWE+", "IBAN+", "BIC+",
	"COAM+", "OAMT+", "SQTP+", "PURP+",
}

// sepaRemittance is the SVWZ+ part (the remittance information) of a SEPA purpose, up to the
// next keyword, or the whole purpose when it has none.
func sepaRemittance(p string) string {
	i := strings.Index(p, "SVWZ+")
	if i < 0 {
		return p
	}
	rest := p[i+len("SVWZ+"):]
	end := len(rest)
	for _, k := range sepaKeys {
		if j := strings.Index(rest, k); j >= 0 && j < end {
			end = j
		}
	}
	return rest[:end]
}

// isCurrencyCode tells three upper-case letters, the shape of an ISO 4217 code.
func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// looksIBAN tells the shape of an IBAN: two letters, two check digits, and 11 to 30 letters and
// digits. The check digits are not verified: test and anonymised statements carry IBANs that
// fail them, and the account's number is what the file says it is.
func looksIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i < 2 && (c < 'A' || c > 'Z'):
			return false
		case i >= 2 && i < 4 && (c < '0' || c > '9'):
			return false
		case i >= 4 && !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'):
			return false
		}
	}
	return true
}

// looksBIC tells the shape of a BIC: 8 or 11 letters and digits, the first six letters.
func looksBIC(s string) bool {
	if len(s) != 8 && len(s) != 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'A' && c <= 'Z'
		if i < 6 && !letter || !letter && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// looksAccount tells an account number written as one word: an IBAN, or at least six
// characters of digits with perhaps a letter, dots or dashes ("P001234567", "0111111111",
// "12.34.56.789").
func looksAccount(s string) bool {
	if looksIBAN(s) {
		return true
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'A' && c <= 'Z', c == '.', c == '-':
		default:
			return false
		}
	}
	return digits >= 6 && digits*2 > len(s)
}

// ibanLength is the length of an IBAN by country (the IBAN registry of SWIFT, ISO 13616), so
// that ING's ":25:NL00TEST0123456789EUR" can be told apart into the IBAN and its currency.
var ibanLength = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
	"BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
	"EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
	"GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IS": 26, "IT": 27,
	"JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21,
	"MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15,
	"PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31,
	"SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26,
	"UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

// looksMT940 tells MT940 by its fields: a statement's reference or account (:20:, :25:) and a
// balance (:60F:, :62F:, or their intermediate :60M:, :62M:), each at the start of a line.
func looksMT940(text []byte) bool {
	var ref, balance bool
	for s := string(text); s != ""; {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		if strings.HasPrefix(line, "{") {
			if j := strings.Index(line, "{4:"); j >= 0 {
				line = line[j+3:]
			}
		}
		tag, _, ok := mt940Tag(line)
		if !ok {
			continue
		}
		switch tag {
		case "20", "25":
			ref = true
		case "60F", "60M", "62F", "62M":
			balance = true
		}
		if ref && balance {
			return true
		}
	}
	return false
}
