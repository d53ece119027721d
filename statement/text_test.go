package statement

import (
	"testing"
)

func TestDecodeText(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
		msg  string // of the error, "" for none
	}{
		{"UTF-8 unchanged", []byte("Zoë € 1"), "Zoë € 1", ""},
		{"a UTF-8 BOM dropped", []byte("\xEF\xBB\xBFa"), "a", ""},
		{"a UTF-8 BOM before Windows-1252", []byte("\xEF\xBB\xBFcaf\xE9"), "café", ""},
		{"Windows-1252 printable 0x80-0x9F", []byte("\x80\x82\x84\x85\x8A\x91\x92\x93\x94\x96\x97\x99\x9F"), "€‚„…Š‘’“”–—™Ÿ", ""},
		{"Windows-1252 undefined bytes keep their C1 code points", []byte("\x81\x8D\x8F\x90\x9D"), "\u0081\u008D\u008F\u0090\u009D", ""},
		{"Latin-1 upper half", []byte("\xA0\xE9\xFC\xFF"), "\u00A0éüÿ", ""},
		{"CR LF to LF", []byte("a\r\nb\r\n"), "a\nb\n", ""},
		{"lone CR to LF", []byte("a\rb\r\rc"), "a\nb\n\nc", ""},
		{"UTF-16 LE with BOM", []byte{0xFF, 0xFE, 'a', 0, 0xAC, 0x20, '\r', 0, '\n', 0}, "a€\n", ""},
		{"UTF-16 BE with BOM", []byte{0xFE, 0xFF, 0, 'a', 0x20, 0xAC}, "a€", ""},
		{"UTF-16 LE without BOM", []byte{'<', 0, '?', 0}, "<?", ""},
		{"UTF-16 BE without BOM", []byte{0, '<', 0, '?'}, "<?", ""},
		{"UTF-16 surrogate pair", []byte{0xFF, 0xFE, 0x3D, 0xD8, 0x00, 0xDE}, "😀", ""},
		{"UTF-16 unpaired surrogate", []byte{0xFF, 0xFE, 0x3D, 0xD8, 'a', 0}, "\uFFFDa", ""},
		{"UTF-16 of odd length", []byte{0xFE, 0xFF, 0, 'a', 0}, "", "odd number of bytes"},
		{"NUL bytes", []byte("ab\x00cd"), "", "binary"},
		{"NUL in UTF-16 text", []byte{0xFF, 0xFE, 'a', 0, 0, 0}, "", "binary"},
		{"empty", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeText(tt.in)
			if tt.msg != "" {
				wantError(t, err, 0, tt.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("decodeText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOneSpaced(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  a  b\tc\n", "a b c"},
		{"a\x01b\u0081c\u00A0d", "a b c d"},
		{"", ""},
		{"\x00\x1f", ""},
		{"één € twee", "één € twee"},
	}
	for _, tt := range tests {
		if got := oneSpaced(tt.in); got != tt.want {
			t.Errorf("oneSpaced(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
