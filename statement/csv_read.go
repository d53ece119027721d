package statement

import (
	"bytes"
	"strings"
)

// csvRecord is one record of a CSV file: its fields as written (quotes removed) and the
// 1-based line it starts on, which is what every message names.
type csvRecord struct {
	fields []string
	line   int
}

// blank says the record holds nothing: an empty line, or one of only delimiters and spaces.
func (r csvRecord) blank() bool {
	for _, f := range r.fields {
		if !isSpaceOnly(f) {
			return false
		}
	}
	return true
}

// field returns the i-th field (0-based) trimmed, or "" when the record is shorter.
func (r csvRecord) field(i int) string {
	if i < 0 || i >= len(r.fields) {
		return ""
	}
	return strings.TrimSpace(r.fields[i])
}

// msgUnclosedQuote is reported by readCSV with the line where the quoted field began.
const msgUnclosedQuote = "a quoted field is never closed (is the file cut short?)"

// readCSV splits data into records. It is written for bank exports rather than RFC 4180 alone,
// because encoding/csv cannot do what those need: a quote character other than '"' (ASN Bank
// quotes its text fields with '), and a quote inside a quoted field that is not doubled (ASN's
// "'s-Hertogenbosch") taken as a literal quote, as encoding/csv's LazyQuotes does. A quote that
// opens a field ends it only where the delimiter or a line end follows (spaces between are
// dropped); a quote in the middle of an unquoted field is an ordinary character. Lines end at "\n", "\r\n" or a lone "\r".
// Blank lines are kept as records (the caller drops them) so that line numbers stay true.
//
// max > 0 stops after that many records, and then a field left open at the end is not an error
// (the caller is sniffing a sample, not reading the file).
func readCSV(data []byte, delim, quote byte, max int) ([]csvRecord, error) {
	return readCSVWith(data, delim, quote, max, csvQuoting{})
}

// csvQuoting narrows where a quote opens a field, for a layout that quotes only some columns
// with a character that also appears in names: ASN Bank quotes its payment reference and
// description with ', and writes a name such as "'t Hoekje" unquoted in an earlier column.
type csvQuoting struct {
	from       int  // fields before this one (0-based) are never quoted
	singleLine bool // a quoted field cannot span lines: one not closed on its line is unquoted
}

func readCSVWith(data []byte, delim, quote byte, max int, q csvQuoting) ([]csvRecord, error) {
	var (
		recs   []csvRecord
		fields []string
		field  []byte
		line   = 1
		start  = 1
		width  = 8 // fields of the last record, the likely width of the next
	)
	if max <= 0 {
		recs = make([]csvRecord, 0, bytes.Count(data, []byte{'\n'})+1)
	}
	endRecord := func() {
		fields = append(fields, string(field))
		field = field[:0]
		recs = append(recs, csvRecord{fields: fields, line: start})
		width = len(fields)
		fields = make([]string, 0, width)
	}
	i := 0
	for i < len(data) {
		if max > 0 && len(recs) >= max {
			return recs, nil
		}
		c := data[i]
		if c == quote && len(fields) >= q.from && isSpaceOnlyBytes(field) {
			// A quoted field (spaces before its quote are dropped): read to the quote that
			// closes it.
			field = field[:0]
			qline, qstart := line, i
			i++
			closed, literal := false, false
			for i < len(data) {
				c = data[i]
				if q.singleLine && (c == '\n' || c == '\r') {
					literal = true
					break
				}
				if c == quote {
					if i+1 < len(data) && data[i+1] == quote {
						field = append(field, quote)
						i += 2
						continue
					}
					j := i + 1
					for j < len(data) && data[j] == ' ' && delim != ' ' {
						j++
					}
					if j >= len(data) || data[j] == delim || data[j] == '\n' || data[j] == '\r' {
						i = j
						closed = true
						break
					}
					// A quote inside the field that neither doubles nor closes it.
					field = append(field, quote)
					i++
					continue
				}
				if c == '\n' {
					line++
				} else if c == '\r' {
					if i+1 >= len(data) || data[i+1] != '\n' {
						line++
					}
				}
				field = append(field, c)
				i++
			}
			if !closed && (literal || q.singleLine) {
				// Read the field again from its quote, as an unquoted one.
				line = qline
				field = append(field[:0], quote)
				i = qstart + 1
				continue
			}
			if !closed {
				if max > 0 {
					return recs, nil
				}
				return nil, &Error{Line: qline, Msg: msgUnclosedQuote}
			}
			continue
		}
		switch c {
		case delim:
			fields = append(fields, string(field))
			field = field[:0]
			i++
		case '\n', '\r':
			endRecord()
			if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			i++
			line++
			start = line
		default:
			field = append(field, c)
			i++
		}
	}
	// The last line may or may not end with a line break; a file that ends with one has no
	// further record.
	if len(fields) > 0 || len(field) > 0 {
		endRecord()
	}
	return recs, nil
}

// delimiters are the separators CSV detection tries, in the order it prefers them on a tie.
var delimiters = []byte{';', ',', '\t', '|'}

// sniffLimit is how many records delimiter detection looks at: enough to see past a preamble
// (Knab's one line, German banks' dozen) and into the lines themselves.
const sniffLimit = 40

// sniffDelimiter tells which delimiter a file uses: the one that splits the most of its first
// records into the same number of fields (at least two), and on a tie the one that gives more
// fields. A decimal comma in an unquoted semicolon file splits each line in two at most, which
// the semicolon's consistent and larger count beats; a comma inside a quoted field does not
// count at all. It returns 0 when no delimiter splits any line.
func sniffDelimiter(data []byte) (delim byte, consistent, lines int) {
	bestScore, bestFields := 0, 0
	for _, d := range delimiters {
		recs, _ := readCSV(data, d, '"', sniffLimit)
		counts := map[int]int{}
		n := 0
		for _, r := range recs {
			if r.blank() {
				continue
			}
			n++
			counts[len(r.fields)]++
		}
		score, fields := 0, 0
		for k, v := range counts {
			if k < 2 {
				continue
			}
			if v > score || (v == score && k > fields) {
				score, fields = v, k
			}
		}
		if score > bestScore || (score == bestScore && fields > bestFields) {
			delim, bestScore, bestFields, lines = d, score, fields, n
		}
	}
	if bestScore == 0 {
		return 0, 0, 0
	}
	return delim, bestScore, lines
}

// looksCSV is the detector's cheap test: text (no NUL byte) whose first lines split into the
// same number of fields on one of , ; TAB |, and that does not open as a tagged format does
// (XML or SGML, OFX's header, MT940's SWIFT block or tags). Detect should try the tagged
// formats first; this only keeps a file that is clearly something else from being read as CSV.
func looksCSV(data []byte) bool {
	sample := data
	if len(sample) > 16<<10 {
		sample = sample[:16<<10]
	}
	if bytes.IndexByte(sample, 0) >= 0 {
		return false
	}
	head := bytes.TrimLeft(sample, " \t\r\n\ufeff")
	if len(head) == 0 || head[0] == '<' {
		return false
	}
	for _, p := range []string{"OFXHEADER", "{1:", ":20:", ":940:"} {
		if bytes.HasPrefix(head, []byte(p)) {
			return false
		}
	}
	// MT940 without SWIFT blocks: most lines are :tag: lines.
	tagged, nonblank := 0, 0
	for _, l := range bytes.Split(head, []byte{'\n'}) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		nonblank++
		if l[0] == ':' {
			tagged++
		}
		if nonblank >= sniffLimit {
			break
		}
	}
	if tagged*2 >= nonblank {
		return false
	}
	d, consistent, lines := sniffDelimiter(sample)
	return d != 0 && consistent*2 >= lines
}

func isSpaceOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpaceByte(s[i]) {
			return false
		}
	}
	return true
}

func isSpaceOnlyBytes(b []byte) bool {
	for _, c := range b {
		if !isSpaceByte(c) {
			return false
		}
	}
	return true
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n'
}
