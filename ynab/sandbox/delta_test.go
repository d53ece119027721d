package sandbox_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

// entities is a read flattened to its entities by key, so that a delta can be merged into it:
// a deleted entity is dropped, any other replaces its key.
type entities map[string]json.RawMessage

// reader is one delta-capable endpoint and how to flatten its answer.
type reader struct {
	path    string
	flatten func(t *testing.T, data json.RawMessage) (entities, int64)
}

func list(field string) func(*testing.T, json.RawMessage) (entities, int64) {
	key := "id"
	if field == "months" {
		key = "month"
	}
	return func(t *testing.T, data json.RawMessage) (entities, int64) {
		var body map[string]json.RawMessage
		mustUnmarshal(t, data, &body)
		var k int64
		mustUnmarshal(t, body["server_knowledge"], &k)
		e := entities{}
		add(t, e, field, body[field], key)
		return e, k
	}
}

// add flattens a JSON array of entities under kind, keyed by keyField. Months and category
// groups have their categories flattened too, under kind+"/"+key.
func add(t *testing.T, e entities, kind string, raw json.RawMessage, keyField string) {
	var items []json.RawMessage
	mustUnmarshal(t, raw, &items)
	for _, item := range items {
		var head struct {
			ID         string          `json:"id"`
			Month      string          `json:"month"`
			Categories json.RawMessage `json:"categories"`
		}
		mustUnmarshal(t, item, &head)
		key := head.ID
		if keyField == "month" {
			key = head.Month
		}
		if kind == "months" || kind == "category_groups" { // they carry categories, or none in a delta
			if head.Categories != nil {
				add(t, e, kind+"/"+key, head.Categories, "id")
			}
			var fields map[string]json.RawMessage
			mustUnmarshal(t, item, &fields)
			delete(fields, "categories")
			item, _ = json.Marshal(fields)
		}
		e[kind+"/"+key] = item
	}
}

func exportReader(t *testing.T, data json.RawMessage) (entities, int64) {
	var body struct {
		Plan            map[string]json.RawMessage `json:"plan"`
		ServerKnowledge int64                      `json:"server_knowledge"`
	}
	mustUnmarshal(t, data, &body)
	e := entities{}
	for field, raw := range body.Plan {
		if strings.HasPrefix(string(raw), "[") {
			key := "id"
			if field == "months" {
				key = "month"
			}
			add(t, e, field, raw, key)
		}
	}
	return e, body.ServerKnowledge
}

// merge applies a delta: deleted entities go, the others are replaced.
func (e entities) merge(t *testing.T, delta entities) {
	for key, raw := range delta {
		var flags struct{ Deleted bool }
		mustUnmarshal(t, raw, &flags)
		if flags.Deleted {
			delete(e, key)
			for k := range e { // a deleted month or group takes its categories along
				if strings.HasPrefix(k, key+"/") {
					delete(e, k)
				}
			}
			continue
		}
		e[key] = raw
	}
}

func mustUnmarshal(t *testing.T, raw json.RawMessage, into any) {
	t.Helper()
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatalf("decode %.200s: %v", raw, err)
	}
}

// The property delta requests exist for: applying every delta since a full read to that read
// gives exactly a fresh full read, whatever was written in between, derived figures included.
func TestDeltasMergeIntoAFreshRead(t *testing.T) {
	clk := &clock{now: sandboxtest.FixedNow()}
	a := newAPI(t, sandbox.Options{Now: clk.Now})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	readers := []reader{
		{plan, exportReader},
		{plan + "/accounts", list("accounts")},
		{plan + "/categories", list("category_groups")},
		{plan + "/payees", list("payees")},
		{plan + "/months", list("months")},
		{plan + "/transactions", list("transactions")},
		{plan + "/accounts/" + n.id(t, "Creditcard") + "/transactions", list("transactions")},
		{plan + "/scheduled_transactions", list("scheduled_transactions")},
	}
	read := func(r reader, since int64) (entities, int64) {
		path := r.path
		if since >= 0 {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			path += fmt.Sprintf("%slast_knowledge_of_server=%d", sep, since)
		}
		var data json.RawMessage
		a.ok(200, "GET", path, nil, &data)
		return r.flatten(t, data)
	}
	cached := make([]entities, len(readers))
	known := make([]int64, len(readers))
	for i, r := range readers {
		cached[i], known[i] = read(r, -1)
	}
	w := &writer{a: a, n: n, rng: rand.New(rand.NewPCG(7, 11))}
	for round := range 30 {
		for range 1 + w.rng.IntN(3) {
			w.write(t)
		}
		if round == 20 {
			clk.advance(20 * 24 * time.Hour) // a new month: served figures change without a write
		}
		for i, r := range readers {
			delta, k := read(r, known[i])
			cached[i].merge(t, delta)
			known[i] = k
			fresh, _ := read(r, -1)
			if !maps.EqualFunc(cached[i], fresh, func(x, y json.RawMessage) bool { return string(x) == string(y) }) {
				t.Fatalf("round %d, after %s: %s merged with its delta differs from a fresh read:\n%s",
					round, strings.Join(w.done, ", "), r.path, diff(cached[i], fresh))
			}
		}
		d, err := a.sb.Export(sandbox.PlanID)
		if err != nil {
			t.Fatal(err)
		}
		checkDerived(t, d)
	}
	if w.kinds() < 8 {
		t.Errorf("the random writes covered only %v", w.done)
	}
}

func diff(got, want entities) string {
	var b strings.Builder
	keys := slices.Sorted(maps.Keys(want))
	for _, k := range keys {
		if string(got[k]) != string(want[k]) {
			fmt.Fprintf(&b, "%s:\n  merged %s\n  fresh  %s\n", k, got[k], want[k])
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			fmt.Fprintf(&b, "%s only in the merged read\n", k)
		}
	}
	return b.String()
}

// writer makes random writes through the API, refused ones among them.
type writer struct {
	a    *api
	n    names
	rng  *rand.Rand
	done []string
}

func (w *writer) kinds() int {
	seen := map[string]bool{}
	for _, d := range w.done {
		seen[d] = true
	}
	return len(seen)
}

func (w *writer) pick(options ...string) string { return options[w.rng.IntN(len(options))] }

func (w *writer) write(t *testing.T) {
	a, n := w.a, w.n
	categories := []string{"Boodschappen", "Restaurants", "Tennis", "Vakantie", "Noodfonds", "Uitjes", "Huur", "Tandarts"}
	accounts := []string{"Betaalrekening", "Spaarrekening", "Creditcard", "Contant"}
	var live struct{ Transactions []ynab.Transaction }
	a.ok(200, "GET", plan+"/transactions", nil, &live)
	someTx := live.Transactions[w.rng.IntN(len(live.Transactions))]
	kind := w.pick("budget", "create", "bulk", "update", "delete", "category", "create category", "import", "refused", "split")
	w.done = append(w.done, kind)
	newTx := func() map[string]any {
		tx := map[string]any{"account_id": n.id(t, w.pick(accounts...)), "date": addDays("2026-09-15", -w.rng.IntN(60)),
			"amount": int64(w.rng.IntN(20000)-15000) * 10, "flag_color": w.pick("", "red", "blue")}
		switch w.rng.IntN(4) {
		case 0:
			tx["payee_name"] = w.pick("Albert Heijn", "Nieuwe bakker", fmt.Sprintf("Winkel %d", w.rng.IntN(5)))
		case 1:
			tx["payee_id"] = n.id(t, "payee:Transfer : "+w.pick(accounts...))
		default:
			tx["payee_id"] = n.id(t, "payee:Jumbo")
		}
		if w.rng.IntN(3) > 0 {
			tx["category_id"] = n.id(t, w.pick(categories...))
		}
		return tx
	}
	switch kind {
	case "budget":
		month := addMonths("2026-09-01", w.rng.IntN(5)-2)
		a.ok(200, "PATCH", plan+"/months/"+month+"/categories/"+n.id(t, w.pick(categories...)), budget(int64(w.rng.IntN(50000))*10), nil)
	case "create":
		status, _, raw := a.do("POST", plan+"/transactions", one(newTx()))
		if status != 201 && status != 400 { // a transfer to its own account is refused
			t.Fatalf("create: %d %s", status, raw)
		}
	case "bulk":
		tx := newTx()
		delete(tx, "payee_id")
		a.ok(201, "POST", plan+"/transactions", many(tx, map[string]any{"account_id": n.id(t, "Contant"), "date": "2026-09-10", "amount": -1000}), nil)
	case "update":
		item := map[string]any{"id": someTx.ID}
		switch w.rng.IntN(5) {
		case 0:
			item["category_id"] = n.id(t, w.pick(categories...))
		case 1:
			item["amount"] = someTx.Amount - 1000
		case 2:
			item["date"] = addDays("2026-09-15", -w.rng.IntN(80))
		case 3:
			item["cleared"] = w.pick("cleared", "uncleared", "reconciled")
		default:
			item["approved"], item["flag_color"] = true, w.pick("", "purple")
		}
		a.ok(200, "PATCH", plan+"/transactions", many(item), nil)
	case "delete":
		a.ok(200, "DELETE", plan+"/transactions/"+someTx.ID, nil, nil)
	case "split":
		if len(someTx.Subtransactions) > 0 || someTx.TransferAccountID != nil {
			return
		}
		half := someTx.Amount / 2
		a.ok(200, "PUT", plan+"/transactions/"+someTx.ID, one(map[string]any{"subtransactions": []map[string]any{
			{"amount": half, "category_id": n.id(t, w.pick(categories...))}, {"amount": someTx.Amount - half}}}), nil)
	case "category":
		body := map[string]any{"name": fmt.Sprintf("Categorie %d", w.rng.IntN(100))}
		if w.rng.IntN(2) == 0 {
			body = map[string]any{"goal_target": int64(w.rng.IntN(100000)) * 10}
		}
		a.ok(200, "PATCH", plan+"/categories/"+n.id(t, w.pick(categories...)), map[string]any{"category": body}, nil)
	case "create category":
		a.ok(201, "POST", plan+"/categories", map[string]any{"category": map[string]any{
			"name": fmt.Sprintf("Nieuw %d", w.rng.IntN(100)), "category_group_id": n.id(t, "group:Vrije tijd")}}, nil)
	case "import":
		status, _, _ := a.do("POST", plan+"/transactions/import", nil)
		if status != 200 && status != 201 {
			t.Fatalf("import: %d", status)
		}
	case "refused":
		tx := newTx()
		tx["date"] = "2031-01-01"
		a.fail(400, "POST", plan+"/transactions", many(newTx(), tx))
	}
}

// checkDerived recomputes the derived figures of an export from its transactions, by the rules
// of the package doc, and compares.
func checkDerived(t *testing.T, d ynab.PlanDetail) {
	t.Helper()
	type sums struct{ balance, cleared int64 }
	accounts := map[string]*sums{}
	onBudget, card := map[string]bool{}, map[string]bool{}
	for _, a := range d.Accounts {
		accounts[a.ID] = &sums{}
		onBudget[a.ID] = a.OnBudget
	}
	internal := map[string]bool{}
	for _, c := range d.Categories {
		internal[c.ID] = c.Internal
		if c.CategoryGroupName == "Credit Card Payments" {
			card[c.ID] = true
		}
	}
	lines := map[string][]ynab.SubTransaction{}
	for _, s := range d.Subtransactions {
		lines[s.TransactionID] = append(lines[s.TransactionID], s)
	}
	activity := map[string]int64{} // month/category
	income := map[string]int64{}
	for _, tx := range d.Transactions {
		s := accounts[tx.AccountID]
		s.balance += tx.Amount
		if tx.Cleared != "uncleared" {
			s.cleared += tx.Amount
		}
		if !onBudget[tx.AccountID] {
			continue
		}
		month := tx.Date[:8] + "01"
		add := func(cat *string, amount int64) {
			switch {
			case cat == nil:
			case internal[*cat]:
				income[month] += amount
			default:
				activity[month+"/"+*cat] += amount
			}
		}
		if ls := lines[tx.ID]; len(ls) > 0 {
			for _, l := range ls {
				add(l.CategoryID, l.Amount)
			}
		} else {
			add(tx.CategoryID, tx.Amount)
		}
	}
	for _, a := range d.Accounts {
		if s := accounts[a.ID]; a.Balance != s.balance || a.ClearedBalance != s.cleared || a.UnclearedBalance != s.balance-s.cleared {
			t.Errorf("account %s: balance %d cleared %d uncleared %d; its transactions add up to %d and %d",
				a.Name, a.Balance, a.ClearedBalance, a.UnclearedBalance, s.balance, s.cleared)
		}
	}
	carry := map[string]int64{}
	var cumIncome, assignedAll, overspentBefore int64
	for _, m := range d.Months {
		for _, c := range m.Categories {
			if !internal[c.ID] {
				assignedAll += c.Budgeted
			}
		}
	}
	for _, m := range d.Months {
		cumIncome += income[m.Month]
		if m.Income != income[m.Month] {
			t.Errorf("%s: income %d, want %d", m.Month, m.Income, income[m.Month])
		}
		if want := cumIncome - assignedAll - overspentBefore; m.ToBeBudgeted != want {
			t.Errorf("%s: to be budgeted %d, want %d", m.Month, m.ToBeBudgeted, want)
		}
		for _, c := range m.Categories {
			if internal[c.ID] {
				continue
			}
			if !card[c.ID] && c.Activity != activity[m.Month+"/"+c.ID] {
				t.Errorf("%s %s: activity %d, want %d", m.Month, c.Name, c.Activity, activity[m.Month+"/"+c.ID])
			}
			if want := max(carry[c.ID], 0) + c.Budgeted + c.Activity; c.Balance != want {
				t.Errorf("%s %s: balance %d, want %d", m.Month, c.Name, c.Balance, want)
			}
			carry[c.ID] = c.Balance
			if c.Balance < 0 {
				overspentBefore -= c.Balance
			}
		}
	}
}
