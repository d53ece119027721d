package statement

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeText turns a statement file's bytes into UTF-8 text with "\n" line ends, whatever the
// bank wrote: a UTF-8 byte-order mark is dropped, UTF-16 (with a byte-order mark, or without one
// when the text starts with an ASCII character) is decoded, and text that is not valid UTF-8 is
// read as Windows-1252, which is what Dutch and German banks' MT940 and CSV exports use when
// they are not UTF-8 (Latin-1 is Windows-1252 without the printable characters at 0x80–0x9F).
// CR LF and a lone CR become LF, which keeps every line's number, so the parsers split on "\n"
// alone.
//
// An error is a file that cannot be text: UTF-16 of an odd length, or NUL bytes in what should
// be 8-bit text (a binary file).
func decodeText(data []byte) ([]byte, error) {
	var text []byte
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		text = data[3:]
		if !utf8.Valid(text) {
			text = fromWindows1252(text)
		}
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		t, err := fromUTF16(data[2:], false)
		if err != nil {
			return nil, err
		}
		text = t
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		t, err := fromUTF16(data[2:], true)
		if err != nil {
			return nil, err
		}
		text = t
	case len(data) >= 2 && data[0] != 0 && data[0] < 0x80 && data[1] == 0:
		// UTF-16 LE without a byte-order mark: an ASCII character followed by NUL.
		t, err := fromUTF16(data, false)
		if err != nil {
			return nil, err
		}
		text = t
	case len(data) >= 2 && data[0] == 0 && data[1] != 0 && data[1] < 0x80:
		t, err := fromUTF16(data, true)
		if err != nil {
			return nil, err
		}
		text = t
	default:
		text = data
		if !utf8.Valid(text) {
			text = fromWindows1252(text)
		}
	}
	if bytes.IndexByte(text, 0) >= 0 {
		return nil, &Error{Msg: "the file is binary (it holds NUL bytes), not a statement: " + formatsRead}
	}
	return normaliseNewlines(text), nil
}

// fromUTF16 decodes UTF-16 (big-endian when be) to UTF-8; an unpaired surrogate becomes U+FFFD.
func fromUTF16(b []byte, be bool) ([]byte, error) {
	if len(b)%2 != 0 {
		return nil, &Error{Msg: "the file is UTF-16 text of an odd number of bytes: it is truncated or not text"}
	}
	units := make([]uint16, len(b)/2)
	for i := range units {
		if be {
			units[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			units[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	if len(units) > 0 && units[0] == 0xFEFF {
		units = units[1:]
	}
	out := make([]byte, 0, len(units))
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// cp1252 maps the bytes 0x80–0x9F of Windows-1252 to their characters; the five bytes that code
// page leaves undefined keep the C1 control character of the same number, as the WHATWG
// encoding standard's decoder does. Bytes 0xA0–0xFF are Latin-1, the code point of their own
// value.
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

func fromWindows1252(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	for _, c := range b {
		switch {
		case c < 0x80:
			out = append(out, c)
		case c < 0xA0:
			out = utf8.AppendRune(out, cp1252[c-0x80])
		default:
			out = utf8.AppendRune(out, rune(c))
		}
	}
	return out
}

// normaliseNewlines turns CR LF and lone CR into LF; it returns b itself when b has no CR.
func normaliseNewlines(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\r' {
			out = append(out, '\n')
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, b[i])
	}
	return out
}
