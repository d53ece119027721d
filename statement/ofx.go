package statement

import (
	"html"
	"strings"
)

// OFX comes in two shapes that one reader takes here. OFX 1.x is SGML after a header of
// "KEY:VALUE" lines (OFXHEADER:100): its leaf elements (<TRNAMT>-34.51) have no end tag, its
// aggregates (<STMTTRN>…</STMTTRN>) do. OFX 2.x is XML after <?xml?> and <?OFX?> instructions,
// every element closed. QFX is OFX with Intuit's extra elements (<INTU.BID>). Banks bend both:
// end tags on some leaves in SGML, lower-case names, stray end tags. So the reader is tolerant:
// an element followed by text is a leaf holding that text (its end tag, if any, is consumed); an
// element followed by a tag is an aggregate when the file closes an element of that name
// somewhere or it is one of the aggregates read here, and an empty leaf otherwise; an
// aggregate the file never closes ends where the next one of its name starts.
//
// github.com/aclindsa/ofxgo was considered and not used: it cannot say on which line a
// transaction starts (Line.Source), refuses a whole file for one value outside its enums or a
// LANGUAGE of the wrong length, keeps one BANKTRANLIST per statement (OCA's OFX 2.11 test file
// has four), and its errors quote the file. The elements read are those of the OFX 2.2
// specification, sections 11.4 (bank statement) and 11.5 (credit card statement).

type ofxNode struct {
	name   string // upper-case
	line   int
	leaf   bool
	value  string // a leaf's text, unescaped and trimmed
	kids   []*ofxNode
	closed bool // its end tag was seen (aggregates)
}

func (n *ofxNode) child(name string) *ofxNode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// text is the value of the leaf child name, "" when there is none.
func (n *ofxNode) text(name string) string {
	if k := n.child(name); k != nil && k.leaf {
		return k.value
	}
	return ""
}

type ofxTokenKind int

const (
	ofxStart ofxTokenKind = iota
	ofxEnd
	ofxText
)

type ofxToken struct {
	kind  ofxTokenKind
	name  string // upper-case, for start and end
	text  string // raw text, for text
	empty bool   // <NAME/>
	line  int
}

// ofxAggregates are the aggregates this reader uses, taken as such even in a file that never
// closes them (an SGML file cut short).
var ofxAggregates = map[string]bool{
	"OFX": true, "SIGNONMSGSRSV1": true, "SONRS": true, "STATUS": true,
	"BANKMSGSRSV1": true, "STMTTRNRS": true, "STMTRS": true,
	"CREDITCARDMSGSRSV1": true, "CCSTMTTRNRS": true, "CCSTMTRS": true,
	"BANKACCTFROM": true, "CCACCTFROM": true, "BANKACCTTO": true, "CCACCTTO": true,
	"BANKTRANLIST": true, "STMTTRN": true, "LEDGERBAL": true, "AVAILBAL": true,
	"CURRENCY": true, "ORIGCURRENCY": true,
	"INVSTMTMSGSRSV1": true, "INVSTMTTRNRS": true, "INVSTMTRS": true,
}

// ofxTokens splits OFX text into start tags, end tags and text, skipping the SGML header's
// lines (text before the first tag), comments, XML instructions and declarations.
func ofxTokens(s string) ([]ofxToken, error) {
	toks := make([]ofxToken, 0, 2*strings.Count(s, "<")) // tags, and text between some
	line := 1
	// The text since the last tag, in pieces of s (more than one only around CDATA), and the
	// line it starts on. Text of white space alone is dropped: it separates tags.
	var pieces []string
	textLine := 1
	flush := func() {
		var text string
		switch len(pieces) {
		case 0:
			return
		case 1:
			text = pieces[0]
		default:
			text = strings.Join(pieces, "")
		}
		pieces = pieces[:0]
		if strings.TrimSpace(text) != "" {
			toks = append(toks, ofxToken{kind: ofxText, text: text, line: textLine})
		}
	}
	truncated := func(at int) error {
		return &Error{Line: at, Msg: "a tag is not closed with '>': the file is truncated or not OFX"}
	}
	for i := 0; i < len(s); {
		if s[i] != '<' {
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				j = len(s) - i
			}
			if len(pieces) == 0 {
				textLine = line
			}
			pieces = append(pieces, s[i:i+j])
			line += strings.Count(s[i:i+j], "\n")
			i += j
			continue
		}
		rest := s[i:]
		var skip, endMark string
		switch {
		case strings.HasPrefix(rest, "<!--"):
			skip, endMark = "<!--", "-->"
		case strings.HasPrefix(rest, "<![CDATA["):
			j := strings.Index(rest, "]]>")
			if j < 0 {
				return nil, truncated(line)
			}
			if len(pieces) == 0 {
				textLine = line
			}
			// Escaped, so that unescaping the leaf's text gives the section back as written.
			pieces = append(pieces, strings.ReplaceAll(rest[len("<![CDATA["):j], "&", "&amp;"))
			line += strings.Count(rest[:j+3], "\n")
			i += j + 3
			continue
		case strings.HasPrefix(rest, "<?"):
			skip, endMark = "<?", "?>"
		case strings.HasPrefix(rest, "<!"):
			skip, endMark = "<!", ">"
		}
		if skip != "" {
			j := strings.Index(rest[len(skip):], endMark)
			if j < 0 {
				return nil, truncated(line)
			}
			n := len(skip) + j + len(endMark)
			line += strings.Count(rest[:n], "\n")
			i += n
			continue
		}
		j := strings.IndexByte(rest, '>')
		if j < 0 {
			return nil, truncated(line)
		}
		if k := strings.IndexByte(rest[1:j], '<'); k >= 0 {
			return nil, &Error{Line: line, Msg: "a tag is not closed with '>': the file is malformed"}
		}
		flush()
		tag := rest[1:j]
		tagLine := line
		line += strings.Count(tag, "\n")
		i += j + 1
		kind := ofxStart
		if strings.HasPrefix(tag, "/") {
			kind, tag = ofxEnd, tag[1:]
		}
		empty := strings.HasSuffix(tag, "/")
		tag = strings.TrimSuffix(tag, "/")
		name := tag
		if k := strings.IndexAny(tag, " \t\n"); k >= 0 {
			name = tag[:k] // attributes: OFX has none, but XML allows them
		}
		if name == "" {
			return nil, &Error{Line: tagLine, Msg: "a tag has no name: the file is malformed"}
		}
		toks = append(toks, ofxToken{kind: kind, name: strings.ToUpper(name), empty: empty && kind == ofxStart, line: tagLine})
	}
	flush()
	return toks, nil
}

// ofxMaxDepth bounds how deep aggregates nest: OFX's own go eight deep, and a bound keeps a
// malformed file of endless start tags from costing time quadratic in its size.
const ofxMaxDepth = 64

// ofxTree builds the element tree of the tokens; see the comment at the top of the file.
func ofxTree(toks []ofxToken) (*ofxNode, error) {
	closes := map[string]bool{}
	for _, t := range toks {
		if t.kind == ofxEnd {
			closes[t.name] = true
		}
	}
	root := &ofxNode{}
	stack := []*ofxNode{root}
	top := func() *ofxNode { return stack[len(stack)-1] }
	endsAt := func(i int, name string) bool {
		return i < len(toks) && toks[i].kind == ofxEnd && toks[i].name == name
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case ofxStart:
			if ofxAggregates[t.name] && !closes[t.name] {
				// An aggregate the file never closes ends where the next of its name starts:
				// its siblings do not nest inside it.
				for j := len(stack) - 1; j > 0; j-- {
					if stack[j].name == t.name {
						stack = stack[:j]
						break
					}
				}
			}
			n := &ofxNode{name: t.name, line: t.line}
			top().kids = append(top().kids, n)
			next := i + 1
			if t.empty {
				n.leaf = true
				continue
			}
			if next < len(toks) && toks[next].kind == ofxText {
				n.leaf, n.value = true, oneSpaced(html.UnescapeString(strings.TrimSpace(toks[next].text)))
				i = next
				if endsAt(next+1, t.name) {
					i = next + 1
				}
				continue
			}
			if endsAt(next, t.name) {
				n.leaf = true
				i = next
				continue
			}
			if ofxAggregates[t.name] || closes[t.name] {
				if len(stack) > ofxMaxDepth {
					return nil, &Error{Line: t.line, Msg: "the file nests elements far deeper than OFX does: it is malformed"}
				}
				stack = append(stack, n)
				continue
			}
			n.leaf = true // an SGML leaf with no value
		case ofxEnd:
			for j := len(stack) - 1; j > 0; j-- {
				if stack[j].name == t.name {
					stack[j].closed = true
					stack = stack[:j]
					break
				}
			}
			// An end tag of nothing open is a bank's stray one: skipped.
		}
	}
	return root, nil
}

func findOFX(n *ofxNode) *ofxNode {
	for _, k := range n.kids {
		if k.name == "OFX" && !k.leaf {
			return k
		}
	}
	return nil
}

func parseOFX(text []byte) ([]Statement, error) {
	toks, err := ofxTokens(string(text))
	if err != nil {
		return nil, err
	}
	tree, err := ofxTree(toks)
	if err != nil {
		return nil, err
	}
	ofx := findOFX(tree)
	if ofx == nil {
		return nil, &Error{Msg: "the file holds no <OFX> element: it is not OFX"}
	}
	if !ofx.closed {
		return nil, &Error{Line: ofx.line, Msg: "the file ends before the <OFX> element that starts here is closed: it is truncated"}
	}
	var out []Statement
	var investment bool
	var walk func(n *ofxNode) error
	walk = func(n *ofxNode) error {
		for _, k := range n.kids {
			if k.leaf {
				continue
			}
			switch k.name {
			case "STMTRS", "CCSTMTRS":
				st, err := ofxStatement(k)
				if err != nil {
					return err
				}
				out = append(out, st)
			case "INVSTMTRS":
				investment = true
			default:
				if err := walk(k); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(ofx); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		if investment {
			return nil, &Error{Msg: "the OFX file is an investment statement (INVSTMTRS): avenir reads bank and credit-card statements"}
		}
		return nil, &Error{Msg: "the OFX file holds no bank or credit-card statement (STMTRS or CCSTMTRS)"}
	}
	return out, nil
}

func ofxStatement(n *ofxNode) (Statement, error) {
	st := Statement{Format: FormatOFX, Currency: strings.ToUpper(n.text("CURDEF"))}
	for _, acct := range []string{"BANKACCTFROM", "CCACCTFROM"} {
		if a := n.child(acct); a != nil {
			st.Account = a.text("ACCTID")
			break
		}
	}
	for _, list := range n.kids {
		if list.name != "BANKTRANLIST" {
			continue
		}
		for _, t := range list.kids {
			if t.name != "STMTTRN" || t.leaf {
				continue
			}
			l, err := ofxLine(t, st.Currency)
			if err != nil {
				return Statement{}, err
			}
			st.Lines = append(st.Lines, l)
		}
	}
	if bal := n.child("LEDGERBAL"); bal != nil && !bal.leaf {
		amt, _, problem := exactDecimal(ofxAmountText(bal.text("BALAMT")))
		if problem != "" {
			return Statement{}, &Error{Line: bal.line, Msg: "the LEDGERBAL's BALAMT " + problem}
		}
		date, ok := ofxDate(bal.text("DTASOF"))
		if !ok {
			return Statement{}, &Error{Line: bal.line, Msg: "the LEDGERBAL's DTASOF is not a date (YYYYMMDD)"}
		}
		st.Closing = &Balance{Date: date, Amount: amt}
	}
	return st, nil
}

func ofxLine(t *ofxNode, currency string) (Line, error) {
	l := Line{Source: t.line}
	posted := t.text("DTPOSTED")
	if posted == "" {
		return Line{}, &Error{Line: t.line, Msg: "the transaction (STMTTRN) has no DTPOSTED"}
	}
	date, ok := ofxDate(posted)
	if !ok {
		return Line{}, &Error{Line: t.line, Msg: "the transaction's DTPOSTED is not a date (YYYYMMDD)"}
	}
	l.Date = date
	if avail := t.text("DTAVAIL"); avail != "" {
		if l.ValueDate, ok = ofxDate(avail); !ok {
			return Line{}, &Error{Line: t.line, Msg: "the transaction's DTAVAIL is not a date (YYYYMMDD)"}
		}
	}
	amt := t.text("TRNAMT")
	if amt == "" {
		return Line{}, &Error{Line: t.line, Msg: "the transaction (STMTTRN) has no TRNAMT"}
	}
	var problem string
	if l.Amount, l.Decimals, problem = exactDecimal(ofxAmountText(amt)); problem != "" {
		return Line{}, &Error{Line: t.line, Msg: "the transaction's TRNAMT " + problem}
	}
	if c := t.child("CURRENCY"); c != nil && !c.leaf {
		if sym := strings.ToUpper(c.text("CURSYM")); sym != "" && sym != currency {
			return Line{}, &Error{Line: t.line, Msg: "the transaction's amount is in another currency (CURRENCY) than the statement's (CURDEF)"}
		}
	}
	l.BankID = t.text("FITID")
	l.Payee = t.text("NAME")
	if l.Payee == "" {
		if p := t.child("PAYEE"); p != nil {
			if p.leaf {
				l.Payee = p.value
			} else {
				l.Payee = p.text("NAME")
			}
		}
	}
	l.Description = t.text("MEMO")
	if strings.EqualFold(l.Description, l.Payee) {
		l.Description = ""
	}
	for _, to := range []string{"BANKACCTTO", "CCACCTTO"} {
		if a := t.child(to); a != nil && !a.leaf {
			l.Counterparty = a.text("ACCTID")
			break
		}
	}
	return l, nil
}

// ofxAmountText returns an OFX amount and its decimal separator: a period, or a comma, which
// the specification allows too ("-34,51").
func ofxAmountText(s string) (string, byte) {
	if strings.Contains(s, ",") && !strings.Contains(s, ".") {
		return s, ','
	}
	return s, '.'
}

// ofxDate reads an OFX date, YYYYMMDD[HHMMSS[.XXX]][[offset:zone]], as its date part: the day
// the bank wrote, in its own zone.
func ofxDate(s string) (string, bool) {
	if len(s) < 8 {
		return "", false
	}
	if len(s) > 8 && !strings.ContainsRune("0123456789.[ ", rune(s[8])) {
		return "", false
	}
	y, ok1 := digitsInt(s[0:4])
	m, ok2 := digitsInt(s[4:6])
	d, ok3 := digitsInt(s[6:8])
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	return civilDate(y, m, d)
}
