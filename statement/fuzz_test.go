package statement

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The fuzz targets feed Parse anything; it must never panic, every error must be an *Error,
// and whatever it returns must keep the contract: at least one statement, valid dates, lines
// numbered within the file. Run one for 30 s with
//
//	go test ./statement/ -run '^$' -fuzz '^FuzzParseMT940$' -fuzztime 30s -fuzzminimizetime 2s
//
// The seeds are the testdata files of the format (and a few lines written here). The fuzzer
// spends up to a minute minimising each new input it finds, during which it reports no
// executions; -fuzzminimizetime 2s keeps it searching.

func FuzzParse(f *testing.F) {
	addSeeds(f, "*")
	f.Add([]byte(""))
	f.Add([]byte{0xFF, 0xFE, ':', 0, '2', 0, '0', 0, ':', 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, FormatAuto)
	})
}

func FuzzParseOFX(f *testing.F) {
	addSeeds(f, "ofx")
	f.Add([]byte("<OFX><STMTRS><BANKTRANLIST><STMTTRN><DTPOSTED>20230101<TRNAMT>1</STMTTRN></BANKTRANLIST></STMTRS></OFX>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, FormatOFX)
	})
}

func FuzzParseCAMT(f *testing.F) {
	addSeeds(f, "camt")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, FormatCAMT)
	})
}

func FuzzParseMT940(f *testing.F) {
	addSeeds(f, "mt940")
	f.Add([]byte(":20:X\n:60F:C230101EUR1,\n:61:2312310102RCR1,5NTRFX//Y\nZ\n:86:/NAME/A/REMI/B\n:62M:D230101EUR0,5\n:20:X\n:60M:D230101EUR0,5\n:62F:C230101EUR0,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, FormatMT940)
	})
}

// addSeeds adds the testdata files of one format's folder ("*" for every folder's).
func addSeeds(f *testing.F, folder string) {
	files, err := filepath.Glob(filepath.Join("testdata", folder, "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || strings.HasPrefix(fi.Name(), ".") {
			continue // a folder (testdata/fuzz/…) or .gitattributes, not a statement
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// fuzzHang is how long one input may take before it counts as a hang: go's fuzzer times no
// input out, so without it an endless loop would only stall the run.
const fuzzHang = 10 * time.Second

func checkParse(t *testing.T, data []byte, format Format) {
	timer := time.AfterFunc(fuzzHang, func() {
		panic(fmt.Sprintf("Parse of %d bytes (%q) did not return in %v", len(data), data, fuzzHang))
	})
	defer timer.Stop()
	sts, err := Parse(data, format, CSVOptions{})
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is a %T, not an *Error", err, err)
		}
		if e.Line < 0 || e.Msg == "" {
			t.Fatalf("error %+v", e)
		}
		return
	}
	if len(sts) == 0 {
		t.Fatal("no statement and no error")
	}
	text, err := decodeText(data)
	if err != nil {
		t.Fatalf("Parse read what decodeText refuses: %v", err)
	}
	lines := bytes.Count(text, []byte("\n")) + 1
	checkDate := func(what, d string, optional bool) {
		if d == "" && optional {
			return
		}
		if got, ok := isoDatePrefix(d); !ok || got != d {
			t.Fatalf("%s %q is not a date YYYY-MM-DD", what, d)
		}
	}
	for _, st := range sts {
		for _, b := range []*Balance{st.Opening, st.Closing} {
			if b != nil {
				checkDate("balance date", b.Date, false)
			}
		}
		for _, l := range st.Lines {
			checkDate("line date", l.Date, false)
			checkDate("value date", l.ValueDate, true)
			if l.Source < 1 || l.Source > lines || l.Decimals < 0 {
				t.Fatalf("line %+v", l)
			}
		}
	}
}
