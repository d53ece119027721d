// Package sandbox emulates YNAB's API v1 (spec 1.86) over HTTP, with a sample plan: it is the
// double every avenir test uses, and what `avenir serve --sandbox` lets a newcomer try avenir
// on without a YNAB account.
//
//	sb, srv := sandboxtest.New(t, sandbox.Options{}) // package sandboxtest: dated by its FixedNow, closed when t ends
//	req, _ := http.NewRequest("GET", srv.URL+"/plans/last-used/accounts", nil) // srv.URL ends in /v1
//	req.Header.Set("Authorization", "Bearer any-token")
//	sb.InjectFault(sandbox.Fault{Method: "PATCH", Status: 503}) // the next PATCH gets YNAB's 503
//
// It answers like YNAB: the same paths under /v1 (a plan_id may be "last-used"), the `data`
// wrapper, null for empty fields, `*_formatted`/`*_currency` beside every amount except inside
// the plan export, YNAB's error body and ids, server_knowledge and delta requests, X-Rate-Limit
// on the answers when a rate limit is set (not on the 429 itself). Given the same Now and the
// same requests it gives the same ids and the same answers.
//
// # The API
//
// Every operation of YNAB's OpenAPI spec 1.86 (44), with its shapes, and, as YNAB still does
// for its SDKs before the rename of budgets to plans (spec 1.79; ynab/ynab-sdk-js#194,
// ynab/ynab-sdk-python#21), every path under /budgets as well, whose answers name their members
// budgets, default_budget and budget; plus the deprecated POST /budgets/{id}/transactions/bulk
// that YNAB's JS SDK still ships (DeprecatedApi; answer {"bulk":{transaction_ids,
// duplicate_import_ids}}). A 404 404.1 says "There is no … in YNAB's API" only for a path the
// API lacks; a 404.2 names the kind and id of what was not found. Transaction lists default
// since_date to one year before today (spec 1.85); in the category and payee lists, where the
// spec makes category_name a string, a row without a category is "Uncategorized". The
// fidelity folder runs YNAB's official JS SDK (npm ynab 4.1.0 and 2.10.0) against the sandbox
// and validates every answer against the spec.
//
// # The sample
//
// "Huishouden" (PlanID, the last-used plan) is a Dutch household in EUR (€1.234,56, dates
// DD-MM-YYYY). Its months are the current one and the two before (all assigned), plus the next
// (empty). Dates are relative to Now: the two past months on fixed days, the current month's
// transactions a number of days before today (never before the 1st). On sandboxtest.FixedNow
// the current month is 2026-09-01.
//
// Accounts (all on budget): Betaalrekening (checking, linked to the bank), Spaarrekening
// (savings), Creditcard (creditCard), Contant (cash), Oude rekening (checking, closed, 0).
//
// Categories, with what is assigned in each of the three months (targets in brackets):
//
//	Internal Master Category  Inflow: Ready to Assign (internal)
//	Credit Card Payments      Creditcard 0
//	Vaste lasten              Huur 1150.00, Energie 145.00, Internet 55.00, Zorgverzekering 298.00
//	Dagelijks                 Boodschappen 400.00 [NEED 100.00 weekly, Saturdays], Restaurants 120.00,
//	                          Vervoer 150.00, Persoonlijke verzorging 60.00
//	Vrije tijd                Tennis 45.00, Uitjes 80.00, Streaming 32.00, Fotografie 0 (hidden)
//	Sparen                    Vakantie 150.00 (no target; 1500.00 in the first month),
//	                          Noodfonds 200.00 [TB 15000.00] (12100.00 in the first month),
//	                          Nieuwe fiets 100.00 [TBD 1200.00 by the 1st, 8 months on],
//	                          Cadeaus 40.00 [MF 40.00], Onderhoud huis 50.00 [NEED 100.00 monthly, refill],
//	                          Tandarts 70.00 [NEED 350.00 by the 15th, 4 months on],
//	                          Verzekeringen 35.00 [NEED 420.00 yearly, due the 1st, 5 months on]
//
// Ready to Assign in the current month is 727.83. There are no categories Huisdieren or Sport.
//
// Transactions: 83, of which 82 on open accounts (Betaalrekening 63, Creditcard 11,
// Spaarrekening 3, Contant 5; Oude rekening 1): opening balances in the first month, salaries
// to Ready to Assign, 4 uncategorized ones (3 plain ones on Betaalrekening, 1 on Creditcard), 5
// unapproved, 4 flagged (red, orange, blue, purple), 1 split (Albert Heijn, in the previous
// month), 1 transfer Betaalrekening → Spaarrekening of 250.00 (both sides), and a plain outflow
// of 86.40 to Market on Betaalrekening three days before today (Boodschappen). On
// Betaalrekening exactly 49 transactions are cleared, the newest 4 uncleared, the older 10
// reconciled. Five scheduled transactions fall in the next month (rent, health insurance,
// Netflix, a salary, the tennis club every 3 months). The first import from the bank brings in
// 2 transactions on Betaalrekening (today and yesterday, cleared, unapproved, uncategorized).
// There are four payee locations (Albert Heijn twice, Jumbo, Market) and, per assigned month,
// a money movement group on its first day moving each category's amount from Ready to Assign.
//
// "Vakantiehuis" (SecondPlanID) is a holiday home: two accounts, four categories, 10
// transactions.
//
// # Derived figures
//
//   - An account's balance is the sum of its transactions; the cleared balance that of its
//     cleared and reconciled ones; the uncleared balance that of the rest.
//   - Only transactions on on-budget accounts count for categories and months, each split line
//     on its own. A category's activity in a month is the sum of its lines in that month. Its
//     balance (available) is what it carried over, plus what was assigned, plus its activity. A
//     positive balance carries into the next month; a negative one does not: it comes off Ready
//     to Assign in the next month.
//   - Credit card payment categories, simplified: all categorised spending on the card (funded
//     or not) adds to the card's payment category, and transfers into the card from an
//     on-budget account (payments) come off it. Their activity is left out of the month's
//     activity, so card spending is not counted twice.
//   - A month's income is what flowed into "Inflow: Ready to Assign" in it; its budgeted the
//     sum assigned; its activity that of all categories except those above; uncategorized
//     transactions count in none of them. Ready to Assign (to_be_budgeted, also the balance of
//     the internal category) = income up to the month − everything assigned, in every month
//     including later ones − the overspending of the earlier months.
//   - Age of money: the money on the on-budget accounts at the month's end (or today) divided by
//     the month's average daily spending, in whole days; none for a month without spending.
//   - Targets, for one month, with "set aside" the carry-over plus the month's assigned amount:
//     TB: funded = set aside, left and under-funded = target − funded. TBD and NEED with a
//     date (yearly ones too): the month needs (target − carry-over) spread over the months left
//     up to the date (rounded up to cents); under-funded = that − assigned; left = target −
//     set aside. MF and NEED "set aside another" (needs whole amount): funded = assigned.
//     NEED "refill up to": funded = set aside. Weekly NEED targets count per weekday in the
//     month. The percentage is funded ÷ target, at most 100. A target applies to every month
//     (the sandbox keeps no target history).
//
// # Deltas
//
// Each plan has one server_knowledge, raised by every write. After a write the sandbox
// recomputes everything it serves and records, per entity (derived figures included), the
// knowledge at which its served form last changed. A delta request returns exactly the entities
// changed after the given knowledge, deleted ones with deleted: true; a full read leaves deleted
// ones out. Category groups (GET /categories) and months (the export) come in a delta when they
// or any of their categories changed, with only the changed categories. Merging deltas into an
// earlier full read (by id; months by month) gives a fresh full read. When a new day changes
// served figures (a new month), that too raises the knowledge. Reset keeps the knowledge
// rising, and serves what the API had created as deleted, so caches follow.
//
// # Writes
//
// Writes follow YNAB's API and its validation (400 with a readable detail, "(index: N)" for an
// item of a bulk write, 404.2 for an unknown id in the path, 400 for one in the body). The
// choices where YNAB's documentation is silent:
//
//   - A write is all or nothing: a refused bulk write changes nothing.
//   - A new transaction is uncleared and unapproved unless it says otherwise. An uncategorized
//     transaction has category_id and category_name null; a split's category_name is "Split".
//   - On an existing split, date, amount and category_id are ignored (as YNAB documents);
//     subtransactions are refused with YNAB's "Updating subtransactions on an existing split
//     transaction is not supported." A PUT with subtransactions turns a plain transaction
//     into a split (YNAB's own JS example does so); deleting a split deletes its lines. A transfer
//     on a split line is not supported.
//   - A transfer (payee_id = an account's transfer_payee_id) gets its mirror on the other
//     account, kept on the same date with the opposite amount; deleting either side deletes
//     both. A transfer cannot move to another account.
//   - import_id duplicates, deleted transactions included: 409 for a single create, skipped and
//     listed in duplicate_import_ids for a bulk one. payee_name finds a payee by exact name or
//     creates one.
//   - Matching, as YNAB documents it for import_id: a transaction created with an import_id is
//     imported, and YNAB matches it to a user-entered one (no import_id) on the same account
//     with the same amount dated within ±10 days; a bank import (POST /transactions/import)
//     matches the same way, and an imported transaction never matches another imported one.
//     The sandbox takes the closest date, then the earliest entered, and never matches a split
//     or a transfer. YNAB hides the imported half of a matched pair, so the pair shows as one
//     transaction: the user-entered one, keeping its id, date, payee, category, memo, flag and
//     approval, taking the import's import_id and import payee names, cleared if the import was
//     (unless reconciled), with matched_transaction_id naming the hidden import, which no list
//     or GET serves. A create that matched answers with that transaction (its id in
//     transaction_ids), and so does a bank import.
//   - Setting cleared to reconciled does not change an account's last_reconciled_at.
//   - goal_needs_whole_amount: null leaves it as it is.
//   - "last-used" is always Huishouden (Gezin in the large sample).
//   - A subtransaction (a row of type subtransaction in the category and payee lists) cannot be
//     written: PUT and DELETE answer 404, a PATCH item 400 ("does not exist", as YNAB answers
//     for a subtransaction id, ynab/ynab-sdk-js#149), each saying it is a split's line.
//   - POST /accounts creates the account on budget (otherAsset and otherLiability as tracking
//     accounts) with its transfer payee and a cleared "Starting Balance" transaction of the
//     balance dated today, to Ready to Assign (none for a card or a tracking account); a credit
//     card gets its payment category in the group of the others ("Credit Card Payments").
//   - Payees: YNAB's reserved names ("Starting Balance", "Manual Balance Adjustment",
//     "Reconciliation Balance Adjustment", anything starting "Transfer :") are refused, for a
//     new payee, a rename or a payee_name that would create one; transfer payees and YNAB's own
//     payees cannot be renamed; a name another payee has is refused (YNAB's apps would merge
//     the two; the API has no merge). Names are at most 500 characters.
//   - Scheduled transactions: the date (the next occurrence) must be after today and at most 5
//     years ahead (spec); only never, daily, weekly, monthly and yearly are written, and a
//     schedule that repeats otherwise (every3Months, set in YNAB's apps) cannot be PUT at all
//     (this rule is the project's reference, not the spec's text, whose enum lists all 13 for
//     reading); split scheduled transactions cannot be created and credit card payment
//     categories are refused (spec). A PUT keeps the fields it leaves out; a transfer payee
//     sets transfer_account_id. Every scheduled transaction is served with subtransactions,
//     [] when it is not a split, as the spec requires.
//
// # Money movements
//
// YNAB's money movements (spec 1.78+) are read-only, and YNAB does not document which changes
// of assigned amounts create one. The sandbox records one for every change of a category's
// assigned amount (PATCH /months/{month}/categories/{id}), in a group of its own: an increase
// from Ready to Assign (from_category_id null) to the category, a decrease from the category to
// Ready to Assign (to_category_id null), the amount positive. A move between two categories
// done as two PATCHes, the only way the API allows, reads as YNAB's "move money": when the
// second PATCH is the very next write on the plan, in the same month, with the opposite amount,
// within a minute, the two become one movement from the one category to the other. Movements
// are not in the plan export and have no delta requests (the spec has no
// last_knowledge_of_server for them); their answers carry the plan's server_knowledge.
//
// # Sources
//
// YNAB's spec 1.86 (its descriptions of import_id, subtransactions, split dates and amounts,
// scheduled dates, goal_frequency, since_date); YNAB's SDK pull requests for the /budgets paths
// (ynab/ynab-sdk-js#194, ynab/ynab-sdk-python#21); ynab/ynab-sdk-js#149 (subtransaction ids);
// ynab/ynab-sdk-js#205 (the JS SDK before 4.4.0 has no money_movements accessor);
// jeffsawatzky/ynab-cli#90 (since_date's default); wesselt/bunq2ynab#51 (the date error);
// YNAB's support thread on matching API transactions, as quoted in
// gitviola/ynab-bank-importer#45 ("it hides the imported transaction and auto-matches").
//
// # What the sandbox still simplifies
//
//   - Credit card payment categories (see Derived figures): no overspending on a card turned
//     into debt, no card payment target other than MF.
//   - Age of money and target progress are the simple readings above; targets have no history,
//     no snoozing, no DEBT targets.
//   - No payee rename rules: payee_name never goes through one. Payee locations are read-only
//     fixtures of the sample.
//   - Scheduled transactions never come due: date_next does not move and nothing is entered on
//     its date. A split scheduled transaction can only come from a saved state.
//   - A transfer on a split line is not supported; transfers cannot move to another account.
//   - No pending transactions, no debt account fields (debt_* are null), no flag names, no
//     month notes; plans, settings and accounts beyond their creation cannot be changed, as
//     in YNAB.
//   - Subscription states (403.1, 403.2) exist only as injected faults.
//   - "default" is not a plan_id alias (it needs OAuth's default plan selection, which the
//     sandbox's OAuth does not offer); no implicit grant, no Restricted Mode's 25 users.
//   - The rate limit is one for the whole sandbox, not one per access token.
//
// # Requests and faults
//
// Every request that arrives is counted (Counts), faulted ones too. A fault's Drop and
// DropAfter abort the connection (http.ErrAbortHandler), so they need a real server (Listen or
// sandboxtest.New), not a bare ServeHTTP; note that Go's HTTP client retries an idempotent request
// once on a reused connection that closes without an answer. The rate limit counts the
// authorised requests it admits over a rolling hour of Now; a refused one does not count.
//
// Faults are also written as rules (ParseFault, FaultSyntax), on `avenir sandbox serve
// --fault` or on the control endpoint beside /v1 (/_sandbox/faults, /_sandbox/counts,
// /_sandbox/export_cost), which answers loopback requests with the sandbox's token and is
// itself neither counted, rate-limited nor faulted. With Options.ExportCost the full plan
// export fails with YNAB's 503 once its cost passes 30 seconds, as YNAB's does on a large plan.
//
// # OAuth and users
//
// With Options.OAuthClients the sandbox also plays YNAB's OAuth (oauth.go cites what it
// follows): /oauth/authorize shows a consent page where any login name signs in, and
// /oauth/token takes the authorization code (PKCE optional) and refresh grants, rotating
// refresh tokens. Each login name is a user of their own, who starts with their own copy of
// the sample: the same plans and money, every id renamed (UserPlanID gives a copy's plan
// ids), so one user's ids are not found in another's plans (404.2). An access token reaches
// only its user's plans, for 2 hours of Now (ExpireTokens, or POST /_sandbox/oauth/expire,
// ends them early; RevokeTokens, or /_sandbox/oauth/revoke, revokes refresh tokens too); one
// granted scope=read-only cannot write (403.3). Options.Token is then the personal access
// token of the sandbox's own user, and no other token is accepted. Users, their copies and
// their grants (hashed) are saved in the state file; Reset restores every copy.
//
// # The large sample
//
// Options.Sample = LargeSample(n) serves "Gezin" (LargePlanID, the last-used and only plan)
// instead: exactly n transactions over years, built and dated like the sample above (see
// LargeSample), for clients and benchmarks that need a plan of a real size.
package sandbox
