package sandbox

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
)

// LargePlanID is the id of "Gezin", the large sample's plan.
const LargePlanID = "7c2e9a41-5b3d-4e8f-a16c-2d4f6b8a0c1e"

// The large sample's size: DefaultLargeSample transactions unless told, within these bounds.
const (
	DefaultLargeSample = 50_000
	MinLargeSample     = 1_000
	MaxLargeSample     = 200_000
)

// Sample names the plan a sandbox starts from (Options.Sample). The zero value means "the one
// the state file holds, else the standard sample".
type Sample struct {
	set   bool
	large int // the large sample's transactions; 0 for the standard sample
}

// StandardSample is the small Dutch household described in the package doc.
func StandardSample() Sample { return Sample{set: true} }

// LargeSample is "Gezin", a Dutch family's plan in EUR with exactly n transactions (a transfer
// counts as two, one on each account; a split as one) over years of history: about n/300
// months, at least 12 and at most 240, ending today. It has two salaries a month with a raise
// each year, a mortgage and other bills on fixed days, subscriptions on the credit card, weekly
// shopping on Saturdays (every other week a split), a card payment, a cash withdrawal and
// transfers to savings and to an off-budget investment account every month, yearly bills and
// holiday pay, and hundreds of payees for the everyday spending that fills the rest, more on
// Fridays and Saturdays than on Sundays. Its months are assigned from what came in, so Ready
// to Assign stays small. Scheduled transactions fall after today. The same n on the same day
// gives the same plan, ids included; its dates move with the day like the standard sample's.
// n must be within MinLargeSample and MaxLargeSample.
func LargeSample(n int) Sample { return Sample{set: true, large: n} }

// ParseSample reads a sample's name: "standard", "large" (DefaultLargeSample transactions) or
// "large:N".
func ParseSample(s string) (Sample, error) {
	switch {
	case s == "standard":
		return StandardSample(), nil
	case s == "large":
		return LargeSample(DefaultLargeSample), nil
	case strings.HasPrefix(s, "large:"):
		n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimPrefix(s, "large:"), "_", ""))
		if err != nil {
			return Sample{}, fmt.Errorf("sample %q: the size after large: must be a whole number of transactions", s)
		}
		smp := LargeSample(n)
		return smp, smp.valid()
	}
	return Sample{}, fmt.Errorf("sample must be standard, large or large:N (N transactions), not %q", s)
}

// String is the sample's name as ParseSample reads it ("" for the zero value).
func (smp Sample) String() string {
	switch {
	case !smp.set:
		return ""
	case smp.large > 0:
		return "large:" + strconv.Itoa(smp.large)
	}
	return "standard"
}

func (smp Sample) valid() error {
	if smp.large != 0 && (smp.large < MinLargeSample || smp.large > MaxLargeSample) {
		return fmt.Errorf("the large sample has %d to %d transactions, not %d", MinLargeSample, MaxLargeSample, smp.large)
	}
	return nil
}

// recorded is how a world built from the sample names it (world.Sample).
func (smp Sample) recorded() string {
	if smp.large > 0 {
		return smp.String()
	}
	return ""
}

// build makes the sample's world dated by now.
func (smp Sample) build(now time.Time) *world {
	if smp.large > 0 {
		return &world{UserID: uuidFor("user"), LastUsed: LargePlanID, Plans: []*plan{gezin(now, smp.large)},
			Sample: smp.recorded()}
	}
	return sample(now)
}

// check refuses a sample that cannot be built, or a state (w, read from path) that holds
// another sample than the one asked for: serving it instead would surprise whoever asked.
func (smp Sample) check(w *world, path string) error {
	if err := smp.valid(); err != nil {
		return err
	}
	if !smp.set || w == nil || w.Sample == smp.recorded() {
		return nil
	}
	return fmt.Errorf("sandbox state %s holds the %s sample, not %s: reset it to %s (avenir sandbox reset --sample %s) or choose another state file",
		path, cmp.Or(w.Sample, "standard"), smp, smp, smp)
}

// Sample returns the sample the sandbox's state was built from.
func (s *Sandbox) Sample() Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	smp, err := ParseSample(cmp.Or(s.w.Sample, "standard"))
	if err != nil {
		return StandardSample()
	}
	return smp
}

// resetSample is the sample Reset restores: the one the options name, else the one the state
// holds. Callers hold s.mu.
func (s *Sandbox) resetSample() Sample {
	if s.opts.Sample.set {
		return s.opts.Sample
	}
	smp, err := ParseSample(cmp.Or(s.w.Sample, "standard"))
	if err != nil {
		return StandardSample()
	}
	return smp
}

// ResetTo restores the given sample as Reset does (the knowledge goes on rising, what the API
// created is served as deleted), and makes it the sample later resets restore.
func (s *Sandbox) ResetTo(smp Sample) error {
	if err := smp.valid(); err != nil {
		return err
	}
	if !smp.set {
		smp = StandardSample()
	}
	s.mu.Lock()
	s.opts.Sample = smp
	s.mu.Unlock()
	return s.Reset()
}

// largeKnowledge is the large plan's first server knowledge.
const largeKnowledge = 5000

// gen builds the large sample: the builder of the standard sample, a seeded random source, and
// what the generation tracks to stay plausible (cash is not spent that is not there; the card
// is paid off each month).
type gen struct {
	b      *builder
	rng    *rand.Rand
	first  string // the first month
	months int
	ids    map[string]string // "payee:Name", "category:Name" → id
	accts  map[string]*account
	cash   int64            // Contant's balance
	card   map[string]int64 // month → what was spent on the card
	// scale is what the everyday spending amounts are multiplied by, in thousandths, so that
	// a plan with more transactions a month does not spend more money.
	scale int64
}

func gezin(now time.Time, n int) *plan {
	months := min(max(n/300, 12), 240)
	for {
		g := newGen(now, n, months)
		fixed := g.days(false, nil) // counts, and draws nothing from the random source
		if fixed <= n-n/10 || months == 1 {
			perMonth := int64(n-fixed) / int64(months)
			g.scale = min(max(1000*everydayBudget/(max(perMonth, 1)*meanEveryday), 150), 3000)
			g.days(true, spread(n-fixed, g.first, g.b.today))
			g.finish()
			return g.b.p
		}
		months--
	}
}

func newGen(now time.Time, n, months int) *gen {
	b := newBuilder(LargePlanID, "Gezin", now, largeKnowledge)
	b.p.LastModifiedOn = timestamp(now.Add(-30 * time.Minute))
	g := &gen{b: b, rng: rand.New(rand.NewPCG(0x61766e6972, uint64(n))), first: addMonths(b.current, 1-months),
		months: months, ids: map[string]string{}, accts: map[string]*account{}, cash: 0, card: map[string]int64{}}
	b.p.FirstMonth = g.first

	for _, a := range []struct {
		name, typ string
	}{{"Betaalrekening", ynab.AccountChecking}, {"Gezamenlijke rekening", ynab.AccountChecking},
		{"Spaarrekening", ynab.AccountSavings}, {"Creditcard", ynab.AccountCreditCard}, {"Contant", ynab.AccountCash},
		{"Oude spaarrekening", ynab.AccountSavings}, {"Beleggingsrekening", ynab.AccountOtherAsset}} {
		b.account(a.name, a.typ, a.name == "Betaalrekening")
		g.accts[a.name] = b.p.account(b.id("account", a.name))
	}
	g.accts["Beleggingsrekening"].OnBudget = false
	for _, name := range []string{"Reconciliation Balance Adjustment", "Manual Balance Adjustment"} {
		b.payee(name)
	}
	b.group("Credit Card Payments")
	b.cardPayment("Credit Card Payments", "Creditcard")
	for _, grp := range largeGroups {
		b.group(grp.name)
		for _, c := range grp.categories {
			b.category(grp.name, c, nil)
		}
	}
	b.hide("Fotografie")
	goals := map[string]*goal{
		"Boodschappen":   b.weeklyNeed(cents(10000), time.Saturday),
		"Noodfonds":      {Type: ynab.GoalTargetBalance, Target: cents(2500000)},
		"Nieuwe auto":    {Type: ynab.GoalTargetBalanceByDate, Target: cents(1500000), TargetDate: ptr(addMonths(b.current, 18))},
		"Verzekeringen":  b.need(cents(60000), true, cadenceYearly, ptr(nextOn(time.March, 1, b.today))),
		"Cadeaus":        {Type: ynab.GoalMonthlyFunding, Target: cents(4000)},
		"Onderhoud huis": b.need(cents(15000), false, cadenceMonthly, nil),
	}
	for _, c := range b.p.Categories {
		if gl, ok := goals[c.Name]; ok {
			gl.CreationMonth = g.first
			c.Goal = gl
		}
	}
	return g
}

// largeGroups are the large plan's categories besides the internal and card payment ones.
var largeGroups = []struct {
	name       string
	categories []string
}{
	{"Vaste lasten", []string{"Hypotheek", "Energie", "Water", "Internet", "Telefoon", "Zorgverzekering", "Verzekeringen", "Belastingen", "Kinderopvang"}},
	{"Dagelijks", []string{"Boodschappen", "Restaurants", "Vervoer", "Brandstof", "Persoonlijke verzorging", "Kleding", "Huishouden"}},
	{"Abonnementen", []string{"Streaming", "Muziek", "Sportschool", "Krant", "Cloudopslag"}},
	{"Vrije tijd", []string{"Uitjes", "Hobby's", "Tennis", "Cadeaus", "Vakantie", "Fotografie"}},
	{"Kinderen", []string{"Kinderkleding", "School", "Zakgeld"}},
	{"Sparen", []string{"Noodfonds", "Nieuwe auto", "Onderhoud huis", "Auto-onderhoud", "Beleggen"}},
}

// everydayBudget is what the everyday spending comes to in a month, in cents, whatever the
// number of transactions it takes.
const everydayBudget = 240000

// meanEveryday is what an everyday amount averages before scaling, in cents (see amount).
var meanEveryday = func() int64 {
	var sum, weights int64
	for _, e := range everydays {
		mean := (e.min + e.max) / 2
		sum += int64(e.weight) * (3*mean + e.min + (mean-e.min)/4) / 4
		weights += int64(e.weight)
	}
	return sum / weights
}()

// everyday is one kind of everyday spending: its category, how often (weight), its payees
// (the first ones the usual ones), and its amounts in cents before scaling.
type everyday struct {
	category string
	weight   int
	payees   []string
	min, max int64
	memos    []string
}

var cities = []string{"Utrecht", "Zeist", "Houten", "Nieuwegein", "Amersfoort", "Bilthoven", "Amsterdam", "Den Haag", "Arnhem", "Den Bosch"}

// branches names chains by city, nearby cities first: "Albert Heijn Utrecht", "Jumbo Utrecht", …
func branches(chains []string, nCities int, others ...string) []string {
	var names []string
	for _, city := range cities[:nCities] {
		for _, c := range chains {
			names = append(names, c+" "+city)
		}
	}
	return append(names, others...)
}

func combine(kinds, names []string, others ...string) []string {
	var out []string
	for _, n := range names {
		for _, k := range kinds {
			out = append(out, k+" "+n)
		}
	}
	return append(out, others...)
}

var everydays = []everyday{
	{"Boodschappen", 30, branches([]string{"Albert Heijn", "Jumbo", "Lidl", "Aldi", "Plus", "Dirk", "Ekoplaza"}, 7,
		"Bakkerij Bart", "Slagerij De Wit", "Kaashandel Van der Linden", "Groenteman Verhoef", "Visboer Jan", "Toko Sentosa",
		"Markt Vredenburg", "Bakker Vlaar"), 150, 6500, []string{"Weekmarkt", "Vergeten boodschappen", "Voor het weekend"}},
	{"Restaurants", 13, combine([]string{"Eetcafé", "Restaurant", "Brasserie", "Café", "Lunchroom", "Pizzeria"},
		[]string{"De Zwaan", "Het Anker", "De Gouden Leeuw", "De Kroon", "Het Wapen", "De Molen", "Bij Ons", "De Haven", "Het Pakhuis", "De Smaak"},
		"Thuisbezorgd.nl", "Starbucks", "Loetje", "McDonald's", "Bagels & Beans"), 250, 9000, []string{"Lunch", "Koffie", "Etentje", "Verjaardag"}},
	{"Vervoer", 10, append([]string{"NS", "GVU", "Q-Park", "Swapfiets", "Uber", "Connexxion"}, branches([]string{"P+R"}, 10)...),
		200, 4500, []string{"OV-chipkaart opladen", "Parkeren", "Treinkaartje"}},
	{"Brandstof", 3, branches([]string{"Shell", "BP", "Tango", "TotalEnergies", "Esso"}, 4), 4000, 8500, nil},
	{"Persoonlijke verzorging", 7, branches([]string{"Kruidvat", "Etos", "Trekpleister", "Da"}, 5, "Kapper Knip", "Rituals"),
		150, 3500, []string{"Knippen", "Drogisterij"}},
	{"Kleding", 3, []string{"H&M", "Zara", "C&A", "Zeeman", "WE Fashion", "Decathlon", "Zalando", "Primark"}, 800, 9000, nil},
	{"Huishouden", 9, branches([]string{"HEMA", "Action", "Blokker", "Gamma", "Praxis", "Karwei"}, 4, "IKEA Utrecht", "Xenos"),
		150, 6000, []string{"Schoonmaakspullen", "Lampen", "Tuin"}},
	{"Uitjes", 6, []string{"Pathé Utrecht", "Vue Utrecht", "Centraal Museum", "Rijksmuseum", "Efteling", "Burgers' Zoo",
		"Tivoli Vredenburg", "Dierenpark Amersfoort", "Spoorwegmuseum", "IJssalon Venezia"}, 300, 6000, []string{"Dagje uit", "Bioscoop"}},
	{"Hobby's", 5, []string{"Bol.com", "Boekhandel Broese", "Coolblue", "Steam", "Muziekhandel Van Leest", "Hobbyshop De Knutselhoek",
		"Fotovakhandel Utrecht"}, 300, 7000, nil},
	{"Cadeaus", 4, []string{"Bloemenkraam Jan", "Bol.com", "Hallmark", "Douglas", "Intertoys"}, 300, 5000, []string{"Verjaardag", "Bloemen voor oma"}},
	{"Kinderkleding", 3, []string{"Zeeman", "HEMA Utrecht", "C&A", "Vinted"}, 400, 4500, nil},
	{"School", 2, []string{"Basisschool De Regenboog", "Schoolfotograaf", "Bruna Utrecht"}, 300, 4000, []string{"Schoolreisje", "Ouderbijdrage"}},
	{"Zakgeld", 2, []string{"Speeltuin Oog in Al", "Zwembad De Kwakel", "Kinderboerderij"}, 100, 1500, nil},
}

// amount draws an everyday amount on date, in milliunits, as an outflow; prices rise 2% a year.
func (g *gen) amount(e everyday, date string) int64 {
	c := e.min + g.rng.Int64N(e.max-e.min+1)
	if g.rng.IntN(4) == 0 { // many purchases are small
		c = e.min + (c-e.min)/4
	}
	return -g.grow(cents(max(c*g.scale/1000, 50)), 20, date)
}

func (g *gen) id(kind, name string) string {
	key := kind + ":" + name
	if id, ok := g.ids[key]; ok {
		return id
	}
	var id string
	switch kind {
	case "payee":
		id = g.b.payee(name)
	default:
		id = g.b.id(kind, name)
	}
	g.ids[key] = id
	return id
}

// tx adds a plain transaction (category "" for none) and keeps the cash and the card's
// spending up to date.
func (g *gen) tx(date, account, payee, category string, amount int64, memo string) *txn {
	t := g.b.newTxn(date, account, amount, memo)
	if payee != "" {
		t.PayeeID = ptr(g.id("payee", payee))
	}
	if category != "" {
		t.CategoryID = ptr(g.id("category", category))
	}
	g.track(date, account, amount)
	return t
}

func (g *gen) track(date, account string, amount int64) {
	switch account {
	case "Contant":
		g.cash += amount
	case "Creditcard":
		g.card[monthOf(date)] -= amount
	}
}

// transfer moves amount from one account to another; category is for a transfer that leaves
// the budget (to an off-budget account), which YNAB categorises.
func (g *gen) transfer(date, from, to string, amount int64, category, memo string) {
	out := g.b.newTxn(date, from, -amount, memo)
	in := g.b.newTxn(date, to, amount, memo)
	fa, ta := g.accts[from], g.accts[to]
	out.PayeeID, out.TransferAccountID, out.TransferTransactionID = ptr(ta.TransferPayeeID), ptr(ta.ID), ptr(in.ID)
	in.PayeeID, in.TransferAccountID, in.TransferTransactionID = ptr(fa.TransferPayeeID), ptr(fa.ID), ptr(out.ID)
	if category != "" {
		out.CategoryID = ptr(g.id("category", category))
	}
	for _, side := range []struct {
		account string
		amount  int64
	}{{from, -amount}, {to, amount}} {
		if side.account == "Contant" { // a card payment is not spending on the card
			g.track(date, side.account, side.amount)
		}
	}
}

// split adds a transaction split over lines of the given categories.
func (g *gen) split(date, account, payee string, lines []splitSpec, memo string) {
	var total int64
	for _, l := range lines {
		total += l.amount
	}
	t := g.tx(date, account, payee, "", total, memo)
	for i, l := range lines {
		t.Subs = append(t.Subs, ynab.SubTransaction{ID: uuidFor(t.ID, "line", strconv.Itoa(i)), TransactionID: t.ID,
			Amount: l.amount, Memo: optString(l.memo), CategoryID: ptr(g.id("category", l.category))})
	}
}

// grow raises an amount in milliunits by perMille a year for each whole year since the first
// month, rounded down to cents.
func (g *gen) grow(amount int64, perMille int64, date string) int64 {
	c := amount / 10
	for range monthsBetween(g.first, date) / 12 {
		c = c * (1000 + perMille) / 1000
	}
	return c * 10
}

// jitter varies an amount by up to pct percent either way, to the cent.
func (g *gen) jitter(amount int64, pct int64) int64 {
	c := amount / 10
	spread := max(abs(c)*pct/100, 1)
	return (c + g.rng.Int64N(2*spread+1) - spread) * 10
}

// days walks the days from the first month to today. With emit false it only counts the
// fixed events' transactions; with emit true it adds them, and each day's share of the
// everyday spending after them (fill, indexed by day).
func (g *gen) days(emit bool, fill []int) int {
	count := 0
	i := 0
	for date := g.first; date <= g.b.today; date = addDays(date, 1) {
		count += g.fixed(date, emit)
		if emit {
			for range fill[i] {
				g.everyday(date)
			}
		}
		i++
	}
	return count
}

// spread shares total transactions over the days from first to today, more on Fridays and
// Saturdays and fewer on Sundays, with every day's share a whole number and the shares adding
// up to total exactly.
func spread(total int, first, today string) []int {
	weight := [7]int64{5, 9, 9, 10, 10, 12, 15} // Sunday … Saturday
	var weights []int64
	var sum int64
	for d := first; d <= today; d = addDays(d, 1) {
		t, _ := time.Parse(dateLayout, d)
		weights = append(weights, weight[t.Weekday()])
		sum += weight[t.Weekday()]
	}
	fill := make([]int, len(weights))
	var cum int64
	prev := 0
	for i, w := range weights {
		cum += w
		upto := int(int64(total) * cum / sum)
		fill[i], prev = upto-prev, upto
	}
	return fill
}

// fixed adds (or, with emit false, only counts) the transactions that fall on a date by the
// calendar: salaries, bills, transfers, the weekly shopping, yearly events.
func (g *gen) fixed(date string, emit bool) int {
	count := 0
	t, _ := time.Parse(dateLayout, date)
	day, month := t.Day(), t.Month()
	k := monthsBetween(g.first, date)
	rta := "Inflow: Ready to Assign"
	plain := func(account, payee, category string, amount int64, memo string) {
		count++
		if emit {
			g.tx(date, account, payee, category, amount, memo)
		}
	}
	move := func(from, to string, amount func() int64, category, memo string) {
		count += 2
		if emit {
			g.transfer(date, from, to, amount(), category, memo)
		}
	}
	fixedAmount := func(a int64) func() int64 { return func() int64 { return a } }
	costs := func(c int64) int64 { return g.grow(cents(c), 20, date) } // 2% a year
	pay := func(c int64) int64 { return g.grow(cents(c), 25, date) }   // 2.5% a year
	grows := func(c int64) func() int64 { return func() int64 { return pay(c) } }

	if date == g.first {
		for _, o := range []struct {
			account string
			amount  int64
		}{{"Betaalrekening", 245000}, {"Gezamenlijke rekening", 180000}, {"Spaarrekening", 1200000}, {"Creditcard", 0},
			{"Contant", 12000}, {"Oude spaarrekening", 350000}} {
			plain(o.account, "Starting Balance", rta, cents(o.amount), "")
		}
		plain("Beleggingsrekening", "Starting Balance", "", cents(800000), "") // off budget: no category
	}
	if k == 0 && day == 10 {
		move("Oude spaarrekening", "Spaarrekening", fixedAmount(cents(350000)), "", "Rekening opgeheven")
	}
	switch day {
	case 1:
		plain("Gezamenlijke rekening", "ING Hypotheken", "Hypotheek", cents(-128500), "Hypotheek")
		plain("Betaalrekening", "Zilveren Kruis", "Zorgverzekering", -costs(31240), "")
	case 3:
		if k > 0 {
			prev := addMonths(monthOf(date), -1)
			move("Betaalrekening", "Creditcard", func() int64 { return max(g.card[prev], 0) }, "", "Aflossing creditcard")
		}
	case 5:
		plain("Gezamenlijke rekening", "Vattenfall", "Energie", -costs(16500), "Termijnbedrag")
	case 6:
		move("Betaalrekening", "Contant", fixedAmount(cents(15000)), "", "Geldautomaat")
	case 8:
		plain("Gezamenlijke rekening", "Vitens", "Water", -costs(2450), "")
	case 9:
		plain("Creditcard", "Netflix", "Streaming", -costs(1399), "")
	case 12:
		plain("Gezamenlijke rekening", "Ziggo", "Internet", -costs(5500), "")
	case 14:
		plain("Betaalrekening", "KPN", "Telefoon", -costs(2750), "")
	case 15:
		plain("Creditcard", "Spotify", "Muziek", -costs(1099), "")
	case 17:
		plain("Betaalrekening", "Basic-Fit", "Sportschool", -costs(2999), "")
	case 20:
		plain("Betaalrekening", "NRC", "Krant", -costs(2600), "")
	case 21:
		plain("Creditcard", "Apple", "Cloudopslag", cents(-299), "iCloud+")
	case 24:
		plain("Gezamenlijke rekening", "Gemeente Utrecht", rta, pay(295000), "Salaris")
	case 25:
		plain("Betaalrekening", "Acme Nederland B.V.", rta, pay(348000), "Salaris")
		if month == time.May {
			plain("Betaalrekening", "Acme Nederland B.V.", rta, pay(334080), "Vakantiegeld")
		}
	case 26:
		move("Betaalrekening", "Gezamenlijke rekening", grows(45000), "", "Bijdrage huishouden")
		move("Betaalrekening", "Spaarrekening", grows(25000), "", "Sparen")
	case 27:
		move("Gezamenlijke rekening", "Spaarrekening", grows(30000), "", "Sparen")
	case 28:
		move("Betaalrekening", "Beleggingsrekening", fixedAmount(cents(15000)), "Beleggen", "Maandelijkse inleg")
		plain("Gezamenlijke rekening", "Kinderopvang Partou", "Kinderopvang", -costs(64000), "")
	}
	if t.Weekday() == time.Saturday {
		payee := []string{"Albert Heijn XL Utrecht", "Jumbo Utrecht"}[(t.YearDay()/7)%2]
		count++
		if emit {
			total := g.jitter(-costs(11500), 25)
			if payee == "Jumbo Utrecht" {
				g.tx(date, "Gezamenlijke rekening", payee, "Boodschappen", total, "Weekboodschappen")
			} else {
				home := g.jitter(cents(-1800), 50)
				g.split(date, "Gezamenlijke rekening", payee, []splitSpec{
					{category: "Boodschappen", amount: total - home, memo: "Boodschappen"},
					{category: "Huishouden", amount: home, memo: "Huishoudelijk"}}, "Weekboodschappen")
			}
		}
	}
	switch {
	case month == time.January && day == 28:
		plain("Gezamenlijke rekening", "Gemeente Utrecht", "Belastingen", -costs(41200), "Gemeentelijke belastingen")
	case month == time.March && day == 1:
		plain("Betaalrekening", "Centraal Beheer", "Verzekeringen", -costs(54000), "Autoverzekering")
	case month == time.June && day == 15:
		plain("Betaalrekening", "Belastingdienst", rta, cents(68400), "Teruggave inkomstenbelasting")
	case month == time.July && day == 10:
		plain("Creditcard", "Transavia", "Vakantie", -costs(89000), "Vluchten")
	case month == time.July && day == 12:
		plain("Creditcard", "Booking.com", "Vakantie", -costs(124000), "Vakantiehuis")
	case month == time.September && day == 18:
		plain("Betaalrekening", "Garage Van Dijk", "Auto-onderhoud", -costs(38000), "APK en onderhoud")
	case month == time.December && day == 5:
		plain("Creditcard", "Bol.com", "Cadeaus", -costs(16000), "Sinterklaas")
	case day == 8 && (month-1)%3 == 0:
		plain("Betaalrekening", "Tennisvereniging Smash", "Tennis", -costs(13500), "Contributie kwartaal")
	case day == monthEndDay(t) && month%3 == 0:
		count++
		if emit {
			g.tx(date, "Spaarrekening", "ASN Bank", rta, cents(800+g.rng.Int64N(3000)), "Rente")
		}
	}
	return count
}

func monthEndDay(t time.Time) int { return t.AddDate(0, 1, -t.Day()).Day() }

// nextOn is the first date after the given one that falls on month and day.
func nextOn(month time.Month, day int, after string) string {
	t, _ := time.Parse(dateLayout, after)
	d := time.Date(t.Year(), month, day, 0, 0, 0, 0, time.UTC)
	if !d.After(t) {
		d = d.AddDate(1, 0, 0)
	}
	return dateOf(d)
}

// everyday adds one everyday purchase on date: a category by weight, one of its payees (the
// usual ones more often), an account (cash only when there is cash), and now and then a memo,
// a flag, a split over several categories, or a refund.
func (g *gen) everyday(date string) {
	total := 0
	for _, e := range everydays {
		total += e.weight
	}
	pick := g.rng.IntN(total)
	e := everydays[0]
	for _, x := range everydays {
		if pick < x.weight {
			e = x
			break
		}
		pick -= x.weight
	}
	u := g.rng.Float64()
	payee := e.payees[int(u*u*float64(len(e.payees)))]
	amount := g.amount(e, date)
	account := "Betaalrekening"
	switch r := g.rng.IntN(100); {
	case r < 15:
		account = "Gezamenlijke rekening"
	case r < 40:
		account = "Creditcard"
	case r < 47 && g.cash >= -amount:
		account = "Contant"
	}
	memo := ""
	if len(e.memos) > 0 && g.rng.IntN(12) == 0 {
		memo = e.memos[g.rng.IntN(len(e.memos))]
	}
	recent := daysBetween(date, g.b.today)
	switch r := g.rng.IntN(100); {
	case r < 3 && account != "Contant":
		other := []string{"Huishouden", "Persoonlijke verzorging", "Cadeaus", "Kinderkleding"}[g.rng.IntN(4)]
		second := g.amount(everyday{min: 150, max: 3000}, date)
		g.split(date, account, payee, []splitSpec{{category: e.category, amount: amount}, {category: other, amount: second, memo: other}}, memo)
		return
	case r < 4:
		payee, amount, memo = "Tikkie", -amount, "Terugbetaald"
		if account == "Contant" {
			account = "Betaalrekening"
		}
	}
	category := e.category
	if recent < 10 && g.rng.IntN(10) == 0 {
		category = "" // not yet categorised
	}
	t := g.tx(date, account, payee, category, amount, memo)
	if category == "" || (recent < 5 && g.rng.IntN(3) == 0) {
		t.Approved = false
	}
	if g.rng.IntN(100) == 0 {
		t.FlagColor = ptr([]string{"red", "orange", "yellow", "green", "blue", "purple"}[g.rng.IntN(6)])
	}
}

// finish sets what depends on the whole history: cleared states by age, the months' assigned
// amounts, the scheduled transactions and the bank's waiting transactions.
func (g *gen) finish() {
	p, today := g.b.p, g.b.today
	reconciledBefore, clearedUpTo := addMonths(g.b.current, -1), addDays(today, -3)
	lastReconciled := map[string]string{}
	for _, t := range p.Transactions {
		switch {
		case t.Date < reconciledBefore:
			t.Cleared = ynab.Reconciled
			lastReconciled[t.AccountID] = max(lastReconciled[t.AccountID], t.Date)
		case t.Date <= clearedUpTo:
			t.Cleared = ynab.Cleared
		default:
			t.Cleared = ynab.Uncleared
		}
	}
	for _, a := range p.Accounts {
		if d, ok := lastReconciled[a.ID]; ok && a.OnBudget {
			a.LastReconciledAt = ptr(d + "T17:00:00.000Z")
		}
	}
	g.accts["Oude spaarrekening"].Closed = true
	g.assign()

	nextDay := func(day int) string { // the first date after today on that day of a month
		d := addDays(g.b.current, day-1)
		if d <= today {
			d = addDays(addMonths(g.b.current, 1), day-1)
		}
		return d
	}
	for _, s := range []struct {
		account, payee, category, to string
		day                          int
		amount                       int64
	}{
		{"Gezamenlijke rekening", "ING Hypotheken", "Hypotheek", "", 1, cents(-128500)},
		{"Betaalrekening", "Zilveren Kruis", "Zorgverzekering", "", 1, -g.grow(cents(31240), 20, today)},
		{"Creditcard", "Netflix", "Streaming", "", 9, -g.grow(cents(1399), 20, today)},
		{"Creditcard", "Spotify", "Muziek", "", 15, -g.grow(cents(1099), 20, today)},
		{"Gezamenlijke rekening", "Gemeente Utrecht", "Inflow: Ready to Assign", "", 24, g.grow(cents(295000), 25, today)},
		{"Betaalrekening", "Acme Nederland B.V.", "Inflow: Ready to Assign", "", 25, g.grow(cents(348000), 25, today)},
		{"Gezamenlijke rekening", "", "", "Spaarrekening", 27, -g.grow(cents(30000), 25, today)},
		{"Gezamenlijke rekening", "Kinderopvang Partou", "Kinderopvang", "", 28, -g.grow(cents(64000), 20, today)},
	} {
		st := &ynab.ScheduledTransaction{ID: g.b.id("scheduled", s.payee+s.to), DateFirst: addDays(g.first, s.day-1),
			DateNext: nextDay(s.day), Frequency: "monthly", Amount: s.amount, AccountID: g.accts[s.account].ID}
		if s.to != "" {
			st.PayeeID, st.TransferAccountID = ptr(g.accts[s.to].TransferPayeeID), ptr(g.accts[s.to].ID)
		} else {
			st.PayeeID, st.CategoryID = ptr(g.id("payee", s.payee)), ptr(g.id("category", s.category))
		}
		p.Scheduled = append(p.Scheduled, st)
	}
	bills := nextOn(time.January, 28, today)
	p.Scheduled = append(p.Scheduled, &ynab.ScheduledTransaction{ID: g.b.id("scheduled", "Gemeentelijke belastingen"),
		DateFirst: nextOn(time.January, 28, addDays(g.first, -1)), DateNext: bills, Frequency: "yearly",
		Amount: -g.grow(cents(41200), 20, today), AccountID: g.accts["Gezamenlijke rekening"].ID,
		PayeeID: ptr(g.id("payee", "Gemeente Utrecht")), CategoryID: ptr(g.id("category", "Belastingen"))})
	g.b.bankFeed("Betaalrekening", 1, cents(-2499), "Coolblue", "COOLBLUE B.V. ROTTERDAM NLD")
	g.b.bankFeed("Betaalrekening", 0, cents(-1287), "Albert Heijn Utrecht", "ALBERT HEIJN 1394 UTRECHT NLD")
}

// assign fills the months' assigned amounts the way a careful family budgets, living on last
// month's income: each month gives what came in the month before (the first month: the
// opening balances) to the categories, each what it spends in a month over the twelve
// complete months around it (plus 3% when it varies), and the rest to Noodfonds (taken from it when short). In
// the first month the yearly bills also get their first year up front. So Ready to Assign is
// this month's income so far, plus 2,000.00 kept back, less what was overspent.
func (g *gen) assign() {
	p := g.b.p
	rta := p.readyToAssign().ID
	starting := g.id("payee", "Starting Balance")
	income := make([]int64, g.months)
	spent := map[string][]int64{}
	var opening int64
	for _, t := range p.Transactions {
		if a := p.account(t.AccountID); !a.OnBudget {
			continue
		}
		k := monthsBetween(g.first, t.Date)
		for _, l := range t.lines() {
			switch {
			case l.categoryID == nil:
			case *l.categoryID == rta && t.PayeeID != nil && *t.PayeeID == starting:
				opening += l.amount
			case *l.categoryID == rta:
				income[k] += l.amount
			default:
				if spent[*l.categoryID] == nil {
					spent[*l.categoryID] = make([]int64, g.months)
				}
				spent[*l.categoryID][k] -= l.amount
			}
		}
	}
	yearly, fixed := map[string]bool{}, map[string]bool{}
	for _, name := range []string{"Vakantie", "Verzekeringen", "Belastingen", "Auto-onderhoud", "Tennis"} {
		yearly[g.id("category", name)] = true
	}
	for _, name := range []string{"Hypotheek", "Energie", "Water", "Internet", "Telefoon", "Zorgverzekering", "Kinderopvang",
		"Streaming", "Muziek", "Sportschool", "Krant", "Cloudopslag", "Beleggen"} {
		fixed[g.id("category", name)] = true // bills of known amounts need no margin
	}
	noodfonds := g.id("category", "Noodfonds")
	complete := g.months - 1 // the current month is not over
	for k := range g.months {
		m := addMonths(g.first, k)
		lo := max(0, k-6)
		hi := min(lo+12, complete)
		lo = max(0, hi-12)
		if hi <= lo {
			lo, hi = 0, g.months
		}
		left := opening - cents(200000)
		if k > 0 {
			left = income[k-1]
		}
		for _, c := range p.Categories {
			var sum int64
			if spent[c.ID] != nil {
				for _, v := range spent[c.ID][lo:hi] {
					sum += v
				}
			}
			if c.Internal || c.CardAccountID != "" || c.ID == noodfonds || sum <= 0 {
				continue
			}
			margin := int64(103)
			if fixed[c.ID] {
				margin = 100
			}
			a := ceilDiv(sum*margin/100/int64(hi-lo), 1000) * 1000 // whole euros
			if k == 0 && yearly[c.ID] {
				a = ceilDiv(sum*int64(12)/int64(hi-lo), 1000) * 1000
			}
			p.setAssigned(m, c.ID, a)
			left -= a
		}
		p.setAssigned(m, noodfonds, left)
	}
}
