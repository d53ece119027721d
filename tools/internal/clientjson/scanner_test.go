package clientjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		text string
		kind ErrorKind // of the error; -1 for none
		path string
		in   string // in the message
	}{
		{`{"a":[1,-0.5e+3,true,false,null,"\"\\\/\b\f\n\r\t\u0041"]}`, -1, "", ""},
		{` 42 `, -1, "", ""},
		{``, Syntax, "", "ends where a value was expected"},
		{`{"a":1,"a":2}`, Duplicate, "a", `"a" is given twice`},
		{`{"p":{"q":[{"r":1,"r":1}]}}`, Duplicate, "p.q[0].r", `"p.q[0].r" is given twice`},
		{strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting), -1, "", ""},
		{strings.Repeat("[", MaxNesting+1) + strings.Repeat("]", MaxNesting+1), TooDeep, strings.Repeat("[0]", MaxNesting), "deeper than 64"},
		{`{"a":"` + "\xff" + `"}`, Syntax, "", "not UTF-8"},
		{`"a` + "\x01" + `"`, Syntax, "", "control character (0x01)"},
		{`01`, Syntax, "", "more text after the JSON value"},
		{`1.`, Syntax, "", "a digit after the decimal point"},
		{`"\x"`, Syntax, "", "an unknown escape"},
		{`{} {}`, Syntax, "", "at byte 4"},
	}
	for _, tt := range tests {
		err := Check([]byte(tt.text))
		if tt.kind == -1 {
			if err != nil {
				t.Errorf("Check(%q) = %v, want nil", tt.text, err)
			}
			continue
		}
		var je *Error
		if !errors.As(err, &je) {
			t.Errorf("Check(%q) = %v, want an *Error", tt.text, err)
			continue
		}
		if je.Kind != tt.kind || je.Path != tt.path || !strings.Contains(je.Error(), tt.in) {
			t.Errorf("Check(%q) = kind %d, path %q, %q; want kind %d, path %q, with %q", tt.text, je.Kind, je.Path, je, tt.kind, tt.path, tt.in)
		}
	}
}

// A caller can look at a value, go back, and read it another way: what args.go does to quote a
// value it refuses.
func TestScannerSeekAndSince(t *testing.T) {
	sc := NewScanner([]byte(`  "abc" , 12`))
	sc.SkipSpace()
	start := sc.Pos()
	s, err := sc.ReadString()
	if err != nil || s != "abc" {
		t.Fatalf("ReadString = %q, %v", s, err)
	}
	if got := string(sc.Since(start)); got != `"abc"` {
		t.Fatalf("Since = %q, want the string's text", got)
	}
	sc.Seek(start)
	if c := sc.Peek(); c != '"' {
		t.Fatalf("after Seek, Peek = %q", c)
	}
	if err := sc.SkipValue(0, ""); err != nil || sc.Peek() != ',' {
		t.Fatalf("SkipValue = %v, then %q", err, sc.Peek())
	}
}

func TestQuotedAndBound(t *testing.T) {
	long := strings.Repeat("é", MaxQuoted+5)
	tests := []struct{ got, want string }{
		{Quoted("a b\n"), `"a b\n"`},
		{Quoted(long), `"` + strings.Repeat("é", MaxQuoted) + `…"`},
		{Bound("abc", 3), "abc"},
		{Bound("abcd", 3), "abc…"},
		{Bound("ééé", 3), "ééé"}, // 6 bytes, 3 characters
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestShowsGoInternals(t *testing.T) {
	for msg, want := range map[string]bool{
		"amount: must be a decimal, not an object":                 false,
		"params.name must be a string, not a number":               false,
		"json: cannot unmarshal number into Go struct field x.y":   true,
		"invalid value map[a:1]":                                   true,
		"<invalid reflect.Value>":                                  true,
		"calling \"tools/call\": mcp.CallToolParams is not valid":  true,
		"%!v(PANIC=String method: runtime error)":                  true,
		"the list is empty; name at least one transaction (go on)": false,
	} {
		if got := ShowsGoInternals(msg); got != want {
			t.Errorf("ShowsGoInternals(%q) = %v, want %v", msg, got, want)
		}
	}
}

// Seeds for the fuzzer: JSON texts at the edges of what Check takes.
var jsonSeeds = []string{
	"hello", "42", `"x"`, "null", "[]", "[1,2]", "{}", `{"id":1,"method":"ping"}`,
	`{"a":1}{"b":2}`, "\x00", `{"a":{`, `{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + "}",
	`{"a":1,"a":2}`, `1e2`, `-0.5e+3`, `01`, "\"\\ud800\"", "{\"a\":\"\xc3\x28\"}",
	`{"a":[1,-0.5e+3,true,false,null,"\"\\\/\b\f\n\r\t\u0041"]}`,
}

func FuzzCheckJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Check(data)
		if err == nil && !json.Valid(data) {
			t.Fatalf("Check accepts %q, which encoding/json refuses", data)
		}
		var je *Error
		if err != nil && !errors.As(err, &je) {
			t.Fatalf("Check(%q) = %v, not an *Error", data, err)
		}
		if err != nil && je.Kind == Syntax && json.Valid(data) && utf8.Valid(data) {
			t.Fatalf("Check refuses %q as a syntax error, which encoding/json accepts: %v", data, err)
		}
	})
}
