package statement

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestDetect(t *testing.T) {
	mt940 := readFile(t, filepath.Join("testdata", "mt940", "ing-blocks.sta"))
	tests := []struct {
		name string
		data []byte
		want Format
		msg  string // of the error, "" for none
	}{
		{"OFX 1.x header", readFile(t, filepath.Join("testdata", "ofx", "sgml-two-accounts.ofx")), FormatOFX, ""},
		{"OFX 2.x XML", readFile(t, filepath.Join("testdata", "ofx", "xml-creditcard.qfx")), FormatOFX, ""},
		{"SGML without header", readFile(t, filepath.Join("testdata", "ofx", "sgml-lenient.ofx")), FormatOFX, ""},
		{"OFX after blank lines", []byte("\n\n  OFXHEADER:100\n<OFX></OFX>"), FormatOFX, ""},
		{"an <?OFX?> instruction first", []byte(`<?OFX OFXHEADER="200"?><X/>`), FormatOFX, ""},
		{"CAMT.053", readFile(t, filepath.Join("testdata", "camt", "batch-v08.xml")), FormatCAMT, ""},
		{"CAMT.053 without Document", []byte(`<BkToCstmrStmt></BkToCstmrStmt>`), FormatCAMT, ""},
		{"MT940", mt940, FormatMT940, ""},
		{"MT940 in UTF-16 LE", utf16Bytes(string(mt940), false, true), FormatMT940, ""},
		{"MT940 in UTF-16 BE", utf16Bytes(string(mt940), true, true), FormatMT940, ""},
		{"MT940 after a UTF-8 BOM", append([]byte{0xEF, 0xBB, 0xBF}, mt940...), FormatMT940, ""},
		{"CSV", []byte("Datum,Bedrag,Omschrijving\n2023-01-01,1.00,Test\n"), FormatCSV, ""},
		{"empty", nil, "", "the file is empty: avenir reads CSV, OFX"},
		{"blank", []byte(" \n\t\r\n"), "", "the file is empty"},
		{"a UTF-8 BOM alone", []byte{0xEF, 0xBB, 0xBF}, "", "the file is empty"},
		{"binary", []byte("%PDF-1.7\n\x00\x01\x02"), "", "the file is binary (it holds NUL bytes), not a statement: avenir reads CSV, OFX"},
		{"UTF-16 of odd length", []byte{0xFF, 0xFE, 'a', 0, 'b'}, "", "UTF-16 text of an odd number of bytes"},
		{"other XML", []byte(`<?xml version="1.0"?><html><body/></html>`), "", "the file is XML but neither OFX nor CAMT.053: avenir reads CSV, OFX"},
		{"a Document of another kind", []byte(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>`), "", "neither OFX nor CAMT.053"},
		{"camt.052", []byte(`<Document><BkToCstmrAcctRpt/></Document>`), "", "account report (camt.052)"},
		{"camt.054", []byte(`<Document><BkToCstmrDbtCdtNtfctn/></Document>`), "", "notification (camt.054)"},
		{"XML cut short", []byte(`<?xml version="1.0"?><Docu`), "", "the file is XML but neither OFX nor CAMT.053"},
		{"CAMT.053 in an envelope", []byte(`<Envelope><Body><Document><BkToCstmrStmt/></Document></Body></Envelope>`), FormatCAMT, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Detect(tt.data)
			if tt.msg != "" {
				wantError(t, err, 0, tt.msg)
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Detect = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseFormats(t *testing.T) {
	ofx := readFile(t, filepath.Join("testdata", "ofx", "xml-creditcard.qfx"))
	mt940 := readFile(t, filepath.Join("testdata", "mt940", "german.sta"))
	tests := []struct {
		name   string
		data   []byte
		format Format
		msg    string
	}{
		{"an unknown format name", mt940, "qif", "format must be one of auto, csv, ofx, camt053 or mt940"},
		{"OFX read as MT940", ofx, FormatMT940, "the file is OFX, not MT940: give format auto or ofx"},
		{"MT940 read as CAMT.053", mt940, FormatCAMT, "the file is MT940, not CAMT.053: give format auto or mt940"},
		{"MT940 read as CSV", mt940, FormatCSV, "the file is MT940, not CSV: give format auto or mt940"},
		{"empty, with a format", nil, FormatOFX, "the file is empty"},
		{"binary, with a format", []byte{'<', 0, 0, 0}, FormatCAMT, "binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.data, tt.format, CSVOptions{})
			wantError(t, err, 0, tt.msg)
		})
	}
	// The format asked for is read as asked: the same file, auto and explicit.
	for _, f := range []Format{FormatAuto, "", FormatMT940} {
		got, err := Parse(mt940, f, CSVOptions{})
		if err != nil || len(got) != 1 || len(got[0].Lines) != 1 {
			t.Errorf("Parse(german.sta, %q) = %d statements, %v", f, len(got), err)
		}
	}
}

// TestParseEncodings reads one MT940 statement written in each encoding banks use.
func TestParseEncodings(t *testing.T) {
	text := ":20:X\n:25:NL00TEST0123456789\n:28C:1\n:60F:C230101EUR10,00\n:61:230101D1,00NMSCNONREF\n:86:Crème brûlée – één € voor Café Zoë\n:62F:C230101EUR9,00\n"
	const want = "Crème brûlée – één € voor Café Zoë"
	cp1252, ok := toWindows1252(text)
	if !ok {
		t.Fatal("the text has a character Windows-1252 lacks")
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"UTF-8", []byte(text)},
		{"UTF-8 with BOM and CR LF", append([]byte{0xEF, 0xBB, 0xBF}, strings.ReplaceAll(text, "\n", "\r\n")...)},
		{"Windows-1252", cp1252},
		{"Windows-1252 with CR", bytes.ReplaceAll(cp1252, []byte("\n"), []byte("\r"))},
		{"UTF-16 LE with BOM", utf16Bytes(text, false, true)},
		{"UTF-16 BE with BOM", utf16Bytes(text, true, true)},
		{"UTF-16 LE without BOM", utf16Bytes(text, false, false)},
		{"UTF-16 BE without BOM", utf16Bytes(text, true, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.data, FormatAuto, CSVOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || len(got[0].Lines) != 1 {
				t.Fatalf("got %+v", got)
			}
			if l := got[0].Lines[0]; l.Description != want || l.Source != 5 {
				t.Errorf("got description %q at line %d, want %q at line 5", l.Description, l.Source, want)
			}
		})
	}
}

func utf16Bytes(s string, be, bom bool) []byte {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if be {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

// toWindows1252 encodes s with the decoder's own table (TestDecodeText checks that table
// against the code page).
func toWindows1252(s string) ([]byte, bool) {
	var out []byte
	for _, r := range s {
		switch {
		case r < 0x80 || r >= 0xA0 && r <= 0xFF:
			out = append(out, byte(r))
		default:
			i := slices.Index(cp1252[:], r)
			if i < 0 {
				return nil, false
			}
			out = append(out, byte(0x80+i))
		}
	}
	return out, true
}

func TestExactDecimal(t *testing.T) {
	tests := []struct {
		in       string
		sep      byte
		milli    int64
		decimals int
		problem  string
	}{
		{"12,30", ',', 12300, 2, ""},
		{"9,", ',', 9000, 0, ""},
		{"11,8", ',', 11800, 1, ""},
		{"000000000025,00", ',', 25000, 2, ""},
		{"-80", '.', -80000, 0, ""},
		{"+1250.5", '.', 1250500, 1, ""},
		{"0.001", '.', 1, 3, ""},
		{".5", '.', 500, 1, ""},
		{"1.23400", '.', 1234, 5, ""},
		{"999999999999999.999", '.', 999999999999999999, 3, ""},
		{"1.2345", '.', 0, 0, "has more than 3 decimals, more than milliunits hold"},
		{"1000000000000000", '.', 0, 0, "is too large an amount"},
		{"", '.', 0, 0, "is not an amount"},
		{"-", '.', 0, 0, "is not an amount"},
		{".", '.', 0, 0, "is not an amount"},
		{"1,5", '.', 0, 0, "is not an amount"},
		{"1.2.3", '.', 0, 0, "is not an amount"},
		{"1 000", '.', 0, 0, "is not an amount"},
		{"--1", '.', 0, 0, "is not an amount"},
		{"1e3", '.', 0, 0, "is not an amount"},
	}
	for _, tt := range tests {
		milli, dec, problem := exactDecimal(tt.in, tt.sep)
		if milli != tt.milli || dec != tt.decimals || problem != tt.problem {
			t.Errorf("exactDecimal(%q, %q) = %d, %d, %q; want %d, %d, %q", tt.in, tt.sep, milli, dec, problem, tt.milli, tt.decimals, tt.problem)
		}
	}
}

func TestDates(t *testing.T) {
	valid := []struct {
		y, m, d int
		want    string
	}{
		{2024, 2, 29, "2024-02-29"},
		{2023, 2, 29, ""},
		{2000, 2, 29, "2000-02-29"},
		{1900, 2, 29, ""},
		{2023, 4, 31, ""},
		{2023, 12, 31, "2023-12-31"},
		{2023, 0, 1, ""},
		{2023, 13, 1, ""},
		{2023, 1, 0, ""},
		{0, 1, 1, ""},
	}
	for _, tt := range valid {
		got, ok := civilDate(tt.y, tt.m, tt.d)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("civilDate(%d, %d, %d) = %q, %v; want %q", tt.y, tt.m, tt.d, got, ok, tt.want)
		}
	}
	iso := []struct{ in, want string }{
		{"2015-12-31", "2015-12-31"},
		{" 2015-12-31T02:00:31 ", "2015-12-31"},
		{"2023-01-25T00:00:00+01:00", "2023-01-25"},
		{"2014-01-05+01:00", "2014-01-05"},
		{"2014-01-05Z", "2014-01-05"},
		{"2023-02-30", ""},
		{"2023-1-05", ""},
		{"20230105", ""},
		{"2023-01-05X", ""},
		{"", ""},
	}
	for _, tt := range iso {
		got, ok := isoDatePrefix(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("isoDatePrefix(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	yy := []struct{ in, want string }{
		{"230101", "2023-01-01"},
		{"790101", "2079-01-01"},
		{"800101", "1980-01-01"},
		{"991231", "1999-12-31"},
		{"230230", ""},
		{"2301", ""},
		{"23O101", ""},
	}
	for _, tt := range yy {
		got, ok := mt940Date(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("mt940Date(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}
