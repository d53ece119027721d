package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/avenir-mcp/avenir/tools"
)

// `avenir config CLIENT` prints what a client's configuration needs to start avenir, in the
// format that client's documentation gives, and with --write merges it into that client's
// file. The token is never in it: serve finds it in the keychain or its file (avenir token
// set); at most the entry names the file that holds it.

const configUsage = `Usage: avenir config CLIENT [--write] [--name NAME] [--sandbox] [--confirm code]

Prints the configuration that makes CLIENT start avenir, or with --write adds it to CLIENT's
own file (keeping a copy of the file as it was, and every other entry in it).

Clients:
%s
Flags:
  --write          add the entry to the client's file instead of printing it
  --name NAME      the server's name in the client (default ynab)
  --sandbox        start avenir on its built-in sample plan (no YNAB account needed)
  --confirm code   confirm every write by code (for clients whose questions never show;
                   for Codex, also lets codex exec call the tools)

The entry never holds your token: run 'avenir token set' first, and avenir finds it.
`

// clientSpec is one MCP client's configuration file: where it is and how it lists servers.
type clientSpec struct {
	id, name string
	// format: "json" (an object of servers under key), "claude-code" (printed as the
	// `claude mcp add` command, written as JSON), "toml" (Codex's [mcp_servers.NAME]),
	// "opencode" (JSON, each server's program and arguments in one array).
	format string
	key    string // the JSON key holding the servers
	typed  bool   // entries carry "type": "stdio"
	// file is the configuration file on an OS, from its environment.
	file func(p osPaths) string
	// toolPrefix is what the client puts before each tool's name when it offers the tools to
	// its model, for the clients that do; nil for the others.
	toolPrefix func(server string) string
	hint       string // said after the snippet: what else this client needs to know
	codeHint   string // said instead of hint with --confirm code, where that differs
}

// clients are the supported clients. Each entry's file and shape follow that client's own
// documentation: Claude Desktop (modelcontextprotocol.io, "Connect to local MCP servers"),
// Claude Code (code.claude.com/docs/en/mcp: `claude mcp add`, user scope in ~/.claude.json),
// VS Code (code.visualstudio.com/docs/copilot/reference/mcp-configuration: "servers", each
// with "type"), Cursor (cursor.com/docs/mcp: ~/.cursor/mcp.json), Windsurf
// (docs.windsurf.com/windsurf/cascade/mcp: ~/.codeium/windsurf/mcp_config.json), Gemini CLI
// (geminicli.com/docs/tools/mcp-server: ~/.gemini/settings.json), Qwen Code (a fork of Gemini
// CLI with the same "mcpServers", in ~/.qwen/settings.json), opencode (opencode.ai/docs/config
// and opencode.ai/docs/mcp-servers: the global opencode.json in $XDG_CONFIG_HOME/opencode,
// else ~/.config/opencode on every OS, as it resolves the directory with xdg-basedir; servers
// under "mcp", each {"type": "local", "command": [program, args…], "environment": {…}}), Codex
// (developers.openai.com/codex/mcp and /codex/config-reference: [mcp_servers.NAME] in
// ~/.codex/config.toml).
var clients = []clientSpec{
	{id: "claude-desktop", name: "Claude Desktop", format: "json", key: "mcpServers",
		file: osPaths.claudeDesktopConfig,
		hint: "Quit and reopen Claude Desktop to load it. (The avenir extension bundle, avenir.mcpb, does the same in one click.)"},
	{id: "claude-code", name: "Claude Code", format: "claude-code", key: "mcpServers", typed: true,
		file: func(p osPaths) string { return filepath.Join(p.home(), ".claude.json") },
		// Claude Code names each tool mcp__SERVER__TOOL for the model (anthropics/claude-code#2326).
		toolPrefix: func(server string) string { return "mcp__" + server + "__" },
		hint:       "Claude Code in VS Code or through its SDK declines every question without showing it: there, add --confirm code."},
	{id: "vscode", name: "VS Code", format: "json", key: "servers", typed: true,
		file: func(p osPaths) string {
			switch p.goos {
			case "darwin":
				return filepath.Join(p.home(), "Library", "Application Support", "Code", "User", "mcp.json")
			case "windows":
				return filepath.Join(p.appData(), "Code", "User", "mcp.json")
			}
			return filepath.Join(p.xdgConfigHome(), "Code", "User", "mcp.json")
		},
		hint: "This is your user mcp.json (MCP: Open User Configuration); a workspace's .vscode/mcp.json takes the same entry."},
	{id: "cursor", name: "Cursor", format: "json", key: "mcpServers",
		file: func(p osPaths) string { return filepath.Join(p.home(), ".cursor", "mcp.json") },
		hint: "Older Cursor builds drop the question until it times out: if writes hang there, add --confirm code."},
	{id: "windsurf", name: "Windsurf", format: "json", key: "mcpServers",
		file: func(p osPaths) string { return filepath.Join(p.home(), ".codeium", "windsurf", "mcp_config.json") },
		hint: "Refresh the MCP servers in Cascade's MCP panel to load it."},
	{id: "gemini", name: "Gemini CLI", format: "json", key: "mcpServers",
		file:       func(p osPaths) string { return filepath.Join(p.home(), ".gemini", "settings.json") },
		toolPrefix: func(server string) string { return "mcp_" + server + "_" },
		// Gemini CLI starts no MCP server in a folder it does not trust yet.
		hint: "Check it with /mcp in Gemini CLI, and trust the folder when Gemini asks: in a folder it does not trust yet, it starts no MCP server."},
	{id: "qwen", name: "Qwen Code", format: "json", key: "mcpServers",
		file:       func(p osPaths) string { return filepath.Join(p.home(), ".qwen", "settings.json") },
		toolPrefix: func(server string) string { return "mcp_" + server + "_" },
		hint:       "Check it with /mcp in Qwen Code."},
	{id: "opencode", name: "opencode", format: "opencode", key: "mcp",
		file:       func(p osPaths) string { return filepath.Join(p.xdgConfigHome(), "opencode", "opencode.json") },
		toolPrefix: func(server string) string { return server + "_" },
		hint:       "Check it with: opencode mcp list"},
	{id: "codex", name: "Codex", format: "toml",
		file: func(p osPaths) string {
			if d := p.getenv("CODEX_HOME"); d != "" {
				return filepath.Join(d, "config.toml")
			}
			return filepath.Join(p.home(), ".codex", "config.toml")
		},
		hint: "Check it with /mcp in Codex. Codex shows avenir's question as True/False with False " +
			"preselected (after its own prompt to allow the server), and 'codex exec' declines every " +
			"question, so there every write comes back declined. The entry that works in both: " +
			"avenir config codex --confirm code",
		codeHint: "Check it with /mcp in Codex. Every write is confirmed by code: the assistant shows you " +
			"the preview and goes on only if you agree. default_tools_approval_mode = \"approve\" lets " +
			"'codex exec' call avenir's tools without a prompt of its own, which it cannot show."},
}

func findClient(id string) (clientSpec, bool) {
	i := slices.IndexFunc(clients, func(c clientSpec) bool { return c.id == id })
	if i < 0 {
		return clientSpec{}, false
	}
	return clients[i], true
}

// configCmd is `avenir config`. Its fields are what tests fix: the binary's path, the clock
// that names backups, the OS whose file locations apply.
type configCmd struct {
	executable string
	now        func() time.Time
	goos       string
}

func (c configCmd) paths(e env) osPaths { return osPaths{goos: c.goos, getenv: e.getenv} }

func runConfig(args []string, e env) error {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return fmt.Errorf("finding avenir's own path for the client to start: %w", err)
	}
	return configCmd{executable: exe, now: time.Now, goos: runtime.GOOS}.run(args, e)
}

func (c configCmd) usage(e env) string {
	var list strings.Builder
	for _, cl := range clients {
		fmt.Fprintf(&list, "  %-15s %s: %s\n", cl.id, cl.name, cl.file(c.paths(e)))
	}
	return fmt.Sprintf(configUsage, list.String())
}

// serverEntry is what a client needs to start avenir.
type serverEntry struct {
	name    string
	command string
	args    []string
	env     [][2]string // in this order
	// approveTools lets the client call avenir's tools without its own approval prompt
	// (Codex's default_tools_approval_mode = "approve"): with codes, avenir's confirmation is
	// the one that counts, and 'codex exec' cannot show a prompt.
	approveTools bool
}

func (c configCmd) run(args []string, e env) error {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	write := fs.Bool("write", false, "")
	name := fs.String("name", "ynab", "")
	sandboxed := fs.Bool("sandbox", false, "")
	mode := fs.String("confirm", "", "")
	var rest []string
	for { // flags and the client in any order
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, c.usage(e))
			return errHelp
		}
		if err != nil {
			return usagef("config: %v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(rest) == 0:
		fmt.Fprint(e.stderr, c.usage(e))
		return usagef("config: name a client")
	case len(rest) > 1:
		return usagef("config takes one client, got %q", rest)
	}
	client, ok := findClient(rest[0])
	if !ok {
		fmt.Fprint(e.stderr, c.usage(e))
		return usagef("config: unknown client %q", rest[0])
	}
	if !validServerName.MatchString(*name) {
		return usagef("config: --name %q: use letters, digits, - and _ only", *name)
	}
	if err := checkToolNames(client, *name); err != nil {
		return err
	}
	if *mode != "" && *mode != "code" {
		return usagef("config: --confirm %q: the one mode is code", *mode)
	}

	entry := serverEntry{name: *name, command: c.executable, args: []string{"serve"}}
	if *sandboxed {
		entry.args = append(entry.args, "--sandbox")
	} else {
		c.tokenNote(e, client, &entry)
	}
	hint := client.hint
	if *mode == "code" {
		entry.env = append(entry.env, [2]string{"AVENIR_MCP_CONFIRM", "code"})
		entry.approveTools = client.format == "toml"
		if client.codeHint != "" {
			hint = client.codeHint
		}
	}

	path := client.file(c.paths(e))
	if *write {
		return c.write(e, client, entry, path, hint)
	}
	snippet, err := renderSnippet(client, entry)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, snippet)
	if client.format == "claude-code" {
		fmt.Fprintf(e.stderr, "\n%s: run the command above, or 'avenir config %s --write' to add the entry to %s.\n", client.name, client.id, path)
	} else {
		fmt.Fprintf(e.stderr, "\n%s: add this to %s, or run 'avenir config %s --write' to do it for you.\n", client.name, path, client.id)
	}
	fmt.Fprintln(e.stderr, hint)
	return nil
}

// validServerName keeps a server name that needs no quoting in any of the formats.
var validServerName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// tokenNote says where serve will find the token and, when it is in a file, names the file in
// the entry, so that a client started with another environment (a desktop app does not see
// the shell's XDG_CONFIG_HOME) finds the same one. The token itself never goes in.
func (c configCmd) tokenNote(e env, client clientSpec, entry *serverEntry) {
	_, from, err := resolveToken(e)
	switch {
	case err != nil:
		fmt.Fprintf(e.stderr, "Note: avenir keeps no YNAB token yet. Run 'avenir token set' before you start %s.\n", client.name)
	case from.Kind == "env":
		fmt.Fprintf(e.stderr, "Note: YNAB_ACCESS_TOKEN is set in this shell, but %s will not see it. Run 'avenir token set' so avenir finds the token on its own.\n", client.name)
	case from.Kind == "file" || from.Kind == "env-file":
		path := from.Desc
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		entry.env = append(entry.env, [2]string{"YNAB_ACCESS_TOKEN_FILE", path})
	}
}

// renderSnippet is the entry as the client's documentation shows it.
func renderSnippet(client clientSpec, entry serverEntry) (string, error) {
	switch client.format {
	case "toml":
		return codexTable(entry), nil
	case "claude-code":
		return claudeMCPAdd(entry), nil
	}
	doc, err := mergeJSON(nil, client, entry)
	return string(doc), err
}

// entryJSON is one server as compact JSON, its keys in the order the documentation shows.
func entryJSON(client clientSpec, entry serverEntry) []byte {
	var b bytes.Buffer
	array := func(ss []string) {
		b.WriteByte('[')
		for i, a := range ss {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(a))
		}
		b.WriteByte(']')
	}
	envKey := "env"
	b.WriteByte('{')
	switch {
	case client.format == "opencode":
		b.WriteString(`"type":"local","command":`)
		array(append([]string{entry.command}, entry.args...))
		envKey = "environment"
	default:
		if client.typed {
			b.WriteString(`"type":"stdio",`)
		}
		b.WriteString(`"command":` + jsonString(entry.command) + `,"args":`)
		array(entry.args)
	}
	if len(entry.env) > 0 {
		b.WriteString(`,"` + envKey + `":{`)
		for i, kv := range entry.env {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(kv[0]) + ":" + jsonString(kv[1]))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes()
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// member is one key of a JSON object, its value as it was written.
type member struct {
	key string
	val json.RawMessage
}

// parseObject reads a JSON object keeping its keys' order, so that a merged file differs from
// the original only where avenir's entry is.
func parseObject(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("it is not a JSON object")
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		ms = append(ms, member{key: tok.(string), val: val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("there is more after the JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("there is more after the JSON object")
	}
	return ms, nil
}

func encodeObject(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(m.key) + ":")
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// set replaces key's value, or adds key at the end.
func set(ms []member, key string, val []byte) []member {
	for i := range ms {
		if ms[i].key == key {
			ms[i].val = val
			return ms
		}
	}
	return append(ms, member{key: key, val: val})
}

func get(ms []member, key string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// mergeJSON puts entry into a client's JSON document (nil: a new one) and returns the whole
// document, indented by two spaces. Everything else in it stays, in its order.
func mergeJSON(doc []byte, client clientSpec, entry serverEntry) ([]byte, error) {
	var top []member
	if len(bytes.TrimSpace(doc)) > 0 {
		var err error
		if top, err = parseObject(doc); err != nil {
			return nil, err
		}
	} else if client.format == "opencode" {
		// A new opencode.json starts as its documentation's do: with the schema editors check
		// it against.
		top = []member{{key: "$schema", val: json.RawMessage(`"https://opencode.ai/config.json"`)}}
	}
	var servers []member
	if raw, ok := get(top, client.key); ok && string(raw) != "null" {
		var err error
		if servers, err = parseObject(raw); err != nil {
			return nil, fmt.Errorf("its %q is not a JSON object", client.key)
		}
	}
	servers = set(servers, entry.name, entryJSON(client, entry))
	top = set(top, client.key, encodeObject(servers))
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, encodeObject(top)); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// claudeMCPAdd is the command Claude Code's documentation gives for a local server, at user
// scope so that it works in every project.
func claudeMCPAdd(entry serverEntry) string {
	parts := []string{"claude", "mcp", "add", "--scope", "user", "--transport", "stdio"}
	for _, kv := range entry.env {
		parts = append(parts, "--env", shellQuote(kv[0]+"="+kv[1]))
	}
	parts = append(parts, entry.name, "--", shellQuote(entry.command))
	for _, a := range entry.args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ") + "\n"
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// codexTable is the entry as Codex's config.toml takes it: a [mcp_servers.NAME] table.
func codexTable(entry serverEntry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", entry.name)
	fmt.Fprintf(&b, "command = %s\n", tomlString(entry.command))
	quoted := make([]string, len(entry.args))
	for i, a := range entry.args {
		quoted[i] = tomlString(a)
	}
	fmt.Fprintf(&b, "args = [%s]\n", strings.Join(quoted, ", "))
	if entry.approveTools {
		// Codex's per-server approval default (developers.openai.com/codex/config-reference,
		// mcp_servers.<id>.default_tools_approval_mode: auto, prompt or approve). Under "auto",
		// Codex prompts before a tool that is not read-only and may be destructive, and
		// 'codex exec', which cannot prompt, refuses the call (openai/codex,
		// codex-rs/core/src/mcp_tool_call.rs); "approve" leaves the confirmation to avenir.
		b.WriteString("default_tools_approval_mode = \"approve\"\n")
	}
	if len(entry.env) > 0 {
		pairs := make([]string, len(entry.env))
		for i, kv := range entry.env {
			pairs[i] = kv[0] + " = " + tomlString(kv[1])
		}
		fmt.Fprintf(&b, "env = { %s }\n", strings.Join(pairs, ", "))
	}
	return b.String()
}

// tomlString is a TOML basic string: quotes and backslashes (Windows paths) escaped, control
// characters as \uXXXX.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var tomlHeader = regexp.MustCompile(`^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$`)

// mergeTOML replaces the [mcp_servers.NAME] table (and its sub-tables) in a config.toml, or
// appends it. Everything else stays byte for byte. A file that defines the server some other
// way (a dotted key, an inline table) is refused: rewriting that safely would take a TOML
// parser, and a second definition would break the file.
func mergeTOML(doc []byte, entry serverEntry) ([]byte, error) {
	self := "mcp_servers." + entry.name
	name := regexp.QuoteMeta(entry.name)
	rootDotted := regexp.MustCompile(`^\s*mcp_servers\s*\.\s*"?` + name + `"?\s*[.=]`)
	inServers := regexp.MustCompile(`^\s*"?` + name + `"?\s*[.=]`)
	lines := strings.SplitAfter(string(doc), "\n")
	start, end := -1, -1
	section := ""
	for i, line := range lines {
		if m := tomlHeader.FindStringSubmatch(line); m != nil {
			section = strings.NewReplacer(" ", "", "\t", "", `"`, "").Replace(m[1])
			ours := section == self || strings.HasPrefix(section, self+".")
			switch {
			case ours && end >= 0:
				return nil, fmt.Errorf("it defines [%s] in two places", self)
			case ours && start < 0:
				start = i
			case !ours && start >= 0 && end < 0:
				end = i
			}
			continue
		}
		if (section == "" && rootDotted.MatchString(line)) || (section == "mcp_servers" && inServers.MatchString(line)) {
			return nil, fmt.Errorf("it defines %s outside a [%s] table", self, self)
		}
	}
	table := codexTable(entry)
	if start < 0 {
		out := string(doc)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" {
			out += "\n"
		}
		return []byte(out + table), nil
	}
	if end < 0 {
		end = len(lines)
	}
	// Blank lines and comments just before the next table belong with it.
	for end > start+1 {
		if l := strings.TrimSpace(lines[end-1]); l != "" && !strings.HasPrefix(l, "#") {
			break
		}
		end--
	}
	return []byte(strings.Join(lines[:start], "") + table + strings.Join(lines[end:], "")), nil
}

// write merges the entry into the client's file: a copy of the file as it was goes next to
// it first, and the new content replaces it in one rename, with the file's mode kept.
func (c configCmd) write(e env, client clientSpec, entry serverEntry, path, hint string) error {
	old, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s's configuration: %w", client.name, err)
	}
	var merged []byte
	if client.format == "toml" {
		merged, err = mergeTOML(old, entry)
	} else {
		merged, err = mergeJSON(old, client, entry)
	}
	if err != nil {
		snippet, _ := renderSnippet(client, entry)
		fmt.Fprintf(e.stderr, "Add this to %s by hand:\n\n%s\n", path, snippet)
		return fmt.Errorf("%s was left as it is: %v (comments and trailing commas count: avenir does not rewrite what it cannot keep)", path, err)
	}
	if existed && bytes.Equal(old, merged) {
		fmt.Fprintf(e.stdout, "%s already starts avenir as %q; nothing changed.\n", path, entry.name)
		return nil
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	backup := ""
	if existed {
		backup = path + ".avenir-backup-" + c.now().Format("20060102-150405")
		if err := os.WriteFile(backup, old, mode); err != nil {
			return fmt.Errorf("keeping a copy of %s before changing it: %w", path, err)
		}
	}
	if err := replaceFile(path, merged, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if existed {
		fmt.Fprintf(e.stdout, "Added avenir as %q to %s (the file as it was: %s).\n", entry.name, path, backup)
	} else {
		fmt.Fprintf(e.stdout, "Created %s with avenir as %q.\n", path, entry.name)
	}
	fmt.Fprintln(e.stdout, hint)
	return nil
}

// replaceFile writes data to a temporary file beside path and renames it over path.
func replaceFile(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil && runtime.GOOS != "windows" {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// maxToolName is the longest tool name the models' APIs take: Anthropic's refuses a longer one
// (anthropics/claude-code#2326), and Gemini's and OpenAI's function names have the same limit.
const maxToolName = 64

// checkToolNames refuses a server name that would make one of avenir's tools, as the client
// names it for its model, longer than maxToolName: the client would start avenir, and every
// request of the conversation would then be refused by the model's API.
func checkToolNames(client clientSpec, server string) error {
	if client.toolPrefix == nil {
		return nil
	}
	names, err := avenirToolNames()
	if err != nil {
		return err
	}
	longest := ""
	for _, n := range names {
		if len(n) > len(longest) {
			longest = n
		}
	}
	full := len(client.toolPrefix(server)) + len(longest)
	if full <= maxToolName {
		return nil
	}
	most := len(server) - (full - maxToolName)
	return usagef("config: --name %q is too long for %s: it offers each tool to its model as %sTOOL, "+
		"and the model's API refuses a tool name over %d characters (avenir's %s would have %d); "+
		"use a name of at most %d characters", server, client.name, client.toolPrefix("NAME"),
		maxToolName, longest, full, most)
}

// avenirToolNames lists the tools a server in write mode offers (read-only mode offers
// fewer), asked of the real server over an in-memory connection, so that the check above
// stays true as tools are added.
var avenirToolNames = sync.OnceValues(func() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	server := tools.NewServer(tools.Deps{Version: version})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("listing avenir's tools: %w", err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "avenir-config", Version: version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("listing avenir's tools: %w", err)
	}
	defer cs.Close()
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing avenir's tools: %w", err)
		}
		names = append(names, t.Name)
	}
	return names, nil
})
