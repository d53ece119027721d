// Package confirm decides whether a write may reach YNAB: every confirmed tool
// calls [Asker.Ask] with the exact change it is about to make, and writes only when
// the Decision says Proceed. Any error, absence or doubt means: write nothing.
//
//	d, err := asker.Ask(ctx, req, confirm.Question{Tool: "set_category_budget",
//		PlanID: planID, Subject: subject, Preview: preview, Args: argsWithoutCode,
//		Confirmation: in.Confirmation})
//	switch {
//	case err != nil:
//		return nil, Out{}, err // a *jsonrpc.Error must stay unwrapped
//	case d.Input != nil:
//		return d.Input, Out{}, nil // the input-required round trip
//	case d.Reply != nil:
//		return nil, replyOut(d.Reply), nil // declined, or a code to show the user
//	}
//	// d.Proceed: journal with d.Mode and d.Fingerprint, then write.
//
// # What is confirmed
//
// The subject is the change as data, after every name is resolved to an id and
// every amount converted to milliunits. Its [Fingerprint] binds an answer or a code
// to that change in that plan and nothing else. The plan is computed again from
// fresh data at every call, so if the plan moved between the question and the
// answer, the fingerprints differ and Ask fails with [ErrPlanChanged].
//
// # Four ways to ask
//
// Ask reads the client's capabilities and protocol version from the request itself.
//
//  1. Form elicitation on protocol 2026-07-28 or later ([ModeMRTR]). A server cannot
//     send the client a request of its own during a call, so the first call returns
//     an input-required result: one input request, "confirm", a form with one
//     boolean "value" whose message is the preview, and a sealed request state. The
//     client shows the form and calls again with the same arguments, the answer and
//     the state.
//  2. Form elicitation on an older protocol ([ModeElicit]). The go-sdk turns the same
//     input-required result into an elicitation/create sent during the call and
//     calls the handler once more with the answer, in the same shape as in 1. It
//     does so only once, which is why everything is asked in one form.
//  3. No elicitation ([ModeCode]). The first call returns confirmation_required with
//     the preview and a code. The agent shows the preview, and only if the user
//     agrees calls again with the same arguments plus the code (see [AgentRule]).
//     A code is 8 random bytes in base64url (11 characters), lives 600 seconds on
//     the monotonic clock, confirms one fingerprint, is spent at its first use even
//     when it does not match, and lives in memory only (but see Many instances).
//  4. MCP Apps without elicitation ([ModeApp], card.go). A host that declares the extension
//     io.modelcontextprotocol/ui with the MIME type text/html;profile=mcp-app, and no form
//     elicitation, draws avenir's card (ui://avenir/confirm.html, which every confirmed tool
//     names in _meta.ui.resourceUri). The first call returns confirmation_pending with the
//     preview and a handle (16 random bytes) that confirms nothing by itself, since hosts hand
//     the card the result without _meta or structured content, or with _meta replaced, and the
//     model reads it too. The card, drawn, calls the app-only tool open_confirmation with the
//     handle ([Asker.OpenCard]): that says it is on screen, and gives it the change and a fresh
//     one-time token (16 random bytes, 600 seconds, spent at its first use, bound to the
//     fingerprint, the tool and the arguments); its buttons call the app-only
//     answer_confirmation with the token. [Asker.RedeemCard] spends it and gives back the call
//     it was issued for, which the tools run again with [WithCard] in the context, so the
//     answer goes through Ask like a form's: the same fingerprint check, lock, fresh read,
//     journal; [Asker.SettleCard] keeps the outcome for the card mounted again. The same change
//     asked again 10 s or more after its first pending answer, with no card for it opened, is
//     §3's cancel (a code; [ErrCardNotShown] under RequireElicitation). What the card relies on
//     is the MCP Apps specification (modelcontextprotocol/ext-apps,
//     specification/2026-01-26/apps.mdx): a tool whose _meta.ui.visibility is ["app"] is offered
//     to the view and never to the model. Elicitation comes first where a client declares both;
//     AlwaysCode still forces codes; under RequireElicitation a card's answer counts as the
//     person's own.
//
// # How answers are read
//
// A form accepted with the box ticked (a JSON true) goes ahead. Accepted without
// the box ticked, or declined, writes nothing. Cancelled, the call falls back to a
// code: dismissing is not refusing. Headless clients declare elicitation and then
// dismiss every question; reading that as "no" would make every write impossible
// for them, while a code still puts the user's agreement, through the agent,
// between the preview and the write. Only with RequireElicitation
// (AVENIR_MCP_REQUIRE_ELICITATION=1), where nothing but the user's own answer
// counts, is a dismissed question declined; codes are then refused outright, and a
// client that cannot ask cannot write (-32021 for a 2026-07-28 client, a tool
// error for older ones).
//
// # Codes only
//
// Some clients declare elicitation and never show the question: they decline it
// at once, or drop it until it times out. Through them every write would be
// declined without the user seeing why. With AlwaysCode (AVENIR_MCP_CONFIRM=code)
// Ask never sends a form and confirms every change by code, as for a client
// without elicitation; a request state that arrives anyway was not issued and is
// refused. AlwaysCode and RequireElicitation contradict each other, and [New]
// refuses the pair with [ErrContradictoryModes].
//
// # Sealed request state
//
// The go-sdk passes requestState through untouched, so Ask seals it itself:
// base64url(JSON claims) "." base64url(HMAC-SHA256), over the fingerprint, the tool
// name, a digest of the arguments, an expiry 600 s ahead on the monotonic clock
// and a random nonce, under a key drawn at [New] (but see Many instances). A state
// that is modified, truncated, expired, already answered (its nonce is spent at the
// first verified answer, whatever it was), from another Asker, or for another tool
// or other arguments is refused with JSON-RPC invalid params. The seal gives
// integrity, not secrecy; the state holds nothing secret.
//
// # Many instances
//
// Hosted avenir runs several instances behind one address, and the answer to a
// question may reach another instance than the one that asked. So every single-use
// token — code, state nonce, card token — goes through a [Store], by its
// [TokenHash] (SHA-256 over its kind and itself: a Store never sees a token in the
// clear, and a token of one kind is unknown as another), and is used once by the
// Store's atomic Take. The default is a [MemoryStore] of the Asker's own, which is
// the behaviour above. Hosted avenir gives every instance one Store in PostgreSQL
// (confirm/pg, each person's through For) and one Options.Key, [DeriveKey] of
// AVENIR_MCP_SECRET_KEY, so any instance opens the states and redeems the codes and
// cards another issued, each exactly once. A restart then forgets nothing live.
// The cards' handles and the changes asked on cards are records rather than tokens:
// read again by every open and answer (Load), and changed only by a compare-and-swap
// on their bytes (Swap), so that two instances opening, answering or superseding one
// card at once agree on one outcome; the first pending answer's time and whether a
// card was opened count for every instance.
//
// Monotonic readings do not cross machines, so an Asker given a Store counts every
// lifetime on the wall clock: the tickets' expiries, and the sealed states', which
// are then Unix times. The instances' clocks must agree to well within 600 s (NTP
// does). Any Store failure fails closed: nothing is issued or confirmed, the
// caller gets an error wrapping [ErrStore], and Options.Logger the cause.
//
// # Canonical JSON
//
// [Canonical] sorts object keys by their UTF-8 bytes, drops all white space,
// writes numbers as int64 integers (anything else is an error), escapes in
// strings only '"', '\' and control characters, and sorts every array by its
// elements' canonical bytes, so the same changes in another order give the same
// fingerprint. [Fingerprint] is the hex SHA-256 of "[" + canonical(plan id) + "," +
// canonical(subject) + "]": that outer pair is positional and never sorted.
//
// Test vector (checked by TestFingerprintVector): plan id
// "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0" and the subject
//
//	{"transactions": [
//	   {"payee": "Market", "amount": -86400, "date": "2026-09-12", "memo": "Kaas & \"brood\""},
//	   {"payee": "Café Zon", "amount": 2500000, "date": "2026-09-01"}],
//	 "approved": true, "account_id": "acc-betaal"}
//
// hash the bytes
//
//	["0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",{"account_id":"acc-betaal","approved":true,"transactions":[{"amount":-86400,"date":"2026-09-12","memo":"Kaas & \"brood\"","payee":"Market"},{"amount":2500000,"date":"2026-09-01","payee":"Café Zon"}]}]
//
// to the fingerprint 68e30b7792c10417cc8a174e1dd5624c36ec511dd9368835d70d6d2672287f1e.
package confirm
