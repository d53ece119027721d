package statement

// lineBalance is what one line's balance columns say, each cell optional.
type lineBalance struct {
	after, before, either int64
	hasAfter, hasBefore   bool
	hasEither             bool // a running balance not known to be before or after the line
}

// statementBalances works out a statement's opening and closing balance from the running
// balance its lines carry, keeping the lines in the file's order. A bank may list its lines
// oldest first (Rabobank, ASN) or newest first (ING), and its balance column may be the
// balance after the line (Rabobank's "Saldo na trn", ING's "Saldo na mutatie") or before it
// (ASN's "saldo rekening voor mutatie"). The opening balance is the balance before the
// earliest line, the closing balance the one after the latest; each carries that line's date.
//
// The direction is read from the dates (rising or falling from line to line); where they tell
// nothing (all one day) or contradict each other, and where the layout does not say whether
// its balance is before or after the line (Triodos, a generic "Saldo"), each reading is tried,
// and the one whose balances chain from line to line (one line's balance after is the next
// one's before) is taken. When the file's own order and meaning are known, its balances are
// given as written even where they do not chain: they are what the file states, and the caller
// checks that opening plus lines equals closing. When nothing settles it, or a line lacks its
// balance, there are none (nil, nil).
func statementBalances(lines []Line, bal []lineBalance) (opening, closing *Balance) {
	n := len(lines)
	if n == 0 || len(bal) != n {
		return nil, nil
	}
	type reading int
	const (
		readGiven  reading = iota // before and after both given
		readAfter                 // the one balance is after the line
		readBefore                // the one balance is before the line
	)
	var readings []reading
	switch b := bal[0]; {
	case b.hasAfter && b.hasBefore:
		readings = []reading{readGiven}
	case b.hasAfter:
		readings = []reading{readAfter}
	case b.hasBefore:
		readings = []reading{readBefore}
	case b.hasEither:
		readings = []reading{readAfter, readBefore}
	default:
		return nil, nil
	}
	for _, b := range bal {
		if b.hasAfter != bal[0].hasAfter || b.hasBefore != bal[0].hasBefore || b.hasEither != bal[0].hasEither {
			return nil, nil // a line without its balance
		}
	}
	rising, falling := 0, 0
	for i := 1; i < n; i++ {
		switch {
		case lines[i].Date > lines[i-1].Date:
			rising++
		case lines[i].Date < lines[i-1].Date:
			falling++
		}
	}
	var directions []bool // true: oldest first
	switch {
	case rising > 0 && falling == 0:
		directions = []bool{true}
	case falling > 0 && rising == 0:
		directions = []bool{false}
	default:
		directions = []bool{true, false}
	}

	type result struct {
		open, close Balance
		chains      bool
	}
	var results []result
	before := make([]int64, n)
	after := make([]int64, n)
	for _, rd := range readings {
		for i, b := range bal {
			switch rd {
			case readGiven:
				before[i], after[i] = b.before, b.after
			case readAfter:
				v := b.after
				if b.hasEither {
					v = b.either
				}
				before[i], after[i] = v-lines[i].Amount, v
			case readBefore:
				v := b.before
				if b.hasEither {
					v = b.either
				}
				before[i], after[i] = v, v+lines[i].Amount
			}
		}
		for _, oldestFirst := range directions {
			chains := true
			for i := 0; i+1 < n && chains; i++ {
				if oldestFirst {
					chains = after[i] == before[i+1]
				} else {
					chains = before[i] == after[i+1]
				}
			}
			first, last := 0, n-1
			if !oldestFirst {
				first, last = n-1, 0
			}
			results = append(results, result{
				open:   Balance{Date: lines[first].Date, Amount: before[first]},
				close:  Balance{Date: lines[last].Date, Amount: after[last]},
				chains: chains,
			})
		}
	}
	if len(results) == 1 {
		r := results[0]
		return &r.open, &r.close
	}
	var pick *result
	for i := range results {
		r := &results[i]
		if !r.chains {
			continue
		}
		if pick != nil && (pick.open != r.open || pick.close != r.close) {
			return nil, nil // two readings chain and disagree: nothing settles it
		}
		pick = r
	}
	if pick == nil {
		return nil, nil
	}
	return &pick.open, &pick.close
}
