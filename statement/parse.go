package statement

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"time"
	"unicode"
)

// formatsRead ends every error that says a file is not a statement, so that whoever reads it
// learns what would have worked.
const formatsRead = "avenir reads CSV, OFX (1.x SGML and 2.x XML, QFX), CAMT.053 and MT940 statements"

// Parse reads a statement file of format f (FormatAuto: told by content, never by name). The
// bytes may be UTF-8 (with or without a byte-order mark), UTF-16 (with a byte-order mark, or
// without one when the text starts with an ASCII character), or Windows-1252/Latin-1; a parser
// sees UTF-8 with "\n" line ends. o matters only to a CSV.
//
// Every error is an *Error, which names a line (and for a CSV a column, for XML an element) but
// never quotes what the file holds.
func Parse(data []byte, f Format, o CSVOptions) ([]Statement, error) {
	text, err := decodeText(data)
	if err != nil {
		return nil, err
	}
	if isBlank(text) {
		return nil, errEmpty()
	}
	switch f {
	case FormatAuto, "":
		if f, err = detect(text); err != nil {
			return nil, err
		}
	case FormatCSV, FormatOFX, FormatCAMT, FormatMT940:
		// A file that reads plainly as another format than the one asked for is a wrong
		// choice of format, better said so than as the parser's failure to read it. A file
		// detection takes for CSV, its last guess, goes to the parser asked for.
		if d, err := detect(text); err == nil && d != f && d != FormatCSV {
			return nil, &Error{Msg: "the file is " + formatName(d) + ", not " + formatName(f) + ": give format auto or " + string(d)}
		}
	default:
		return nil, &Error{Msg: "format must be one of auto, csv, ofx, camt053 or mt940"}
	}
	switch f {
	case FormatOFX:
		return parseOFX(text)
	case FormatCAMT:
		return parseCAMT(text)
	case FormatMT940:
		return parseMT940(text)
	default:
		return parseCSV(text, o)
	}
}

// Detect tells a file's format by its content, never by its name: OFX by its header or its
// <OFX> element, CAMT.053 by its BkToCstmrStmt element, MT940 by its :20: and balance fields,
// CSV by what the CSV reader recognises. An empty file, a binary one and anything else is an
// *Error that names the formats avenir reads.
func Detect(data []byte) (Format, error) {
	text, err := decodeText(data)
	if err != nil {
		return "", err
	}
	if isBlank(text) {
		return "", errEmpty()
	}
	return detect(text)
}

// formatName is a format as people write it.
func formatName(f Format) string {
	switch f {
	case FormatCSV:
		return "CSV"
	case FormatOFX:
		return "OFX"
	case FormatCAMT:
		return "CAMT.053"
	case FormatMT940:
		return "MT940"
	}
	return string(f)
}

func errEmpty() error {
	return &Error{Msg: "the file is empty: " + formatsRead}
}

func isBlank(text []byte) bool {
	return len(bytes.TrimSpace(text)) == 0
}

// detect tells the format of decoded, non-empty text.
func detect(text []byte) (Format, error) {
	head := bytes.TrimLeft(text, " \t\n")
	if hasPrefixFold(head, "OFXHEADER") {
		return FormatOFX, nil
	}
	if len(head) > 0 && head[0] == '<' {
		return detectXML(head)
	}
	if looksMT940(text) {
		return FormatMT940, nil
	}
	if looksCSV(text) {
		return FormatCSV, nil
	}
	return "", &Error{Msg: "the file is in no format avenir knows: " + formatsRead}
}

// xmlDetectElements bounds how many elements detectXML reads before it gives up: a statement's
// kind shows in its first two or three.
const xmlDetectElements = 8

// detectXML tells OFX 2.x (its <?OFX?> instruction or <OFX> root) from ISO 20022 documents by
// their first elements (an envelope around a Document is read through), without reading the
// whole file. SGML OFX, which is not XML, is read far
// enough for its <OFX> root too.
func detectXML(head []byte) (Format, error) {
	d := xml.NewDecoder(bytes.NewReader(head))
	d.Strict = false
	d.CharsetReader = identityCharset
	for n := 0; n < xmlDetectElements; {
		tok, err := d.RawToken()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.ProcInst:
			if strings.EqualFold(t.Target, "OFX") {
				return FormatOFX, nil
			}
		case xml.StartElement:
			n++
			switch t.Name.Local {
			case "OFX", "ofx":
				return FormatOFX, nil
			case "BkToCstmrStmt":
				return FormatCAMT, nil
			case "BkToCstmrAcctRpt":
				return "", &Error{Msg: "the file is an ISO 20022 account report (camt.052), not a statement: " + formatsRead + " (for ISO 20022, camt.053)"}
			case "BkToCstmrDbtCdtNtfctn":
				return "", &Error{Msg: "the file is an ISO 20022 debit/credit notification (camt.054), not a statement: " + formatsRead + " (for ISO 20022, camt.053)"}
			}
			// Document, or a wrapper around it: read on.
		}
	}
	return "", &Error{Msg: "the file is XML but neither OFX nor CAMT.053: " + formatsRead}
}

// identityCharset is the xml.Decoder's CharsetReader: decodeText has made the text UTF-8
// already, whatever its XML declaration says (ISO-8859-1, ASCII, windows-1252).
func identityCharset(_ string, r io.Reader) (io.Reader, error) { return r, nil }

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.EqualFold(string(b[:len(prefix)]), prefix)
}

// exactDecimal parses an amount as a bank writes it — an optional sign, digits, and at most one
// decimal separator sep followed by zero or more digits ("12,30", "9,", "-80", "0.5",
// "000000000025,00") — into exact milliunits and the number of decimals written. More than 3
// decimals are refused unless the extra ones are zeros (milliunits could not hold the amount
// exactly), and so are amounts of 10^15 units or more. problem is "" for an amount, else what is
// wrong with it in words that quote nothing ("is not an amount", "has more than 3 decimals");
// the caller says which field.
func exactDecimal(s string, sep byte) (milli int64, decimals int, problem string) {
	const notAmount = "is not an amount"
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, string(sep))
	if intPart == "" && frac == "" {
		return 0, 0, notAmount
	}
	if !digitsOnly(intPart) || !digitsOnly(frac) {
		return 0, 0, notAmount
	}
	intPart = strings.TrimLeft(intPart, "0")
	if len(intPart) > 15 {
		return 0, 0, "is too large an amount"
	}
	for i := 0; i < len(intPart); i++ {
		milli = milli*10 + int64(intPart[i]-'0')
	}
	milli *= 1000
	decimals = len(frac)
	scale := int64(100)
	for i := 0; i < len(frac); i++ {
		d := int64(frac[i] - '0')
		if i >= 3 {
			if d != 0 {
				return 0, 0, "has more than 3 decimals, more than milliunits hold"
			}
			continue
		}
		milli += d * scale
		scale /= 10
	}
	if neg {
		milli = -milli
	}
	return milli, decimals, ""
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// civilDate returns y-m-d as YYYY-MM-DD when that day exists (no 31 April, no 29 February
// outside leap years).
func civilDate(y, m, d int) (string, bool) {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 {
		return "", false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d || int(t.Month()) != m {
		return "", false
	}
	return t.Format(time.DateOnly), true
}

// digitsInt reads a string of ASCII digits; ok is false for anything else or an empty string.
func digitsInt(s string) (int, bool) {
	if s == "" || len(s) > 9 || !digitsOnly(s) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// isoDatePrefix reads YYYY-MM-DD at the start of s (an ISO 8601 date or date-time, whatever follows:
// "2015-12-31", "2015-12-31T02:00:31", "2014-01-05+01:00"); the date is as written, in the
// zone the bank wrote it in, never converted.
func isoDatePrefix(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return "", false
	}
	if len(s) > 10 && !strings.ContainsRune("T Z+-", rune(s[10])) {
		return "", false
	}
	y, ok1 := digitsInt(s[0:4])
	m, ok2 := digitsInt(s[5:7])
	d, ok3 := digitsInt(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	return civilDate(y, m, d)
}

// oneSpaced trims s and collapses every run of white space in it to one space; control
// characters (a tab, a stray C1 byte of Windows-1252) count as white space.
func oneSpaced(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}
