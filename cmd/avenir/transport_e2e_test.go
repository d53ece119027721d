package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/journal"
)

// The transport of the real binary under abuse: every malformed line a client could send, and
// random arguments for every tool on both protocol eras. Nothing a client sends ends the
// session, loses a write or shows Go's insides.
//
// The default run makes about 2,500 calls. AVENIR_FUZZ_CALLS=N makes about N per era and
// AVENIR_FUZZ_SEED=S changes the random arguments.

// proc is `avenir serve --sandbox` spoken to line by line.
type proc struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  io.ReadCloser
	stderr  *lockedBuffer
	mu      sync.Mutex
	answers map[string]map[string]json.RawMessage // by id, as JSON
	nullIDs []map[string]json.RawMessage
	arrived chan struct{}
	eof     chan struct{}
	badLine string // a line on stdout that is not a JSON-RPC object
}

func startServe(t *testing.T, env []string) *proc {
	t.Helper()
	cmd := exec.Command(avenirBinary(t), "serve", "--sandbox")
	cmd.Env = env
	p := &proc{t: t, cmd: cmd, stderr: &lockedBuffer{}, answers: map[string]map[string]json.RawMessage{},
		arrived: make(chan struct{}, 1), eof: make(chan struct{})}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.stdout = stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	go func() {
		defer close(p.eof)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			p.mu.Lock()
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
				p.badLine = sc.Text()
			} else if id := string(m["id"]); id == "" || id == "null" {
				p.nullIDs = append(p.nullIDs, m)
			} else {
				p.answers[id] = m
			}
			p.mu.Unlock()
			select {
			case p.arrived <- struct{}{}:
			default:
			}
		}
	}()
	return p
}

func (p *proc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("writing to avenir: %v\nstderr:\n%s", err, tail(p.stderr.String()))
	}
}

// waitFor waits until the answers with the given ids and n null-id answers have arrived.
func (p *proc) waitFor(ids []string, nulls int, within time.Duration) {
	p.t.Helper()
	deadline := time.After(within)
	for {
		p.mu.Lock()
		missing := 0
		var first []string // the first few unanswered ids, for the failure
		for _, id := range ids {
			if _, ok := p.answers[id]; !ok {
				missing++
				if len(first) < 5 {
					first = append(first, id)
				}
			}
		}
		gotNulls := len(p.nullIDs)
		p.mu.Unlock()
		if missing == 0 && gotNulls >= nulls {
			return
		}
		select {
		case <-p.arrived:
		case <-p.eof:
			p.t.Fatalf("avenir closed stdout with %d of %d calls unanswered and %d of %d null-id errors; stderr:\n%s",
				missing, len(ids), gotNulls, nulls, tail(p.stderr.String()))
		case <-deadline:
			p.t.Fatalf("%d of %d calls unanswered (first ids %v) and %d of %d null-id errors after %v; stderr:\n%s",
				missing, len(ids), first, gotNulls, nulls, within, tail(p.stderr.String()))
		}
	}
}

func (p *proc) answer(id string) map[string]json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.answers[id]
}

// exit closes stdin (or signals) and returns the exit code.
func (p *proc) exit(sig os.Signal) int {
	p.t.Helper()
	if sig == nil {
		p.stdin.Close()
	} else if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	// Every answer is read before Wait, which closes the pipe.
	select {
	case <-p.eof:
	case <-time.After(90 * time.Second):
		p.t.Fatalf("avenir did not exit; stderr:\n%s", tail(p.stderr.String()))
	}
	err := p.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// era speaks one protocol: 2025-11-25 initializes a session; 2026-07-28 puts the protocol
// version and capabilities into every request's _meta.
type era struct {
	name string
	meta string // the _meta member of params, or ""
}

var (
	era1125 = era{name: "2025-11-25"}
	era0728 = era{name: "2026-07-28", meta: `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"fuzz","version":"1"}}`}
)

// params writes a request's params with the era's _meta and the given members.
func (e era) params(members string) string {
	switch {
	case e.meta == "":
		return "{" + members + "}"
	case members == "":
		return "{" + e.meta + "}"
	}
	return "{" + e.meta + "," + members + "}"
}

func (e era) open(t *testing.T, p *proc) {
	t.Helper()
	if e.meta != "" {
		return
	}
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`)
	p.waitFor([]string{`"init"`}, 0, 30*time.Second)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// malformed lines, each with the id its error must carry (null where none can be read).
func malformedLines() []struct{ line, id string } {
	return []struct{ line, id string }{
		{"hello", "null"}, {"42", "null"}, {`"tools/list"`, "null"}, {"null", "null"}, {"[]", "null"},
		{`{"id":"m1","method":"ping"}`, `"m1"`}, {`{"jsonrpc":"1.0","id":"m2","method":"ping"}`, `"m2"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null"}, {`{"jsonrpc":"2.0","id":"m3","method":42}`, `"m3"`},
		{`{"jsonrpc":"2.0","id":"m4","method":"ping"}{"jsonrpc":"2.0","id":"m5","method":"ping"}`, `"m4"`},
		{"\x00\x00\x00", "null"}, {`{"jsonrpc":"2.0","id":"m6","method":"tools/call","params":{"name":"list_pl`, "null"},
		{`{"jsonrpc":"2.0","id":"m7","method":"ping","params":{"_meta":{"x":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}}}`, `"m7"`},
		{`{"jsonrpc":"2.0","id":"m8","method":"ping","params":{"x":"` + strings.Repeat("x", 16<<20) + `"}}`, `"m8"`},
		{`{"jsonrpc":"2.0","id":"m9","method":"tools/call","params":{"name":"set_category_budget","arguments":{"category":"Restaurants","amount":1,"amount":900}}}`, `"m9"`},
		{`{"jsonrpc":"2.0","id":"m10","method":"tools/call","params":{"name":5}}`, `"m10"`},
		{`{"jsonrpc":"2.0","id":"m11","method":"tools/call","params":[]}`, `"m11"`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "null"},
	}
}

func TestServeSurvivesMalformedAndRandomInput(t *testing.T) {
	calls := 1200 // per era
	if n, err := strconv.Atoi(os.Getenv("AVENIR_FUZZ_CALLS")); err == nil && n > 0 {
		calls = n
	}
	seed := uint64(20261202)
	if s, err := strconv.ParseUint(os.Getenv("AVENIR_FUZZ_SEED"), 10, 64); err == nil {
		seed = s
	}
	for _, e := range []era{era1125, era0728} {
		t.Run(e.name, func(t *testing.T) {
			t.Logf("seed %d (AVENIR_FUZZ_SEED), %d calls (AVENIR_FUZZ_CALLS)", seed, calls)
			env, _ := isolatedEnv(t)
			p := startServe(t, env)
			e.open(t, p)

			// What the random arguments draw on: the tools and their schemas, and real ids.
			p.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list","params":` + e.params("") + `}`)
			p.send(`{"jsonrpc":"2.0","id":"txs","method":"tools/call","params":` + e.params(`"name":"list_transactions","arguments":{"limit":30}`) + `}`)
			p.waitFor([]string{`"list"`, `"txs"`}, 0, 30*time.Second)
			tools := parseTools(t, p.answer(`"list"`))
			g := &argGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), ids: transactionIDs(t, p.answer(`"txs"`))}

			var ids []string
			toolOf := map[string]string{}
			confirmed := map[string]bool{}
			for _, tool := range tools {
				confirmed[tool.Name] = !tool.Annotations.ReadOnly && !unconfirmed[tool.Name]
			}
			nulls := 0
			bad := malformedLines()
			for i := range calls {
				if i%(calls/len(bad)+1) == 0 && len(bad) > 0 {
					p.send(bad[0].line)
					if bad[0].id == "null" {
						nulls++
					} else {
						ids = append(ids, bad[0].id)
					}
					bad = bad[1:]
				}
				tool := tools[g.r.IntN(len(tools))]
				id := strconv.Itoa(i)
				ids, toolOf[id] = append(ids, id), tool.Name
				args := g.arguments(tool.InputSchema)
				if os.Getenv("AVENIR_FUZZ_SHOW") == id {
					t.Logf("call %s: %s %.2000s", id, tool.Name, args)
					if f := os.Getenv("AVENIR_FUZZ_SHOW_FILE"); f == "" {
						t.Errorf("AVENIR_FUZZ_SHOW goes with AVENIR_FUZZ_SHOW_FILE, the file to write the call's arguments to")
					} else if err := os.WriteFile(f, []byte(args), 0o600); err != nil {
						t.Errorf("AVENIR_FUZZ_SHOW_FILE: %v", err)
					}
				}
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}`, id,
					e.params(`"name":"`+tool.Name+`","arguments":`+args)))
				if i%200 == 199 { // keep the pipe from filling while avenir works through the calls
					p.waitFor(ids[:len(ids)-100], 0, 60*time.Second)
				}
			}
			for _, b := range bad {
				p.send(b.line)
				if b.id == "null" {
					nulls++
				} else {
					ids = append(ids, b.id)
				}
			}
			p.waitFor(ids, nulls, 120*time.Second)

			// Every answer is one JSON-RPC object; no error shows Go; no confirmed write applied.
			p.mu.Lock()
			if p.badLine != "" {
				t.Errorf("avenir wrote a line that is not a JSON-RPC message: %.300q", p.badLine)
			}
			checked := 0
			for id, m := range p.answers {
				for _, text := range errorTexts(m) {
					checked++
					if problem := goInsides(text); problem != "" {
						t.Errorf("call %s (%s): the error shows %s: %.500s", id, toolOf[id], problem, text)
					}
				}
				if tool := toolOf[id]; confirmed[tool] && strings.Contains(string(m["result"]), `\"status\":\"applied\"`) {
					t.Errorf("call %s: %s applied without a confirmation: %.300s", id, tool, m["result"])
				}
			}
			for _, m := range p.nullIDs {
				for _, text := range errorTexts(m) {
					if problem := goInsides(text); problem != "" {
						t.Errorf("an error shows %s: %.500s", problem, text)
					}
				}
			}
			p.mu.Unlock()
			t.Logf("%d calls answered, %d error texts checked", len(ids), checked)

			if code := p.exit(nil); code != 0 {
				t.Fatalf("avenir exited %d at the end of its input; stderr:\n%s", code, tail(p.stderr.String()))
			}
			if strings.Contains(p.stderr.String(), "panic") {
				t.Errorf("avenir logged a panic:\n%s", tail(p.stderr.String()))
			}
			for _, op := range journalOps(t, env) {
				if !unconfirmed[op.Tool] {
					t.Errorf("the journal holds a %s (%s) that no one confirmed", op.Tool, op.Status)
				}
			}
		})
	}
}

// unconfirmed are the writes that need no confirmation (spec/tools.md).
var unconfirmed = map[string]bool{"approve_transactions": true, "import_transactions": true}

type toolInfo struct {
	Name        string         `json:"name"`
	InputSchema map[string]any `json:"inputSchema"`
	Annotations struct {
		ReadOnly bool `json:"readOnlyHint"`
	} `json:"annotations"`
}

func parseTools(t *testing.T, m map[string]json.RawMessage) []toolInfo {
	t.Helper()
	var r struct {
		Tools []toolInfo `json:"tools"`
	}
	if err := json.Unmarshal(m["result"], &r); err != nil || len(r.Tools) < 20 {
		t.Fatalf("tools/list: %v %s", err, m["result"])
	}
	return r.Tools
}

func transactionIDs(t *testing.T, m map[string]json.RawMessage) []string {
	t.Helper()
	var r struct {
		StructuredContent struct {
			Transactions []struct {
				ID string `json:"id"`
			} `json:"transactions"`
		} `json:"structuredContent"`
	}
	mustDecode(t, m["result"], &r)
	var ids []string
	for _, t := range r.StructuredContent.Transactions {
		ids = append(ids, t.ID)
	}
	return ids
}

// errorTexts returns the texts a client reads of an error: a JSON-RPC error's message, or a
// tool result's text when it is an error.
func errorTexts(m map[string]json.RawMessage) []string {
	var texts []string
	var e struct {
		Message string `json:"message"`
		Data    any    `json:"data"`
	}
	if json.Unmarshal(m["error"], &e) == nil && m["error"] != nil {
		texts = append(texts, e.Message)
		if e.Data != nil {
			texts = append(texts, string(mustJSON(e.Data)))
		}
	}
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(m["result"], &r) == nil && r.IsError {
		for _, c := range r.Content {
			texts = append(texts, c.Text)
		}
	}
	return texts
}

// goInsides names what in text comes from Go rather than from avenir's words, or "".
func goInsides(text string) string {
	for _, bad := range []string{"reflect", "map[", "struct field", "struct {", "%!", "<invalid", "<nil>", "json: ", "unmarshal",
		"mcp.", "jsonrpc2", "jsonschema", "tools.", "ynab.", "[]string", "[]interface", "int64", "float64", "interface {}", "goroutine", ".go:"} {
		if strings.Contains(text, bad) {
			return fmt.Sprintf("%q", bad)
		}
	}
	run, last := 0, rune(0)
	for _, r := range text {
		if r == last {
			run++
		} else {
			run, last = 1, r
		}
		if run > 81 {
			return "an argument echoed at length"
		}
	}
	if len(text) > 4000 {
		return fmt.Sprintf("%d bytes", len(text))
	}
	return ""
}

func journalOps(t *testing.T, env []string) []journal.Operation {
	t.Helper()
	stdout, stderr, code := runBinary(t, env, "journal", "list", "--json", "--limit", "100000")
	if code != 0 {
		t.Fatalf("avenir journal list: exit %d: %s", code, stderr)
	}
	var ops []journal.Operation
	dec := json.NewDecoder(strings.NewReader(stdout))
	for dec.More() {
		var op journal.Operation
		if err := dec.Decode(&op); err != nil {
			t.Fatalf("avenir journal list --json: %v", err)
		}
		ops = append(ops, op)
	}
	return ops
}

// argGen makes random tool arguments as JSON text: mostly of the schema's shape with values
// drawn from the sample plan and from the edges (huge, empty, wrong type, null, repeated keys,
// unknown keys, deep nesting).
type argGen struct {
	r   *rand.Rand
	ids []string
}

var (
	genStrings = []string{"Restaurants", "restaurants ", "Dagelijks: Restaurants", "Betaalrekening", "Spaarrekening", "Tennis",
		"Vakantie", "Inflow: Ready to Assign", "Transfer : Spaarrekening", "Albert Heijn", "current", "next", "previous",
		"2026-13", "2026-02-30", "2026-11", "today", "yesterday", "1999-01-01", "red", "none", "purple", "pink", "flagged",
		"uncategorized", "unapproved", "uncleared", "cleared", "reconciled", "monthly", "weekly", "yearly", "daily", "",
		" ", "\u0000", "é", "😀", "\u202e", "ＲＥＳＴＡＵＲＡＮＴＳ", "00000000-0000-4000-8000-000000000000", "01J0000000000000000000000",
		"applied", "prepared", "150", "-12.34"}
	genAmounts = []string{`150`, `"150.00"`, `-12.34`, `"-12.34"`, `0`, `-0`, `"9223372036854775.80"`, `"9007199254740.99"`,
		`9007199254740.991`, `"9007199254740.992"`, `1e3`, `"1,50"`, `""`, `"abc"`, `1.005`, `"` + strings.Repeat("9", 400) + `"`,
		`99999999999999999999999`, `-9007199254740.99`, `"  30 "`, `0.001`, `"+5"`}
	genNumbers = []string{`0`, `-1`, `1`, `20`, `500`, `501`, `1.5`, `1e308`, `99999999999999999999`, `-9223372036854775808`, `1234567890123e0`}
)

func (g *argGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

// arguments makes the arguments of a tool with schema s.
func (g *argGen) arguments(s map[string]any) string {
	switch g.r.IntN(40) {
	case 0:
		return g.junk(0)
	case 1:
		return "null"
	case 2:
		return "{}"
	}
	return g.object(s, 0)
}

func (g *argGen) object(s map[string]any, depth int) string {
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	var members []string
	for _, name := range names {
		switch n := g.r.IntN(20); {
		case n < 6: // left out
		case n < 8:
			members = append(members, jsonString(name)+":null")
		case n < 10:
			members = append(members, jsonString(name)+":"+g.junk(depth+1))
		default:
			members = append(members, jsonString(name)+":"+g.value(name, props[name].(map[string]any), depth+1))
		}
	}
	if g.r.IntN(20) == 0 && len(members) > 0 { // a key twice
		members = append(members, members[g.r.IntN(len(members))])
	}
	if g.r.IntN(20) == 0 {
		members = append(members, jsonString(g.pick([]string{"colour", "Amount", "PLAN_ID", "extra", ""}))+":"+g.junk(depth+1))
	}
	g.r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return "{" + strings.Join(members, ",") + "}"
}

// value makes a value of the schema's type, mostly a plausible one.
func (g *argGen) value(name string, s map[string]any, depth int) string {
	switch s["type"] {
	case "string":
		switch {
		case strings.Contains(fmt.Sprint(s["description"]), "decimal"):
			return g.pick(genAmounts)
		case strings.HasSuffix(name, "_id") && len(g.ids) > 0 && g.r.IntN(2) == 0:
			return jsonString(g.ids[g.r.IntN(len(g.ids))])
		case g.r.IntN(30) == 0:
			return jsonString(strings.Repeat("k", 1<<(10+g.r.IntN(10)))) // up to 512 KiB
		}
		return jsonString(g.pick(genStrings))
	case "integer":
		return g.pick(genNumbers)
	case "boolean":
		return g.pick([]string{"true", "false"})
	case "array":
		items, _ := s["items"].(map[string]any)
		n := g.r.IntN(4)
		if g.r.IntN(40) == 0 {
			n = 1001
		}
		elems := make([]string, n)
		for i := range elems {
			if items["type"] == "object" {
				elems[i] = g.object(items, depth+1)
			} else if strings.HasSuffix(name, "_ids") && len(g.ids) > 0 {
				elems[i] = jsonString(g.ids[g.r.IntN(len(g.ids))])
			} else {
				elems[i] = g.value(name, items, depth+1)
			}
		}
		return "[" + strings.Join(elems, ",") + "]"
	case "object":
		return g.object(s, depth)
	}
	return g.junk(depth)
}

// junk is any JSON value at all.
func (g *argGen) junk(depth int) string {
	if depth > 6 {
		return "1"
	}
	switch g.r.IntN(12) {
	case 0:
		return "null"
	case 1:
		return g.pick([]string{"true", "false"})
	case 2, 3:
		return g.pick(genNumbers)
	case 4, 5:
		return jsonString(g.pick(genStrings))
	case 6:
		return g.pick(genAmounts)
	case 7:
		return "[" + g.junk(depth+1) + "," + g.junk(depth+1) + "]"
	case 8:
		return `{"a":` + g.junk(depth+1) + `,"b":` + g.junk(depth+1) + `}`
	case 9:
		return strings.Repeat("[", 70) + strings.Repeat("]", 70)
	case 10:
		return `{"a":1,"a":2}`
	}
	return `"\u00e9\ud83d\ude00\n\t"`
}

// TestShutdownFinishesConfirmedWrites sends 20 confirmed writes at once and ends the session
// while they are in flight: every one ends answered or journaled with its outcome, none stays
// prepared, and avenir exits 0.
func TestShutdownFinishesConfirmedWrites(t *testing.T) {
	for _, stop := range []struct {
		name   string
		sig    os.Signal
		hangUp bool // the client closes stdout too: no answer can be written
	}{{"end of input", nil, false}, {"SIGTERM", syscall.SIGTERM, false}, {"SIGINT", syscall.SIGINT, false}, {"client gone", nil, true}} {
		t.Run(stop.name, func(t *testing.T) {
			env, _ := isolatedEnv(t)
			p := startServe(t, env)
			era1125.open(t, p)
			categories := []string{"Huur", "Energie", "Internet", "Zorgverzekering", "Boodschappen", "Restaurants",
				"Vervoer", "Tennis", "Uitjes", "Streaming"}
			type write struct{ args, code string }
			var writes []write
			var ids []string
			for i, month := range []string{"current", "previous"} {
				for j, c := range categories {
					args := fmt.Sprintf(`{"category":%q,"month":%q,"amount":"%d.%02d"}`, c, month, 100+i, j)
					id := fmt.Sprintf(`"ask-%d-%d"`, i, j)
					p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"set_category_budget","arguments":` + args + `}}`)
					writes, ids = append(writes, write{args: args}), append(ids, id)
				}
			}
			p.waitFor(ids, 0, 60*time.Second)
			for i, id := range ids {
				var r struct {
					StructuredContent struct {
						Status       string `json:"status"`
						Confirmation string `json:"confirmation"`
					} `json:"structuredContent"`
				}
				mustDecode(t, p.answer(id)["result"], &r)
				if r.StructuredContent.Status != "confirmation_required" {
					t.Fatalf("%s: %s", id, p.answer(id)["result"])
				}
				writes[i].code = r.StructuredContent.Confirmation
			}
			// The 20 confirmed calls at once, and the session ends while they are in flight.
			var lines strings.Builder
			for i, w := range writes {
				args := strings.TrimSuffix(w.args, "}") + `,"confirmation":"` + w.code + `"}`
				fmt.Fprintf(&lines, `{"jsonrpc":"2.0","id":"go-%d","method":"tools/call","params":{"name":"set_category_budget","arguments":%s}}`+"\n", i, args)
			}
			io.WriteString(p.stdin, lines.String())
			if stop.sig != nil || stop.hangUp {
				// Stop once the first write is answered: the others are in flight or queued.
				p.waitFor([]string{`"go-0"`}, 0, 60*time.Second)
			}
			if stop.hangUp {
				p.stdout.Close() // avenir's next answer meets a closed pipe
			}
			if code := p.exit(stop.sig); code != 0 {
				t.Fatalf("avenir exited %d; stderr:\n%s", code, tail(p.stderr.String()))
			}

			ops := journalOps(t, env)
			for _, op := range ops {
				if op.Status == journal.StatusPrepared {
					t.Errorf("operation %s (%s) stays prepared after a clean stop", op.ID, op.Summary)
				}
			}
			answered := 0
			for i := range writes {
				m := p.answer(fmt.Sprintf(`"go-%d"`, i))
				if m == nil {
					continue // not answered: then it must not have been taken, or be journaled
				}
				answered++
				var r struct {
					IsError           bool `json:"isError"`
					StructuredContent struct {
						Status      string `json:"status"`
						OperationID string `json:"operation_id"`
					} `json:"structuredContent"`
				}
				mustDecode(t, m["result"], &r)
				switch {
				case r.StructuredContent.Status == "applied":
					if !slices.ContainsFunc(ops, func(op journal.Operation) bool {
						return op.ID == r.StructuredContent.OperationID && op.Status == journal.StatusApplied
					}) {
						t.Errorf("go-%d was answered applied (%s) but the journal does not say so", i, r.StructuredContent.OperationID)
					}
				case m["error"] != nil && strings.Contains(string(m["error"]), "shutting down"):
					// refused before it ran: nothing was written
				default:
					t.Errorf("go-%d: %s %s", i, m["result"], m["error"])
				}
			}
			if len(ops) > answered {
				// Unanswered writes are allowed only where the pipe no longer took the answer; the
				// journal must hold their true outcome, which the loop above checked is not prepared.
				t.Logf("%d writes journaled, %d answered", len(ops), answered)
			}
			if answered == 0 {
				t.Fatalf("no confirmed write was answered; stderr:\n%s", tail(p.stderr.String()))
			}
			if stop.hangUp && len(ops) < 2 {
				t.Fatalf("%d writes journaled: the writes in flight when the client hung up did not finish", len(ops))
			}
			t.Logf("%s: %d of 20 answered, %d journaled", stop.name, answered, len(ops))
		})
	}
}
