package statement

import (
	"strings"
)

// csvRole is what a column of a bank's CSV export holds.
type csvRole int

const (
	roleDate         csvRole = iota // the booking date
	roleValueDate                   // the value (interest) date
	roleAmount                      // a signed amount, or an unsigned one with roleDC
	roleDebit                       // money out
	roleCredit                      // money in
	roleDC                          // which way an unsigned amount goes: Af/Bij, D/C, Debet/Credit
	rolePayee                       // the counterparty's name
	roleMemo                        // description text; a layout may have several columns of it
	roleAccount                     // the account the statement is of
	roleCounterparty                // the other side's account number
	roleCurrency                    // the account's currency
	roleBalAfter                    // the account's balance after the line
	roleBalBefore                   // the account's balance before the line
	roleBal                         // a running balance; whether before or after is told from the data
	roleBankID                      // the bank's own id of the line
	roleCount
)

// roleArg is the csv argument's field for the roles a caller may set, as tools.md names them;
// messages name these so that a person (or a model) knows what to pass.
var roleArg = map[csvRole]string{
	roleDate:   "csv.date",
	roleAmount: "csv.amount",
	roleDebit:  "csv.debit",
	roleCredit: "csv.credit",
	roleDC:     "csv.debit_credit",
	rolePayee:  "csv.payee",
	roleMemo:   "csv.memo",
}

// balanceRoles are the roles whose cells are amounts besides the line's own.
var balanceRoles = []csvRole{roleBalAfter, roleBalBefore, roleBal}

// csvLayout is one bank's export format. A header layout is recognised by names its header
// row holds (signature) and maps roles to header names; a headerless layout is recognised by
// the shape of its first lines and maps roles to column positions. Fields left zero are
// detected from the data (date format, decimal mark).
type csvLayout struct {
	name string

	signature []string             // normalised header names all present in the header row
	names     map[csvRole][]string // normalised header names per role

	shape      func(fields []string) bool // a headerless line of this layout
	columns    map[csvRole][]int          // 0-based positions per role
	minFields  int                        // fields a headerless line has at least
	delim      byte                       // a headerless layout's delimiter
	quote      byte                       // its quote character, '"' when zero
	quotedFrom int                        // with quote: the first column it may quote

	// currency gives the currency an account of this layout is held in, for a file that names
	// none ("" where it cannot tell).
	currency func(account string) string

	dateFormat string // fixed date format, "" to detect
	decimal    byte   // fixed decimal mark, 0 to detect

	// refine finishes a line from what the bank packs into its text: ING's value date in
	// Mededelingen, ABN AMRO's name and IBAN inside its description.
	refine func(l *Line)
}

// normHeader puts a header name in the form the synonym tables use: lower case, accents
// folded, single spaced, no spaces around '/', and without a trailing "(EUR)" or " in EUR",
// whose three-letter code it returns as the column's currency.
func normHeader(s string) (name, currency string) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = accentFolder.Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(strings.ReplaceAll(s, " /", "/"), "/ ", "/")
	if strings.HasSuffix(s, ")") {
		if k := strings.LastIndexByte(s, '('); k >= 0 {
			inner := strings.TrimSpace(s[k+1 : len(s)-1])
			if isUpper3(strings.ToUpper(inner)) {
				currency = strings.ToUpper(inner)
			}
			if inner == "euro" || inner == "euros" {
				currency = "EUR"
			}
			s = strings.TrimSpace(s[:k])
		}
	}
	for _, suf := range []string{" in eur", " en eur", " eur", " euro", " euros", " en euros"} {
		if strings.HasSuffix(s, suf) && len(s) > len(suf) {
			s = strings.TrimSuffix(s, suf)
			currency = "EUR"
			break
		}
	}
	return s, currency
}

var accentFolder = strings.NewReplacer(
	"é", "e", "è", "e", "ê", "e", "ë", "e", "á", "a", "à", "a", "â", "a", "ä", "a",
	"í", "i", "ì", "i", "î", "i", "ï", "i", "ó", "o", "ò", "o", "ô", "o", "ö", "o",
	"ú", "u", "ù", "u", "û", "u", "ü", "u", "ç", "c", "ñ", "n", "ß", "ss", "’", "'", "`", "'",
)

// synonyms are the header names, in English, Dutch, German and French, that generic detection
// reads as each role, most wanted first: where a file has several date columns (Knab's
// Transactiedatum, Valutadatum and Boekdatum; German banks' Buchungstag and Valuta) the
// booking date wins. Names are in normHeader's form.
var synonyms = map[csvRole][]string{
	roleDate: {
		"boekdatum", "boekingsdatum", "buchungstag", "buchungsdatum", "buchung", "booking date",
		"posting date", "posted date", "date de comptabilisation", "date comptable",
		"datum", "date", "transactiedatum", "transaction date", "date d'operation",
		"date de l'operation", "date operation", "dateop",
	},
	roleValueDate: {
		"valutadatum", "rentedatum", "wertstellung", "wertstellungsdatum", "value date",
		"interest date", "date de valeur", "date valeur", "dateval",
	},
	roleAmount: {
		"bedrag", "amount", "betrag", "montant", "umsatz", "transactiebedrag",
		"transaction amount", "montant de l'operation",
	},
	roleDebit: {
		"debit", "debet", "soll", "af", "withdrawal", "withdrawals", "withdrawal amount",
		"paid out", "money out", "outflow", "belastung", "debit amount", "ausgang",
	},
	roleCredit: {
		"credit", "haben", "bij", "deposit", "deposits", "deposit amount", "paid in",
		"money in", "inflow", "gutschrift", "credit amount", "eingang",
	},
	roleDC: {
		"af bij", "af/bij", "creditdebet", "credit/debet", "debet/credit", "debit/credit",
		"credit/debit", "soll/haben", "s/h", "d/c", "c/d", "cd", "dc", "debitcredit",
	},
	rolePayee: {
		"naam/omschrijving", "naam tegenpartij", "tegenrekeninghouder", "naam tegenrekening",
		"naam", "name", "payee", "name/description", "counterparty name", "beneficiary",
		"empfanger", "auftraggeber/empfanger", "auftraggeber/zahlungsempfanger",
		"zahlungsempfanger", "beguenstigter/zahlungspflichtiger", "name zahlungsbeteiligter",
		"zahlungspflichtiger", "beneficiaire", "tiers", "merchant", "merchant name",
	},
	roleMemo: {
		"omschrijving", "mededelingen", "description", "verwendungszweck", "libelle",
		"libelle operation", "memo", "details", "notifications", "narrative", "communication",
		"purpose", "payment reference",
	},
	// Only names that cannot be the counterparty's: a bare "IBAN" or "Konto" is the other
	// side's in some German exports, and lines are grouped into statements by this column.
	roleAccount: {
		"rekening", "rekeningnummer", "eigen rekening", "account", "account number",
		"iban/bban", "iban auftragskonto", "auftragskonto",
	},
	roleCounterparty: {
		"tegenrekening", "tegenrekeningnummer", "tegenrekening iban/bban", "iban tegenpartij",
		"counterparty", "counterparty account", "counterparty iban", "iban zahlungsbeteiligter",
		"gegenkonto",
	},
	roleCurrency: {
		"munt", "muntsoort", "valutacode", "currency", "wahrung", "devise", "munteenheid",
	},
	roleBalAfter: {
		"saldo na mutatie", "saldo na trn", "saldo na transactie", "balance after",
		"resulting balance", "saldo nach buchung", "kontostand", "running balance",
	},
	roleBalBefore: {
		"saldo voor mutatie", "saldo voor trn", "beginsaldo", "startsaldo", "balance before",
	},
	roleBal:    {"saldo", "balance", "solde"},
	roleBankID: {"volgnr", "referentie", "transaction id", "transactie id"},
}

// dayFirstDateHeaders are date headers of languages whose dates are written day first: a date
// column so named that could be DD/MM or MM/DD is read day first.
var dayFirstDateHeaders = map[string]bool{
	"boekdatum": true, "boekingsdatum": true, "buchungstag": true, "buchungsdatum": true,
	"buchung": true, "date de comptabilisation": true, "date comptable": true, "datum": true,
	"transactiedatum": true, "date d'operation": true, "date de l'operation": true,
	"date operation": true, "dateop": true,
}

// synonymRank gives, for a normalised header name, the roles it may be and its rank in each.
// "valuta" is missing on purpose: Dutch for currency, German for value date, it is told by
// what its column holds.
var synonymRank = func() map[string][]struct {
	role csvRole
	rank int
} {
	out := map[string][]struct {
		role csvRole
		rank int
	}{}
	for role, names := range synonyms {
		for i, n := range names {
			out[n] = append(out[n], struct {
				role csvRole
				rank int
			}{role, i})
		}
	}
	return out
}()

// memoName says a normalised header names a description column, numbered ones included
// (Rabobank's Omschrijving-1 to -3, "Verwendungszweck 2").
func memoName(n string) bool {
	for _, m := range synonyms[roleMemo] {
		if n == m {
			return true
		}
		if strings.HasPrefix(n, m) {
			rest := strings.TrimLeft(n[len(m):], " -_")
			if rest != "" && allDigits(rest) {
				return true
			}
		}
	}
	return false
}

// csvMapping is where each role's cells are in a file's lines.
type csvMapping struct {
	cols [roleCount][]int // 0-based; roleMemo may have several, the others one at most
	// currency is the currency a header names in passing ("Bedrag (EUR)"), used where no
	// column gives one.
	currency string
}

func (m *csvMapping) has(r csvRole) bool { return len(m.cols[r]) > 0 }

func (m *csvMapping) col(r csvRole) int {
	if len(m.cols[r]) == 0 {
		return -1
	}
	return m.cols[r][0]
}

// mapGeneric reads a header row by the synonym tables. rows are the lines after it, looked at
// only to tell what a "Valuta" column holds.
func mapGeneric(header []string, rows []csvRecord) csvMapping {
	var m csvMapping
	best := [roleCount]int{}
	for i := range best {
		best[i] = 1 << 30
	}
	set := func(r csvRole, col, rank int) {
		if rank < best[r] {
			best[r] = rank
			m.cols[r] = []int{col}
		}
	}
	for col, h := range header {
		n, cur := normHeader(h)
		if n == "" {
			continue
		}
		if memoName(n) {
			m.cols[roleMemo] = append(m.cols[roleMemo], col)
			continue
		}
		if n == "valuta" {
			switch valutaHolds(rows, col) {
			case roleValueDate:
				set(roleValueDate, col, len(synonyms[roleValueDate]))
			case roleCurrency:
				set(roleCurrency, col, len(synonyms[roleCurrency]))
			}
			continue
		}
		for _, s := range synonymRank[n] {
			set(s.role, col, s.rank)
			if cur != "" && (s.role == roleAmount || s.role == roleDebit || s.role == roleCredit) && m.currency == "" {
				m.currency = cur
			}
		}
	}
	return m
}

// valutaHolds tells whether a column named "Valuta" holds dates or currency codes, from its
// first non-empty cell.
func valutaHolds(rows []csvRecord, col int) csvRole {
	for _, r := range rows {
		c := r.field(col)
		if c == "" {
			continue
		}
		if isUpper3(strings.ToUpper(c)) {
			return roleCurrency
		}
		for _, f := range dateCandidates {
			if _, ok := f.parse(c); ok {
				return roleValueDate
			}
		}
		return roleCount
	}
	return roleCount
}

// mapNamed maps a known header layout's roles to the columns of its header row.
func mapNamed(l *csvLayout, header []string) csvMapping {
	var m csvMapping
	idx := map[string]int{}
	for col, h := range header {
		n, cur := normHeader(h)
		if _, dup := idx[n]; !dup {
			idx[n] = col
		}
		if cur != "" && m.currency == "" {
			m.currency = cur
		}
	}
	for r, names := range l.names {
		for _, n := range names {
			if col, ok := idx[n]; ok {
				m.cols[r] = append(m.cols[r], col)
			}
		}
	}
	return m
}

// hasSignature says a header row holds every name of a layout's signature.
func hasSignature(l *csvLayout, header []string) bool {
	have := map[string]bool{}
	for _, h := range header {
		n, _ := normHeader(h)
		have[n] = true
	}
	for _, s := range l.signature {
		if !have[s] {
			return false
		}
	}
	return true
}

// dcSign reads a debit/credit indicator: -1 for money out, +1 for money in, 0 for neither.
// It knows ING's Af/Bij, Knab's and Rabobank's D/C, Triodos' Debet/Credit, the German S/H
// (Soll/Haben), CAMT's DBIT/CRDT, and the English and French words.
func dcSign(s string) int {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "af", "d", "debit", "débit", "debet", "s", "soll", "dbit", "dr", "-", "out", "uit":
		return -1
	case "bij", "c", "credit", "crédit", "h", "haben", "crdt", "cr", "+", "in", "k", "kredit":
		return 1
	}
	return 0
}
