// Package statement reads the files banks give their customers — CSV exports, OFX, CAMT.053 and
// MT940 — into statements of lines that avenir can match against a YNAB account and import.
// It knows nothing of YNAB: amounts are milliunits because that is exact and what the caller
// needs, dates are the bank's booking dates as civil dates.
//
// A parser never quotes the file it reads in an error: an error names a line number and, for a
// CSV, a column name, so a path that is not a statement shows nothing of itself to whoever reads
// the error (an AI model, in avenir).
package statement

import (
	"fmt"
)

// Format is a statement file format.
type Format string

// The formats Parse reads.
const (
	FormatAuto  Format = "auto" // told by content, never by a file's name
	FormatCSV   Format = "csv"
	FormatOFX   Format = "ofx"     // OFX 1.x (SGML) and 2.x (XML), QFX
	FormatCAMT  Format = "camt053" // ISO 20022 camt.053.001.02 to .001.08
	FormatMT940 Format = "mt940"
)

// Statement is one account's statement for a period. A file may hold several (CAMT.053 and
// MT940 files often do; an OFX file may hold one per account).
type Statement struct {
	Format   Format
	Account  string // the account's number as the file gives it (an IBAN where there is one), "" if none
	Currency string // ISO 4217 code as the file gives it, "" if the file names none
	Opening  *Balance
	Closing  *Balance
	Lines    []Line // in the file's order
}

// Balance is a booked balance the file states.
type Balance struct {
	Date   string // YYYY-MM-DD
	Amount int64  // milliunits
}

// Line is one booked transaction of a statement.
type Line struct {
	Date      string // booking date, YYYY-MM-DD: the transaction's date in YNAB
	ValueDate string // YYYY-MM-DD, "" if the file gives none
	// Amount is signed milliunits: negative is money out of the account.
	Amount int64
	// Decimals is how many decimal digits the file wrote for the amount (2 for "12,30", 0 for
	// "9,"): the caller refuses a line written with more digits than its currency has.
	Decimals int
	// Payee is the counterparty's name as the bank gives it, "" if it gives none.
	Payee string
	// Description is the rest of what the bank says of the line (remittance information, the
	// :86: text, a CSV's description columns), single-spaced, without the payee's name repeated
	// where the format keeps it apart.
	Description string
	// Counterparty is the other side's account number (IBAN where given), "" if none.
	Counterparty string
	// BankID is the bank's own id of the line where the format has one (OFX FITID, CAMT
	// AcctSvcrRef, MT940's bank reference), "" if none. It identifies the line to the bank; it
	// is not YNAB's import id.
	BankID string
	// Reversal says the bank booked this line as the reversal of an earlier one (CAMT RvslInd,
	// MT940's RC/RD marks). Amount already has the sign the booking gives it.
	Reversal bool
	// Source is the line's position in the file (1-based line number of where it starts), for
	// messages that must not quote the file.
	Source int
}

// CSVOptions overrides what CSV detection cannot tell. Every field is optional; a column is a
// header's name (case-insensitive) or a 1-based column number written as digits.
type CSVOptions struct {
	Delimiter  string // one character: "," ";" "\t" "|"
	Decimal    string // "." or ","
	DateFormat string // of YYYY, MM, DD and separators: "DD-MM-YYYY", "YYYYMMDD", "MM/DD/YYYY"
	Date       string // the booking date's column
	Amount     string // a signed amount, or an unsigned one with DebitCredit
	Debit      string // money out, as a positive (or signed) amount; with Credit instead of Amount
	Credit     string // money in
	// DebitCredit is the column saying which way an unsigned Amount goes (ING's "Af Bij",
	// Knab's "CreditDebet": Af/Bij, D/C, Debit/Credit).
	DebitCredit string
	Payee       string
	Memo        string
}

// Error is a statement that cannot be read. Its text names where (line, column) and what is
// wrong, never what the file holds there.
type Error struct {
	Line   int    // 1-based line of the file, 0 when the problem is the file as a whole
	Column string // a CSV column's header name or number, "" otherwise
	Msg    string // what is wrong, in words for a person: "is not a date (expected DD-MM-YYYY)"
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column != "":
		return fmt.Sprintf("line %d, column %s: %s", e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}
