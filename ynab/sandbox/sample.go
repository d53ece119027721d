package sandbox

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/avenir-mcp/avenir/ynab"
)

// The sample plans' fixed ids.
const (
	// PlanID is the id of "Huishouden", the sample household and the last-used plan.
	PlanID = "5b3f2c1e-8d4a-4f6b-9c7e-1a2b3c4d5e6f"
	// SecondPlanID is the id of "Vakantiehuis", a small second plan.
	SecondPlanID = "9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4"
)

// Both sample plans start with these server knowledges, different so that a client mixing up
// the plans' knowledge is caught.
const (
	sampleKnowledge       = 1000
	secondSampleKnowledge = 200
)

// sampleUserID is the id of the sample's user, who made every change of the sample.
var sampleUserID = uuidFor("user")

// sample builds the sample world dated by now.
func sample(now time.Time) *world {
	return &world{
		UserID:   sampleUserID,
		LastUsed: PlanID,
		Plans:    []*plan{huishouden(now), vakantiehuis(now)},
	}
}

// euroFormat is how both sample plans write money: €1.234,56.
var euroFormat = ynab.CurrencyFormat{ISOCode: "EUR", ExampleFormat: "123.456,78", DecimalDigits: 2,
	DecimalSeparator: ",", SymbolFirst: true, GroupSeparator: ".", CurrencySymbol: "€", DisplaySymbol: true}

// cents turns an amount in euro cents into milliunits, which keeps the sample readable.
func cents(c int64) int64 { return c * 10 }

func huishouden(now time.Time) *plan {
	b := newBuilder(PlanID, "Huishouden", now, sampleKnowledge)
	b.p.LastModifiedOn = timestamp(now.Add(-time.Hour))

	b.account("Betaalrekening", ynab.AccountChecking, true)
	b.account("Spaarrekening", ynab.AccountSavings, false)
	b.account("Creditcard", ynab.AccountCreditCard, false)
	b.account("Contant", ynab.AccountCash, false)
	b.account("Oude rekening", ynab.AccountChecking, false)
	b.closeAccount("Oude rekening")
	b.payee("Reconciliation Balance Adjustment")
	b.payee("Manual Balance Adjustment")

	b.group("Credit Card Payments")
	b.cardPayment("Credit Card Payments", "Creditcard")
	b.group("Vaste lasten")
	b.category("Vaste lasten", "Huur", nil)
	b.category("Vaste lasten", "Energie", nil)
	b.category("Vaste lasten", "Internet", nil)
	b.category("Vaste lasten", "Zorgverzekering", nil)
	b.group("Dagelijks")
	b.category("Dagelijks", "Boodschappen", b.weeklyNeed(cents(10000), time.Saturday))
	b.category("Dagelijks", "Restaurants", nil)
	b.category("Dagelijks", "Vervoer", nil)
	b.category("Dagelijks", "Persoonlijke verzorging", nil)
	b.group("Vrije tijd")
	b.category("Vrije tijd", "Tennis", nil)
	b.category("Vrije tijd", "Uitjes", nil)
	b.category("Vrije tijd", "Streaming", nil)
	b.category("Vrije tijd", "Fotografie", nil)
	b.hide("Fotografie")
	b.group("Sparen")
	b.category("Sparen", "Vakantie", nil)
	b.category("Sparen", "Noodfonds", &goal{Type: ynab.GoalTargetBalance, Target: cents(1500000)})
	b.category("Sparen", "Nieuwe fiets", &goal{Type: ynab.GoalTargetBalanceByDate, Target: cents(120000),
		TargetDate: ptr(addMonths(b.current, 8))})
	b.category("Sparen", "Cadeaus", &goal{Type: ynab.GoalMonthlyFunding, Target: cents(4000)})
	b.category("Sparen", "Onderhoud huis", b.need(cents(10000), false, cadenceMonthly, nil))
	b.category("Sparen", "Tandarts", b.need(cents(35000), true, cadenceNone, ptr(addDays(addMonths(b.current, 4), 14))))
	b.category("Sparen", "Verzekeringen", b.need(cents(42000), true, cadenceYearly, ptr(addMonths(b.current, 5))))

	for k := range 3 {
		m := b.month(k)
		for name, amount := range map[string]int64{
			"Huur": 115000, "Energie": 14500, "Internet": 5500, "Zorgverzekering": 29800,
			"Boodschappen": 40000, "Restaurants": 12000, "Vervoer": 15000, "Persoonlijke verzorging": 6000,
			"Tennis": 4500, "Uitjes": 8000, "Streaming": 3200,
			"Vakantie": 15000, "Noodfonds": 20000, "Nieuwe fiets": 10000, "Cadeaus": 4000,
			"Onderhoud huis": 5000, "Tandarts": 7000, "Verzekeringen": 3500,
		} {
			b.assign(m, name, cents(amount))
		}
	}
	b.assign(b.month(0), "Vakantie", cents(150000))
	b.assign(b.month(0), "Noodfonds", cents(1210000))
	b.sampleMovements()

	huishoudenTransactions(b)

	b.statuses("Betaalrekening", 4, 49)
	b.statuses("Spaarrekening", 0, 2)
	b.statuses("Creditcard", 2, 6)
	b.statuses("Contant", 0, 4)
	b.statuses("Oude rekening", 0, 0)

	for _, s := range []struct {
		payee, category, frequency string
		next                       string
		amount                     int64
	}{
		{"Woonstichting De Key", "Huur", "monthly", b.nextMonthDay(1), cents(-115000)},
		{"Zilveren Kruis", "Zorgverzekering", "monthly", b.nextMonthDay(1), cents(-29800)},
		{"Netflix", "Streaming", "monthly", b.nextMonthDay(9), cents(-1399)},
		{"Gemeente Utrecht", "Inflow: Ready to Assign", "monthly", b.nextMonthDay(24), cents(284017)},
		{"Tennisvereniging Smash", "Tennis", "every3Months", b.nextMonthDay(8), cents(-13500)},
	} {
		b.schedule("Betaalrekening", s.payee, s.category, s.frequency, s.next, s.amount)
	}
	for _, l := range []struct{ payee, lat, long string }{
		{"Albert Heijn", "52.0907", "5.1214"}, {"Albert Heijn", "52.0812", "5.1375"},
		{"Jumbo", "52.1003", "5.1092"}, {"Market", "52.0894", "5.1180"},
	} {
		b.payeeLocation(l.payee, l.lat, l.long)
	}
	b.bankFeed("Betaalrekening", 1, cents(-1999), "Coolblue", "COOLBLUE B.V. ROTTERDAM NLD")
	b.bankFeed("Betaalrekening", 0, cents(-435), "Albert Heijn", "ALBERT HEIJN 1394 UTRECHT NLD")
	return b.p
}

func huishoudenTransactions(b *builder) {
	rta := "Inflow: Ready to Assign"
	salary := func(when string) {
		b.tx(txSpec{on: when, account: "Betaalrekening", payee: "Gemeente Utrecht", category: rta, amount: cents(284017), memo: "Salaris"})
		b.tx(txSpec{on: when, account: "Betaalrekening", payee: "Acme Nederland B.V.", category: rta, amount: cents(221540), memo: "Salaris"})
	}
	bills := func(when func(day int) string) {
		b.tx(txSpec{on: when(1), account: "Betaalrekening", payee: "Woonstichting De Key", category: "Huur", amount: cents(-115000), memo: "Huur"})
		b.tx(txSpec{on: when(1), account: "Betaalrekening", payee: "Zilveren Kruis", category: "Zorgverzekering", amount: cents(-29800)})
		b.tx(txSpec{on: when(5), account: "Betaalrekening", payee: "Vattenfall", category: "Energie", amount: cents(-14500), memo: "Termijnbedrag"})
		b.tx(txSpec{on: when(9), account: "Betaalrekening", payee: "Netflix", category: "Streaming", amount: cents(-1399)})
		b.tx(txSpec{on: when(12), account: "Betaalrekening", payee: "Ziggo", category: "Internet", amount: cents(-5500)})
		b.tx(txSpec{on: when(17), account: "Betaalrekening", payee: "Spotify", category: "Streaming", amount: cents(-1799)})
	}
	m0 := func(day int) string { return b.on(0, day) }
	m1 := func(day int) string { return b.on(1, day) }
	cur := func(day int) string { return b.ago(max(20-day, 0)) }

	// The month of the opening balances.
	for _, acct := range []struct {
		name   string
		amount int64
	}{{"Betaalrekening", cents(185000)}, {"Spaarrekening", cents(650000)}, {"Creditcard", 0}, {"Contant", cents(12000)}, {"Oude rekening", 0}} {
		b.tx(txSpec{on: m0(1), account: acct.name, payee: "Starting Balance", category: rta, amount: acct.amount})
	}
	bills(m0)
	for _, t := range []txSpec{
		{on: m0(3), payee: "Albert Heijn", category: "Boodschappen", amount: cents(-6437)},
		{on: m0(6), payee: "Jumbo", category: "Boodschappen", amount: cents(-3812)},
		{on: m0(8), payee: "Tennisvereniging Smash", category: "Tennis", amount: cents(-13500), memo: "Contributie kwartaal"},
		{on: m0(10), payee: "Albert Heijn", category: "Boodschappen", amount: cents(-7180)},
		{on: m0(13), payee: "NS", category: "Vervoer", amount: cents(-4260), memo: "OV-chipkaart opladen"},
		{on: m0(14), payee: "HEMA", category: "Persoonlijke verzorging", amount: cents(-1595)},
		{on: m0(15), payee: "Restaurant De Zwaan", category: "Restaurants", amount: cents(-6850)},
		{on: m0(18), payee: "Lidl", category: "Boodschappen", amount: cents(-2945)},
		{on: m0(19), payee: "Bakkerij Bart", category: "Boodschappen", amount: cents(-940)},
		{on: m0(20), payee: "Kruidvat", category: "Persoonlijke verzorging", amount: cents(-1249)},
		{on: m0(22), payee: "Jumbo", category: "Boodschappen", amount: cents(-4703)},
		{on: m0(26), payee: "Efteling", category: "Uitjes", amount: cents(-8900), memo: "Dagje uit"},
		{on: m0(27), payee: "Albert Heijn", category: "Boodschappen", amount: cents(-5516)},
		{on: m0(28), payee: "Pathé", category: "Uitjes", amount: cents(-2400)},
	} {
		t.account = "Betaalrekening"
		b.tx(t)
	}
	salary(m0(24))

	bills(m1)
	for _, t := range []txSpec{
		{on: m1(2), payee: "HEMA", category: "Persoonlijke verzorging", amount: cents(-1150)},
		{on: m1(4), payee: "Albert Heijn", category: "Boodschappen", amount: cents(-6894)},
		{on: m1(7), payee: "Jumbo", category: "Boodschappen", amount: cents(-4127)},
		{on: m1(8), payee: "Bakkerij Bart", category: "Boodschappen", amount: cents(-780)},
		{on: m1(11), payee: "Albert Heijn", amount: cents(-11235), memo: "Weekboodschappen en drogisterij", split: []splitSpec{
			{category: "Boodschappen", amount: cents(-8235), memo: "Boodschappen"},
			{category: "Persoonlijke verzorging", amount: cents(-3000), memo: "Drogisterij"}}},
		{on: m1(14), payee: "NS", category: "Vervoer", amount: cents(-3820)},
		{on: m1(15), payee: "Tennisvereniging Smash", category: "Tennis", amount: cents(-2500), memo: "Baanhuur"},
		{on: m1(16), payee: "Lidl", category: "Boodschappen", amount: cents(-3371)},
		{on: m1(19), payee: "Restaurant Loetje", category: "Restaurants", amount: cents(-5400), flag: "blue"},
		{on: m1(21), payee: "Jumbo", category: "Boodschappen", amount: cents(-5288)},
		{on: m1(22), payee: "Kapper Knip", category: "Persoonlijke verzorging", amount: cents(-3200)},
		{on: m1(27), payee: "Albert Heijn", category: "Boodschappen", amount: cents(-6109)},
		{on: m1(28), payee: "Tikkie", category: "Restaurants", amount: cents(1850), memo: "Etentje terugbetaald", flag: "orange"},
	} {
		t.account = "Betaalrekening"
		b.tx(t)
	}
	salary(m1(24))
	b.tx(txSpec{on: m1(26), account: "Betaalrekening", transferTo: "Spaarrekening", amount: cents(-25000), memo: "Sparen"})

	// The current month, up to today.
	bills(cur)
	salary(b.ago(10))
	for _, t := range []txSpec{
		{on: b.ago(13), payee: "Albert Heijn", category: "Boodschappen", amount: cents(-5962)},
		{on: b.ago(11), payee: "Jumbo", category: "Boodschappen", amount: cents(-4410)},
		{on: b.ago(7), payee: "Restaurant De Zwaan", category: "Restaurants", amount: cents(-4250)},
		{on: b.ago(6), payee: "Bol.com", amount: cents(-3499), unapproved: true},
		{on: b.ago(5), payee: "Lidl", category: "Boodschappen", amount: cents(-2735)},
		{on: b.ago(4), payee: "NS", category: "Vervoer", amount: cents(-2280)},
		{on: b.ago(3), payee: "Market", category: "Boodschappen", amount: cents(-8640), memo: "Weekmarkt"},
		{on: b.ago(2), payee: "Tikkie", amount: cents(-1250), unapproved: true},
		{on: b.ago(1), payee: "Kruidvat", amount: cents(-847)},
		{on: b.ago(0), payee: "Albert Heijn", category: "Boodschappen", amount: cents(-2315), unapproved: true},
	} {
		t.account = "Betaalrekening"
		b.tx(t)
	}

	for _, t := range []txSpec{
		{on: m0(7), payee: "Shell", category: "Vervoer", amount: cents(-6840)},
		{on: m0(16), payee: "Thuisbezorgd.nl", category: "Restaurants", amount: cents(-3145)},
		{on: m0(23), payee: "Booking.com", category: "Vakantie", amount: cents(-32000), memo: "Hotel Porto", flag: "purple"},
		{on: m1(6), payee: "Albert Heijn", category: "Boodschappen", amount: cents(-4520)},
		{on: m1(13), payee: "Shell", category: "Vervoer", amount: cents(-7105)},
		{on: m1(20), payee: "Pathé", category: "Uitjes", amount: cents(-2700)},
		{on: m1(23), payee: "Bol.com", amount: cents(-5999), flag: "red"},
		{on: b.ago(12), payee: "Thuisbezorgd.nl", category: "Restaurants", amount: cents(-2890)},
		{on: b.ago(5), payee: "Shell", category: "Vervoer", amount: cents(-6430), unapproved: true},
		{on: b.ago(2), payee: "HEMA", category: "Persoonlijke verzorging", amount: cents(-1895), unapproved: true},
	} {
		t.account = "Creditcard"
		b.tx(t)
	}
	b.tx(txSpec{on: m1(28), account: "Spaarrekening", payee: "ASN Bank", category: rta, amount: cents(412), memo: "Rente"})
	for _, t := range []txSpec{
		{on: m0(11), payee: "Bakkerij Bart", category: "Boodschappen", amount: cents(-680)},
		{on: m1(3), payee: "Q-Park", category: "Vervoer", amount: cents(-350), memo: "Parkeren centrum"},
		{on: m1(18), payee: "IJssalon Venezia", category: "Uitjes", amount: cents(-750)},
		{on: b.ago(4), payee: "Bloemenkraam Jan", category: "Cadeaus", amount: cents(-1200), memo: "Bloemen voor oma"},
	} {
		t.account = "Contant"
		b.tx(t)
	}
}

func vakantiehuis(now time.Time) *plan {
	b := newBuilder(SecondPlanID, "Vakantiehuis", now, secondSampleKnowledge)
	b.p.LastModifiedOn = timestamp(now.AddDate(0, 0, -20))
	b.account("Rekening vakantiehuis", ynab.AccountChecking, false)
	b.account("Kas", ynab.AccountCash, false)
	b.group("Vakantiehuis")
	for _, name := range []string{"Schoonmaak", "Onderhoud", "Energie", "Belastingen"} {
		b.category("Vakantiehuis", name, nil)
	}
	for k := range 3 {
		for name, amount := range map[string]int64{"Schoonmaak": 12000, "Onderhoud": 10000, "Energie": 8500, "Belastingen": 10500} {
			b.assign(b.month(k), name, cents(amount))
		}
	}
	b.sampleMovements()
	rta := "Inflow: Ready to Assign"
	for _, t := range []txSpec{
		{on: b.on(0, 1), account: "Rekening vakantiehuis", payee: "Starting Balance", category: rta, amount: cents(300000)},
		{on: b.on(0, 1), account: "Kas", payee: "Starting Balance", category: rta, amount: cents(20000)},
		{on: b.on(0, 10), account: "Rekening vakantiehuis", payee: "Verhuur Texel", category: rta, amount: cents(85000), memo: "Week 1"},
		{on: b.on(0, 14), account: "Rekening vakantiehuis", payee: "Schoonmaakbedrijf Duin", category: "Schoonmaak", amount: cents(-12000)},
		{on: b.on(0, 20), account: "Rekening vakantiehuis", payee: "Eneco", category: "Energie", amount: cents(-8500)},
		{on: b.on(1, 5), account: "Kas", payee: "Gamma", category: "Onderhoud", amount: cents(-4560)},
		{on: b.on(1, 10), account: "Rekening vakantiehuis", payee: "Verhuur Texel", category: rta, amount: cents(92000), memo: "Week 2"},
		{on: b.on(1, 14), account: "Rekening vakantiehuis", payee: "Schoonmaakbedrijf Duin", category: "Schoonmaak", amount: cents(-12000)},
		{on: b.on(1, 20), account: "Rekening vakantiehuis", payee: "Eneco", category: "Energie", amount: cents(-8500)},
		{on: b.on(1, 25), account: "Rekening vakantiehuis", payee: "Gemeente Texel", category: "Belastingen", amount: cents(-31000), memo: "Toeristenbelasting"},
	} {
		b.tx(t)
	}
	b.statuses("Rekening vakantiehuis", 0, 3)
	b.statuses("Kas", 0, 1)
	return b.p
}

// builder assembles a sample plan with ids derived from names.
type builder struct {
	p       *plan
	today   string
	current string
	seq     int // transactions added, for their ids and their order within a day
	order   map[string]int
}

func newBuilder(id, name string, now time.Time, knowledge int64) *builder {
	today := dateOf(now)
	b := &builder{today: today, current: monthOf(today), order: map[string]int{}}
	b.p = &plan{ID: id, Name: name, FirstMonth: b.month(0), DateFormat: ynab.DateFormat{Format: "DD-MM-YYYY"},
		CurrencyFormat: euroFormat, Knowledge: knowledge, Assigned: map[string]map[string]int64{}}
	b.payee("Starting Balance")
	b.p.Groups = append(b.p.Groups, &ynab.CategoryGroup{ID: b.id("group", "Internal Master Category"),
		Name: "Internal Master Category", Internal: true})
	b.p.Categories = append(b.p.Categories, &category{ID: b.id("category", "Inflow: Ready to Assign"),
		GroupID: b.id("group", "Internal Master Category"), Name: "Inflow: Ready to Assign", Internal: true})
	return b
}

func (b *builder) id(kind, name string) string { return uuidFor(b.p.ID, kind, name) }

// month returns the k-th month of the sample: 0 is two months before the current one.
func (b *builder) month(k int) string { return addMonths(b.current, k-2) }

// on dates a transaction in one of the two complete months before the current one.
func (b *builder) on(k, day int) string { return addDays(b.month(k), day-1) }

// ago dates a transaction in the current month, days before today, but not before the month.
func (b *builder) ago(days int) string { return max(addDays(b.today, -days), b.current) }

// nextMonthDay is a day of the next month: always after today.
func (b *builder) nextMonthDay(day int) string { return addDays(addMonths(b.current, 1), day-1) }

func (b *builder) account(name, typ string, linked bool) {
	a := &account{ID: b.id("account", name), Name: name, Type: typ, OnBudget: true,
		TransferPayeeID: b.id("payee", "Transfer : "+name), DirectImportLinked: linked}
	b.p.Accounts = append(b.p.Accounts, a)
	b.p.Payees = append(b.p.Payees, &ynab.Payee{ID: a.TransferPayeeID, Name: "Transfer : " + name, TransferAccountID: ptr(a.ID)})
}

func (b *builder) closeAccount(name string) { b.p.account(b.id("account", name)).Closed = true }

// payee returns the id of the named payee, adding it on first use.
func (b *builder) payee(name string) string {
	id := b.id("payee", name)
	if b.p.payee(id) == nil {
		b.p.Payees = append(b.p.Payees, &ynab.Payee{ID: id, Name: name})
	}
	return id
}

func (b *builder) group(name string) {
	b.p.Groups = append(b.p.Groups, &ynab.CategoryGroup{ID: b.id("group", name), Name: name})
}

func (b *builder) category(group, name string, g *goal) {
	if g != nil {
		g.CreationMonth = b.month(0)
	}
	b.p.Categories = append(b.p.Categories, &category{ID: b.id("category", name), GroupID: b.id("group", group), Name: name, Goal: g})
}

func (b *builder) cardPayment(group, card string) {
	b.category(group, card, nil)
	b.p.category(b.id("category", card)).CardAccountID = b.id("account", card)
}

func (b *builder) hide(name string) { b.p.category(b.id("category", name)).Hidden = true }

func (b *builder) need(target int64, wholeAmount bool, cadence int, date *string) *goal {
	g := &goal{Type: ynab.GoalNeed, Target: target, NeedsWholeAmount: ptr(wholeAmount), Cadence: ptr(cadence),
		CadenceFrequency: ptr(1), TargetDate: date}
	if cadence == cadenceNone {
		g.CadenceFrequency = nil
	}
	return g
}

func (b *builder) weeklyNeed(target int64, day time.Weekday) *goal {
	g := b.need(target, true, cadenceWeekly, nil)
	g.Day = ptr(int(day))
	return g
}

func (b *builder) assign(month, categoryName string, amount int64) {
	b.p.setAssigned(month, b.id("category", categoryName), amount)
}

// txSpec is a sample transaction: a category name ("" for none), or split lines, or a transfer.
type txSpec struct {
	on, account, payee, category, memo, flag string
	transferTo                               string
	amount                                   int64
	unapproved                               bool
	split                                    []splitSpec
}

type splitSpec struct {
	category, memo string
	amount         int64
}

func (b *builder) tx(s txSpec) {
	t := b.newTxn(s.on, s.account, s.amount, s.memo)
	t.Approved = !s.unapproved
	if s.flag != "" {
		t.FlagColor = ptr(s.flag)
	}
	if s.payee != "" {
		t.PayeeID = ptr(b.payee(s.payee))
	}
	if s.category != "" {
		t.CategoryID = ptr(b.id("category", s.category))
	}
	for i, l := range s.split {
		t.Subs = append(t.Subs, ynab.SubTransaction{ID: uuidFor(t.ID, "line", strconv.Itoa(i)), TransactionID: t.ID,
			Amount: l.amount, Memo: optString(l.memo), CategoryID: ptr(b.id("category", l.category))})
	}
	if s.transferTo != "" {
		from, to := b.p.account(b.id("account", s.account)), b.p.account(b.id("account", s.transferTo))
		mirror := b.newTxn(s.on, s.transferTo, -s.amount, s.memo)
		t.PayeeID, t.TransferAccountID, t.TransferTransactionID = ptr(to.TransferPayeeID), ptr(to.ID), ptr(mirror.ID)
		mirror.PayeeID, mirror.TransferAccountID, mirror.TransferTransactionID = ptr(from.TransferPayeeID), ptr(from.ID), ptr(t.ID)
	}
}

func (b *builder) newTxn(date, accountName string, amount int64, memo string) *txn {
	b.seq++
	t := &txn{TransactionSummary: ynab.TransactionSummary{ID: b.id("transaction", strconv.Itoa(b.seq)), Date: date,
		Amount: amount, Memo: optString(memo), Cleared: ynab.Cleared, Approved: true,
		AccountID: b.id("account", accountName)}}
	b.order[t.ID] = b.seq
	b.p.Transactions = append(b.p.Transactions, t)
	return t
}

// statuses sets the cleared state of an account's transactions by age: the newest uncleared
// ones are uncleared, the next cleared ones cleared, the older ones reconciled; and the account
// was last reconciled on the day of its newest reconciled transaction.
func (b *builder) statuses(accountName string, uncleared, cleared int) {
	a := b.p.account(b.id("account", accountName))
	var ts []*txn
	for _, t := range b.p.Transactions {
		if t.AccountID == a.ID {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, func(x, y *txn) int {
		return cmp.Or(cmp.Compare(y.Date, x.Date), cmp.Compare(b.order[y.ID], b.order[x.ID]))
	})
	for i, t := range ts {
		switch {
		case i < uncleared:
			t.Cleared = ynab.Uncleared
		case i < uncleared+cleared:
			t.Cleared = ynab.Cleared
		default:
			t.Cleared = ynab.Reconciled
			if a.LastReconciledAt == nil {
				a.LastReconciledAt = ptr(t.Date + "T17:00:00.000Z")
			}
		}
	}
}

func (b *builder) schedule(accountName, payee, categoryName, frequency, next string, amount int64) {
	b.p.Scheduled = append(b.p.Scheduled, &ynab.ScheduledTransaction{ID: b.id("scheduled", payee),
		DateFirst: addMonths(next, -3), DateNext: next, Frequency: frequency, Amount: amount,
		AccountID: b.id("account", accountName), PayeeID: ptr(b.payee(payee)), CategoryID: ptr(b.id("category", categoryName))})
}

// payeeLocation records a place where the mobile app saw a payee (in Utrecht).
func (b *builder) payeeLocation(payee, latitude, longitude string) {
	b.p.PayeeLocations = append(b.p.PayeeLocations, &ynab.PayeeLocation{ID: b.id("payee_location", payee+"@"+latitude+","+longitude),
		PayeeID: b.payee(payee), Latitude: latitude, Longitude: longitude})
}

func (b *builder) bankFeed(accountName string, daysAgo int, amount int64, payee, statement string) {
	b.p.BankFeed = append(b.p.BankFeed, bankItem{AccountID: b.id("account", accountName), DaysAgo: daysAgo,
		Amount: amount, PayeeName: payee, Statement: statement})
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
