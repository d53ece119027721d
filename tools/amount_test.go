package tools

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
)

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in     string
		digits int
		want   int64
	}{
		{"150", 2, 150_000},
		{"150.5", 2, 150_500},
		{"150.50", 2, 150_500},
		{"-12.34", 2, -12_340},
		{"+12.34", 2, 12_340},
		{"  7.10\t", 2, 7_100},
		{"-0.5", 2, -500},
		{"0", 2, 0},
		{"-0", 2, 0},
		{"0007.5", 2, 7_500},
		// A bare point on either side is unambiguous, so it is accepted.
		{".5", 2, 500},
		{"-.5", 2, -500},
		{"5.", 2, 5_000},
		// Trailing zeros past the currency's digits do not change the value.
		{"12.340", 2, 12_340},
		{"1200.000", 0, 1_200_000},
		// JPY-like currencies have no decimals.
		{"1200", 0, 1_200_000},
		{"-86", 0, -86_000},
		// JOD-like currencies have three.
		{"-395.032", 3, -395_032},
		{"0.001", 3, 1},
		// Up to the bound of exact JavaScript numbers, 2^53-1 milliunits, either way.
		{"9007199254740.991", 3, 9_007_199_254_740_991},
		{"-9007199254740.991", 3, -9_007_199_254_740_991},
		{"9007199254740.99", 2, 9_007_199_254_740_990},
		{"9007199254740", 0, 9_007_199_254_740_000},
	}
	for _, tt := range tests {
		got, err := ParseAmount(tt.in, tt.digits)
		if err != nil {
			t.Errorf("ParseAmount(%q, %d): %v", tt.in, tt.digits, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseAmount(%q, %d) = %d, want %d", tt.in, tt.digits, got, tt.want)
		}
	}
}

func TestParseAmountRefuses(t *testing.T) {
	tests := []struct {
		in     string
		digits int
		want   []string // all must appear in the message
	}{
		{"12.345", 2, []string{`"12.345"`, "more decimals", "(2)", "example 12.35"}},
		{"-12.345", 2, []string{"example -12.35"}},
		{"12.344", 2, []string{"example 12.34"}},
		{"0.0001", 3, []string{"(3)", "example 0.000"}},
		{"12.5", 0, []string{`"12.5"`, "none", "whole amount", "example 13"}},
		{"-12.4", 0, []string{"example -12"}},
		{"1e3", 2, []string{`"1e3"`, "exponent"}},
		{"1E+3", 2, []string{"exponent"}},
		{"12,50", 2, []string{`"12,50"`, "'.'"}},
		{"1,234.50", 2, []string{"thousands separators"}},
		{"", 2, []string{"no amount"}},
		{"   ", 2, []string{"no amount"}},
		{"1.2.3", 2, []string{`"1.2.3"`, "plain decimal"}},
		{"+-1", 2, []string{`"+-1"`}},
		{"--1", 2, []string{`"--1"`}},
		{"-", 2, []string{`"-"`}},
		{".", 2, []string{`"."`}},
		{"abc", 2, []string{`"abc"`}},
		{"1 000", 2, []string{`"1 000"`}},
		{"0x10", 2, []string{`"0x10"`}},
		{"Inf", 2, []string{`"Inf"`}},
		{"NaN", 2, []string{`"NaN"`}},
		{"١٢", 2, []string{"not an amount"}},
		{"€12", 2, []string{`"€12"`}},
		{"9007199254740.992", 3, []string{"too large", "between -9007199254740.991 and 9007199254740.991"}},
		{"-9007199254740.992", 3, []string{"too large"}},
		{"9007199254741", 0, []string{"too large", "between -9007199254740 and 9007199254740"}},
		{"9007199254740.991", 2, []string{"more decimals"}},
		{"9223372036854775.80", 2, []string{"too large", "between -9007199254740.99 and 9007199254740.99"}},
		{"9223372036854775.808", 3, []string{"too large"}},
		{"99999999999999999999999999", 2, []string{"too large"}},
		{"12", 4, []string{"4 decimal digits", "0 to 3"}},
		{"12", -1, []string{"-1 decimal digits"}},
	}
	for _, tt := range tests {
		got, err := ParseAmount(tt.in, tt.digits)
		if err == nil {
			t.Errorf("ParseAmount(%q, %d) = %d, want an error", tt.in, tt.digits, got)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseAmount(%q, %d) error %q does not mention %q", tt.in, tt.digits, err, w)
			}
		}
	}
}

func TestParseAmountShortensLongInput(t *testing.T) {
	_, err := ParseAmount(strings.Repeat("x", 10_000), 2)
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("error for a 10000-character argument = %q, want a short message", err)
	}
}

// args stands in for a tool's input struct.
type args struct {
	Amount Amount `json:"amount"`
}

func TestAmountUnmarshalJSON(t *testing.T) {
	tests := []struct {
		json  string
		text  string // as String returns it
		milli int64  // at 2 digits
	}{
		{`{"amount": 150}`, "150", 150_000},
		{`{"amount": 150.5}`, "150.5", 150_500},
		{`{"amount": -12.34}`, "-12.34", -12_340},
		{`{"amount": -0}`, "-0", 0},
		{`{"amount": "150.50"}`, "150.50", 150_500},
		{`{"amount": " -12.34 "}`, "-12.34", -12_340},
		{`{"amount": "+5"}`, "+5", 5_000},
		{`{"amount": "\u0031\u0032"}`, "12", 12_000},
		{`{"amount": 1234567890123.45}`, "1234567890123.45", 1_234_567_890_123_450},
	}
	for _, tt := range tests {
		var got args
		if err := json.Unmarshal([]byte(tt.json), &got); err != nil {
			t.Errorf("unmarshal %s: %v", tt.json, err)
			continue
		}
		if got.Amount.IsZero() || got.Amount.String() != tt.text {
			t.Errorf("unmarshal %s: text %q (zero %v), want %q", tt.json, got.Amount, got.Amount.IsZero(), tt.text)
		}
		milli, err := got.Amount.Milliunits(2)
		if err != nil || milli != tt.milli {
			t.Errorf("unmarshal %s: Milliunits(2) = %d, %v; want %d", tt.json, milli, err, tt.milli)
		}
	}
}

func TestAmountUnmarshalJSONNoValue(t *testing.T) {
	for _, in := range []string{`{}`, `{"amount": null}`} {
		var got args
		if err := json.Unmarshal([]byte(in), &got); err != nil {
			t.Fatalf("unmarshal %s: %v", in, err)
		}
		if !got.Amount.IsZero() {
			t.Errorf("unmarshal %s: IsZero() = false for %q, want true", in, got.Amount)
		}
		if _, err := got.Amount.Milliunits(2); err == nil || !strings.Contains(err.Error(), "no amount") {
			t.Errorf("unmarshal %s: Milliunits error = %v, want one saying no amount was given", in, err)
		}
	}
	var zero args
	if err := json.Unmarshal([]byte(`{"amount": 0}`), &zero); err != nil || zero.Amount.IsZero() {
		t.Errorf("an explicit 0 must be a value: IsZero() = %v, err %v", zero.Amount.IsZero(), err)
	}
}

func TestAmountUnmarshalJSONRefuses(t *testing.T) {
	// Values that are neither a number nor a string are refused when the arguments are read;
	// text that is not a decimal when it is converted, where the caller names the argument.
	tests := []struct {
		json string
		want string
		late bool // refused by Milliunits rather than by decoding
	}{
		{`{"amount": true}`, `"true"`, false},
		{`{"amount": {}}`, `"{}"`, false},
		{`{"amount": []}`, `"[]"`, false},
		{`{"amount": 1e3}`, "exponent", true},
		{`{"amount": 1E+3}`, "exponent", true},
		{`{"amount": "12,50"}`, `"12,50"`, true},
		{`{"amount": ""}`, "no amount", true},
		{`{"amount": "1.2.3"}`, `"1.2.3"`, true},
		{`{"amount": "+-1"}`, `"+-1"`, true},
		{`{"amount": "12 EUR"}`, `"12 EUR"`, true},
	}
	for _, tt := range tests {
		var got args
		err := json.Unmarshal([]byte(tt.json), &got)
		if tt.late {
			if err != nil {
				t.Errorf("unmarshal %s: %v, want the text kept for Milliunits to refuse", tt.json, err)
				continue
			}
			if got.Amount.IsZero() {
				t.Errorf("unmarshal %s: no value, want the text kept", tt.json)
			}
			_, err = got.Amount.Milliunits(2)
		}
		if err == nil {
			t.Errorf("%s = %q, want an error", tt.json, got.Amount)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q does not mention %q", tt.json, err, tt.want)
		}
	}
}

func TestAmountMarshalJSON(t *testing.T) {
	var in args
	if err := json.Unmarshal([]byte(`{"amount": "150.50"}`), &in); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"amount":"150.50"}` {
		t.Fatalf("marshal = %s, %v; want the exact text as a string", b, err)
	}
	var back args
	if err := json.Unmarshal(b, &back); err != nil || back != in {
		t.Errorf("round trip = %q, %v; want %q", back.Amount, err, in.Amount)
	}

	b, err = json.Marshal(args{})
	if err != nil || string(b) != `{"amount":null}` {
		t.Fatalf("marshal of no value = %s, %v; want null", b, err)
	}
	var none args
	if err := json.Unmarshal(b, &none); err != nil || !none.Amount.IsZero() {
		t.Errorf("null read back = %q, %v; want no value", none.Amount, err)
	}
}

func TestFormatPlain(t *testing.T) {
	tests := []struct {
		milli  int64
		digits int
		want   string
	}{
		{1_200_000, 2, "1200.00"},
		{-12_340, 2, "-12.34"},
		{0, 2, "0.00"},
		{120_500, 2, "120.50"},
		{12_000, 0, "12"},
		{123_456, 3, "123.456"},
		{-395_032, 3, "-395.032"},
		{1_500, 1, "1.5"},
		// Milliunits beyond the digits round half away from zero.
		{12_345, 2, "12.35"},
		{-12_345, 2, "-12.35"},
		{12_344, 2, "12.34"},
		{12_500, 0, "13"},
		{-12_500, 0, "-13"},
		{12_499, 0, "12"},
		{5, 2, "0.01"},
		{-5, 2, "-0.01"},
		// What rounds to zero carries no sign.
		{-4, 2, "0.00"},
		{-499, 0, "0"},
		{math.MaxInt64, 3, "9223372036854775.807"},
		{math.MinInt64, 3, "-9223372036854775.808"},
		{math.MinInt64, 2, "-9223372036854775.81"},
		{math.MaxInt64, 0, "9223372036854776"},
		// Digits outside 0..3 are clamped.
		{12_340, 5, "12.340"},
		{12_340, -1, "12"},
	}
	for _, tt := range tests {
		if got := FormatPlain(tt.milli, tt.digits); got != tt.want {
			t.Errorf("FormatPlain(%d, %d) = %q, want %q", tt.milli, tt.digits, got, tt.want)
		}
	}
}

func TestFormatFlow(t *testing.T) {
	tests := []struct {
		milli  int64
		digits int
		want   string
	}{
		{-86_400, 2, "86.40"},
		{2_500_000, 2, "+2500.00"},
		{0, 2, "0.00"},
		{4, 2, "0.00"},
		{-4, 2, "0.00"},
		{-5_000, 0, "5"},
		{1_500, 3, "+1.500"},
		{math.MinInt64, 3, "9223372036854775.808"},
	}
	for _, tt := range tests {
		if got := FormatFlow(tt.milli, tt.digits); got != tt.want {
			t.Errorf("FormatFlow(%d, %d) = %q, want %q", tt.milli, tt.digits, got, tt.want)
		}
	}
}

func TestFormatCurrency(t *testing.T) {
	eur := &ynab.CurrencyFormat{ISOCode: "EUR", DecimalDigits: 2, DecimalSeparator: ",", GroupSeparator: ".", SymbolFirst: true, CurrencySymbol: "€", DisplaySymbol: true}
	eurLast := &ynab.CurrencyFormat{ISOCode: "EUR", DecimalDigits: 2, DecimalSeparator: ",", GroupSeparator: ".", CurrencySymbol: "€", DisplaySymbol: true}
	eurHidden := &ynab.CurrencyFormat{ISOCode: "EUR", DecimalDigits: 2, DecimalSeparator: ",", GroupSeparator: ".", SymbolFirst: true, CurrencySymbol: "€"}
	usd := &ynab.CurrencyFormat{ISOCode: "USD", DecimalDigits: 2, DecimalSeparator: ".", GroupSeparator: ",", SymbolFirst: true, CurrencySymbol: "$", DisplaySymbol: true}
	jpy := &ynab.CurrencyFormat{ISOCode: "JPY", DecimalDigits: 0, DecimalSeparator: ".", GroupSeparator: ",", SymbolFirst: true, CurrencySymbol: "¥", DisplaySymbol: true}
	jod := &ynab.CurrencyFormat{ISOCode: "JOD", DecimalDigits: 3, DecimalSeparator: ".", GroupSeparator: ",", CurrencySymbol: " JD", DisplaySymbol: true}
	tests := []struct {
		milli int64
		cf    *ynab.CurrencyFormat
		want  string
	}{
		{1_234_560, eur, "€1.234,56"},
		{-12_340, eur, "-€12,34"},
		{0, eur, "€0,00"},
		{-4, eur, "€0,00"},
		{999_990, eur, "€999,99"},
		{1_234_567_890, eur, "€1.234.567,89"},
		{1_234_560, eurLast, "1.234,56€"},
		{-12_340, eurLast, "-12,34€"},
		{1_234_560, eurHidden, "1.234,56"},
		{-1_234_560, usd, "-$1,234.56"},
		{1_234_500, jpy, "¥1,235"},
		{-123_000, jpy, "-¥123"},
		{-1_234_567, jod, "-1,234.567 JD"},
		{1_234_560, nil, "1234.56"},
		{math.MinInt64, usd, "-$9,223,372,036,854,775.81"},
	}
	for _, tt := range tests {
		if got := FormatCurrency(tt.milli, tt.cf); got != tt.want {
			t.Errorf("FormatCurrency(%d, %+v) = %q, want %q", tt.milli, tt.cf, got, tt.want)
		}
	}
}

func TestDigits(t *testing.T) {
	if got := Digits(nil); got != 2 {
		t.Errorf("Digits(nil) = %d, want 2", got)
	}
	if got := Digits(&ynab.CurrencyFormat{DecimalDigits: 0}); got != 0 {
		t.Errorf("Digits(JPY-like) = %d, want 0", got)
	}
	if got := Digits(&ynab.CurrencyFormat{DecimalDigits: 3}); got != 3 {
		t.Errorf("Digits(JOD-like) = %d, want 3", got)
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"150", "150.5", "-12.34", "+7", ".5", "5.", "-0", "12.345", "1e3",
		"12,50", "", "1.2.3", "+-1", "9223372036854775.807", "-9223372036854775.808", " 3.10 ",
		"9007199254740.991", "-9007199254740.992"} {
		for digits := range uint8(4) {
			f.Add(s, digits, int64(12_340))
		}
	}
	f.Add("0", uint8(3), int64(math.MaxInt64))
	f.Add("0", uint8(0), int64(math.MinInt64))
	f.Add("0", uint8(3), int64(MaxMilliunits))
	f.Add("0", uint8(3), int64(-MaxMilliunits-1))
	f.Fuzz(func(t *testing.T, s string, d uint8, x int64) {
		digits := int(d % 4)
		unit := int64(pow10[3-digits])

		// Whatever the text, parsing answers without panicking; what parses at the
		// currency's digits parses to the same value with finer digits, and reads back
		// from its plain form and through JSON.
		if milli, err := ParseAmount(s, digits); err == nil {
			if milli%unit != 0 {
				t.Fatalf("ParseAmount(%q, %d) = %d, not a whole number of units", s, digits, milli)
			}
			if fine, err := ParseAmount(s, 3); err != nil || fine != milli {
				t.Fatalf("ParseAmount(%q, 3) = %d, %v; want %d", s, fine, err, milli)
			}
			if back, err := ParseAmount(FormatPlain(milli, digits), digits); err != nil || back != milli {
				t.Fatalf("ParseAmount(FormatPlain(%d, %d)) = %d, %v", milli, digits, back, err)
			}
			quotedJSON, _ := json.Marshal(s)
			var a Amount
			if err := a.UnmarshalJSON(quotedJSON); err != nil {
				t.Fatalf("UnmarshalJSON(%s): %v, but ParseAmount accepts it", quotedJSON, err)
			}
			if got, err := a.Milliunits(digits); err != nil || got != milli {
				t.Fatalf("UnmarshalJSON(%s).Milliunits(%d) = %d, %v; want %d", quotedJSON, digits, got, err, milli)
			}
		}

		// Every whole number of units within ±MaxMilliunits survives FormatPlain →
		// ParseAmount, one past it is refused naming the bound, and the plan's format with '.'
		// and no symbol or grouping is the plain form.
		x -= x % unit
		plain := FormatPlain(x, digits)
		back, err := ParseAmount(plain, digits)
		if x > MaxMilliunits || x < -MaxMilliunits {
			if err == nil || !strings.Contains(err.Error(), "too large") {
				t.Fatalf("ParseAmount(FormatPlain(%d, %d) = %q) = %d, %v; want too large", x, digits, plain, back, err)
			}
		} else if err != nil || back != x {
			t.Fatalf("ParseAmount(FormatPlain(%d, %d) = %q) = %d, %v", x, digits, plain, back, err)
		}
		cf := &ynab.CurrencyFormat{DecimalDigits: digits, DecimalSeparator: "."}
		if got := FormatCurrency(x, cf); got != plain {
			t.Fatalf("FormatCurrency(%d, plain %d digits) = %q, want %q", x, digits, got, plain)
		}
	})
}
