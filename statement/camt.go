package statement

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// CAMT.053 is ISO 20022's bank-to-customer statement (BkToCstmrStmt), versions camt.053.001.02
// to .001.08. Elements are matched by local name whatever their namespace, so every version
// reads alike; where the versions differ the structs take both: a status as <Sts>BOOK</Sts>
// (.02) or <Sts><Cd>BOOK</Cd></Sts> (.08), a party's name as <Dbtr><Nm> (.02) or
// <Dbtr><Pty><Nm> (.08). References: the ISO 20022 message definition of camt.053 and the
// Dutch Payments Association's and Swiss SPS implementation guidelines, which the fixtures
// follow. github.com/moov-io/iso20022 was not used: it generates a package of types per message
// version and namespace, far more than these few elements.

type camtAmount struct {
	Value string `xml:",chardata"`
	Ccy   string `xml:"Ccy,attr"`
}

type camtDate struct {
	Dt   string `xml:"Dt"`
	DtTm string `xml:"DtTm"`
}

func (d camtDate) date() (string, bool) {
	if strings.TrimSpace(d.Dt) != "" {
		return isoDatePrefix(d.Dt)
	}
	return isoDatePrefix(d.DtTm)
}

func (d camtDate) empty() bool {
	return strings.TrimSpace(d.Dt) == "" && strings.TrimSpace(d.DtTm) == ""
}

type camtAccountID struct {
	IBAN string `xml:"IBAN"`
	Othr struct {
		ID string `xml:"Id"`
	} `xml:"Othr"`
}

func (a camtAccountID) String() string {
	if s := strings.TrimSpace(a.IBAN); s != "" {
		return s
	}
	return strings.TrimSpace(a.Othr.ID)
}

type camtAccount struct {
	ID  camtAccountID `xml:"Id"`
	Ccy string        `xml:"Ccy"`
}

type camtBalance struct {
	Tp struct {
		CdOrPrtry struct {
			Cd string `xml:"Cd"`
		} `xml:"CdOrPrtry"`
	} `xml:"Tp"`
	Amt       camtAmount `xml:"Amt"`
	CdtDbtInd string     `xml:"CdtDbtInd"`
	Dt        camtDate   `xml:"Dt"`
}

type camtParty struct {
	Nm  string `xml:"Nm"`
	Pty struct {
		Nm string `xml:"Nm"`
	} `xml:"Pty"`
}

func (p camtParty) name() string {
	if s := oneSpaced(p.Nm); s != "" {
		return s
	}
	return oneSpaced(p.Pty.Nm)
}

type camtPartyAccount struct {
	ID camtAccountID `xml:"Id"`
}

type camtTx struct {
	Refs struct {
		AcctSvcrRef string `xml:"AcctSvcrRef"`
	} `xml:"Refs"`
	RltdPties struct {
		Dbtr     camtParty        `xml:"Dbtr"`
		DbtrAcct camtPartyAccount `xml:"DbtrAcct"`
		Cdtr     camtParty        `xml:"Cdtr"`
		CdtrAcct camtPartyAccount `xml:"CdtrAcct"`
	} `xml:"RltdPties"`
	RmtInf struct {
		Ustrd []string `xml:"Ustrd"`
		Strd  []struct {
			RfrdDocInf []struct {
				Nb string `xml:"Nb"`
			} `xml:"RfrdDocInf"`
			CdtrRefInf struct {
				Ref string `xml:"Ref"`
			} `xml:"CdtrRefInf"`
			AddtlRmtInf []string `xml:"AddtlRmtInf"`
		} `xml:"Strd"`
	} `xml:"RmtInf"`
	AddtlTxInf string `xml:"AddtlTxInf"`
}

type camtEntry struct {
	Amt       camtAmount `xml:"Amt"`
	CdtDbtInd string     `xml:"CdtDbtInd"`
	RvslInd   string     `xml:"RvslInd"`
	Sts       struct {
		Value string `xml:",chardata"`
		Cd    string `xml:"Cd"`
	} `xml:"Sts"`
	BookgDt      camtDate `xml:"BookgDt"`
	ValDt        camtDate `xml:"ValDt"`
	AcctSvcrRef  string   `xml:"AcctSvcrRef"`
	AddtlNtryInf string   `xml:"AddtlNtryInf"`
	NtryDtls     []struct {
		TxDtls []camtTx `xml:"TxDtls"`
	} `xml:"NtryDtls"`
}

func parseCAMT(text []byte) ([]Statement, error) {
	d := xml.NewDecoder(bytes.NewReader(text))
	d.CharsetReader = identityCharset
	var (
		out        []Statement
		inStmtList bool // inside BkToCstmrStmt
		sawRoot    bool
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !sawRoot {
				return nil, &Error{Msg: "the file is not an ISO 20022 XML statement (CAMT.053)"}
			}
			return nil, camtXMLError(d, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "BkToCstmrStmt":
				inStmtList, sawRoot = true, true
			case "BkToCstmrAcctRpt", "BkToCstmrDbtCdtNtfctn":
				if !sawRoot {
					return nil, &Error{Msg: "the file is an ISO 20022 report or notification (camt.052 or camt.054), not a statement (camt.053)"}
				}
			case "Stmt":
				if inStmtList {
					line, _ := d.InputPos()
					st, err := camtStatement(d, line)
					if err != nil {
						return nil, err
					}
					out = append(out, st)
				}
			}
		case xml.EndElement:
			if t.Name.Local == "BkToCstmrStmt" {
				inStmtList = false
			}
		}
	}
	if !sawRoot {
		return nil, &Error{Msg: "the file holds no ISO 20022 statement (BkToCstmrStmt): it is not CAMT.053"}
	}
	if len(out) == 0 {
		return nil, &Error{Msg: "the CAMT.053 file holds no statement (Stmt)"}
	}
	return out, nil
}

// camtXMLError words a decoding error by its line alone: encoding/xml's own messages quote
// the file (names of entities, characters).
func camtXMLError(d *xml.Decoder, err error) error {
	line, _ := d.InputPos()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		line = se.Line
		if se.Msg == "unexpected EOF" {
			return &Error{Line: line, Msg: "the file ends inside an element: it is truncated"}
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Line: line, Msg: "the file ends inside an element: it is truncated"}
	}
	return &Error{Line: line, Msg: "the file is not well-formed XML here"}
}

// camtStatement reads one Stmt, its start tag just read, up to its end tag.
func camtStatement(d *xml.Decoder, line int) (Statement, error) {
	st := Statement{Format: FormatCAMT}
	var opening, prcd *Balance
	var firstCcy string // of a balance or entry, when Acct names no currency
	for {
		tok, err := d.Token()
		if err != nil {
			if err == io.EOF {
				return Statement{}, &Error{Line: line, Msg: "the file ends inside the Stmt element that starts here: it is truncated"}
			}
			return Statement{}, camtXMLError(d, err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Local != "Stmt" {
				continue
			}
			if st.Currency == "" {
				st.Currency = firstCcy
			}
			if opening == nil {
				opening = prcd
			}
			st.Opening = opening
			return st, nil
		case xml.StartElement:
			at, _ := d.InputPos()
			switch t.Name.Local {
			case "Acct":
				var a camtAccount
				if err := d.DecodeElement(&a, &t); err != nil {
					return Statement{}, camtXMLError(d, err)
				}
				st.Account = a.ID.String()
				st.Currency = strings.ToUpper(strings.TrimSpace(a.Ccy))
			case "Bal":
				var b camtBalance
				if err := d.DecodeElement(&b, &t); err != nil {
					return Statement{}, camtXMLError(d, err)
				}
				bal, err := camtBal(b, at)
				if err != nil {
					return Statement{}, err
				}
				if firstCcy == "" {
					firstCcy = strings.ToUpper(strings.TrimSpace(b.Amt.Ccy))
				}
				switch strings.TrimSpace(b.Tp.CdOrPrtry.Cd) {
				case "OPBD":
					if opening == nil {
						opening = bal
					}
				case "PRCD":
					if prcd == nil {
						prcd = bal
					}
				case "CLBD":
					if st.Closing == nil {
						st.Closing = bal
					}
				}
			case "Ntry":
				var e camtEntry
				if err := d.DecodeElement(&e, &t); err != nil {
					return Statement{}, camtXMLError(d, err)
				}
				if firstCcy == "" {
					firstCcy = strings.ToUpper(strings.TrimSpace(e.Amt.Ccy))
				}
				// The schema puts Acct and Bal before the entries, so the statement's currency
				// is known by now.
				ccy := st.Currency
				if ccy == "" {
					ccy = firstCcy
				}
				l, keep, err := camtLine(e, at, ccy)
				if err != nil {
					return Statement{}, err
				}
				if keep {
					st.Lines = append(st.Lines, l)
				}
			default:
				if err := d.Skip(); err != nil {
					return Statement{}, camtXMLError(d, err)
				}
			}
		}
	}
}

// camtSigned reads an amount (unsigned, a decimal point) with its CdtDbtInd: DBIT is money out.
func camtSigned(amt, ind string, line int, what string) (int64, int, error) {
	v, dec, problem := exactDecimal(strings.TrimSpace(amt), '.')
	if problem != "" {
		return 0, 0, &Error{Line: line, Msg: "the " + what + "'s Amt " + problem}
	}
	if v < 0 {
		return 0, 0, &Error{Line: line, Msg: "the " + what + "'s Amt is signed: CAMT gives the sign in CdtDbtInd"}
	}
	switch strings.TrimSpace(ind) {
	case "CRDT":
	case "DBIT":
		v = -v
	default:
		return 0, 0, &Error{Line: line, Msg: "the " + what + "'s CdtDbtInd must be CRDT or DBIT"}
	}
	return v, dec, nil
}

func camtBal(b camtBalance, line int) (*Balance, error) {
	v, _, err := camtSigned(b.Amt.Value, b.CdtDbtInd, line, "Bal")
	if err != nil {
		return nil, err
	}
	date, ok := b.Dt.date()
	if !ok {
		return nil, &Error{Line: line, Msg: "the Bal's Dt is not a date (YYYY-MM-DD)"}
	}
	return &Balance{Date: date, Amount: v}, nil
}

// camtLine reads an entry (Ntry). keep is false for an entry not booked (PDNG, INFO): the
// statement tells of it but it is not on the account yet, or not at all.
//
// An entry with several transaction details (a batch: a collection of direct debits, a salary
// run) is one line for the entry's amount, which is what the bank booked; its payee is the
// details' counterparty when they share one, and its description gathers their remittance
// information.
func camtLine(e camtEntry, line int, currency string) (Line, bool, error) {
	sts := strings.TrimSpace(e.Sts.Cd)
	if sts == "" {
		sts = strings.TrimSpace(e.Sts.Value)
	}
	if sts != "" && sts != "BOOK" {
		return Line{}, false, nil
	}
	l := Line{Source: line}
	var err error
	if l.Amount, l.Decimals, err = camtSigned(e.Amt.Value, e.CdtDbtInd, line, "Ntry"); err != nil {
		return Line{}, false, err
	}
	if c := strings.ToUpper(strings.TrimSpace(e.Amt.Ccy)); c != "" && currency != "" && c != currency {
		return Line{}, false, &Error{Line: line, Msg: "the Ntry's Amt is in another currency than the statement's account (Acct)"}
	}
	if e.BookgDt.empty() {
		return Line{}, false, &Error{Line: line, Msg: "the booked Ntry has no booking date (BookgDt)"}
	}
	var ok bool
	if l.Date, ok = e.BookgDt.date(); !ok {
		return Line{}, false, &Error{Line: line, Msg: "the Ntry's BookgDt is not a date (YYYY-MM-DD)"}
	}
	if !e.ValDt.empty() {
		if l.ValueDate, ok = e.ValDt.date(); !ok {
			return Line{}, false, &Error{Line: line, Msg: "the Ntry's ValDt is not a date (YYYY-MM-DD)"}
		}
	}
	switch strings.TrimSpace(e.RvslInd) {
	case "true", "1":
		l.Reversal = true
	}
	var txs []camtTx
	for _, nd := range e.NtryDtls {
		txs = append(txs, nd.TxDtls...)
	}
	l.BankID = strings.TrimSpace(e.AcctSvcrRef)
	if l.BankID == "" && len(txs) == 1 {
		l.BankID = strings.TrimSpace(txs[0].Refs.AcctSvcrRef)
	}
	debit := l.Amount < 0
	var names, accounts, remits, both distinct
	for _, tx := range txs {
		name, acct := camtCounterparty(tx, debit)
		remit := camtRemittance(tx)
		names.add(name)
		accounts.add(acct)
		remits.add(remit)
		both.add(oneSpaced(name + " " + remit))
	}
	switch {
	case len(names.list) == 1:
		l.Payee = names.list[0]
		l.Description = strings.Join(remits.list, "; ")
	case len(names.list) > 1:
		// Several counterparties: none is the payee, each is named with what it paid for.
		l.Description = strings.Join(both.list, "; ")
	default:
		l.Description = strings.Join(remits.list, "; ")
	}
	if len(accounts.list) == 1 {
		l.Counterparty = accounts.list[0]
	}
	if l.Description == "" {
		l.Description = oneSpaced(e.AddtlNtryInf)
	}
	return l, true, nil
}

// camtCounterparty is the other side of a transaction: the creditor of money out, the debtor
// of money in; the one the file names when it names only one.
func camtCounterparty(tx camtTx, debit bool) (name, account string) {
	p := tx.RltdPties
	first, firstAcct, second, secondAcct := p.Dbtr, p.DbtrAcct, p.Cdtr, p.CdtrAcct
	if debit {
		first, firstAcct, second, secondAcct = p.Cdtr, p.CdtrAcct, p.Dbtr, p.DbtrAcct
	}
	name, account = first.name(), firstAcct.ID.String()
	if name == "" && account == "" {
		name, account = second.name(), secondAcct.ID.String()
	}
	return name, account
}

// camtRemittance is what a transaction says it is for: its unstructured remittance lines, the
// references of its structured ones, or else its additional information.
func camtRemittance(tx camtTx) string {
	var parts distinct
	for _, u := range tx.RmtInf.Ustrd {
		parts.add(oneSpaced(u))
	}
	for _, s := range tx.RmtInf.Strd {
		for _, r := range s.RfrdDocInf {
			parts.add(oneSpaced(r.Nb))
		}
		parts.add(oneSpaced(s.CdtrRefInf.Ref))
		for _, a := range s.AddtlRmtInf {
			parts.add(oneSpaced(a))
		}
	}
	if len(parts.list) == 0 {
		return oneSpaced(tx.AddtlTxInf)
	}
	return strings.Join(parts.list, " ")
}

// distinct gathers strings in the order first seen, each once, leaving out empty ones. Most
// entries have one detail, so a few are compared in the list; a batch may carry thousands, so
// beyond distinctInList what it has seen is kept in a set.
type distinct struct {
	list []string
	seen map[string]bool
}

const distinctInList = 16

func (d *distinct) add(s string) {
	if s == "" {
		return
	}
	if d.seen != nil {
		if d.seen[s] {
			return
		}
		d.seen[s] = true
	} else {
		for _, x := range d.list {
			if x == s {
				return
			}
		}
		if len(d.list) == distinctInList {
			d.seen = make(map[string]bool, 2*distinctInList)
			for _, x := range d.list {
				d.seen[x] = true
			}
			d.seen[s] = true
		}
	}
	d.list = append(d.list, s)
}
