package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/avenir-mcp/avenir/internal/golden"
)

// configGolden compares got with testdata/config/NAME.golden.
func configGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "config", name+".golden"), []byte(got))
}

// configWorld is a home directory with a token kept in avenir's file, as after
// `avenir token set` on a machine without a keychain.
type configWorld struct {
	home string
	vars map[string]string
	cmd  configCmd
}

func newConfigWorld(t *testing.T, tokenKept bool) *configWorld {
	t.Helper()
	home := t.TempDir()
	w := &configWorld{
		home: home,
		vars: map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")},
		cmd: configCmd{executable: "/home/you/bin/avenir", goos: "linux",
			now: func() time.Time { return time.Date(2026, 12, 2, 18, 30, 0, 0, time.UTC) }},
	}
	if tokenKept {
		if err := writeTokenFile(tokenFilePath(mapEnv(w.vars)), tokenFile); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// run runs `avenir config ARGS…` in w, the home directory shown as /home/you.
func (w *configWorld) run(t *testing.T, kc keychain, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut strings.Builder
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: mapEnv(w.vars), keychain: kc}
	err = w.cmd.run(args, e)
	clean := func(s string) string { return strings.ReplaceAll(s, w.home, "/home/you") }
	return clean(out.String()), clean(errOut.String()), err
}

// TestConfigSnippets: for every client, the snippet as its documentation gives it, with the
// token's file named and never the token.
func TestConfigSnippets(t *testing.T) {
	for _, c := range clients {
		t.Run(c.id, func(t *testing.T) {
			w := newConfigWorld(t, true)
			out, errOut, err := w.run(t, nil, c.id)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out+errOut, tokenFile) {
				t.Fatalf("the token is in the output:\n%s", out)
			}
			if !strings.Contains(errOut, c.file(osPaths{"linux", mapEnv(w.vars)})[len(w.home):]) && c.format != "claude-code" {
				t.Errorf("stderr %q does not name the client's file", errOut)
			}
			configGolden(t, c.id, out)
		})
	}
}

func TestConfigOptions(t *testing.T) {
	t.Run("a token in the keychain needs nothing in the entry", func(t *testing.T) {
		w := newConfigWorld(t, false)
		out, errOut, err := w.run(t, &fakeKeychain{secret: tokenKeychain}, "cursor")
		if err != nil || strings.Contains(out, `"env"`) || strings.Contains(out+errOut, tokenKeychain) || strings.Contains(errOut, "Note:") {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
	})
	t.Run("no token yet: the entry, and what to do first", func(t *testing.T) {
		w := newConfigWorld(t, false)
		out, errOut, err := w.run(t, nil, "gemini")
		if err != nil || strings.Contains(out, `"env"`) || !strings.Contains(errOut, "Run 'avenir token set' before you start Gemini CLI") {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
	})
	t.Run("a token in the shell's environment is never copied into the entry", func(t *testing.T) {
		w := newConfigWorld(t, false)
		w.vars["YNAB_ACCESS_TOKEN"] = tokenEnv
		out, errOut, err := w.run(t, nil, "windsurf")
		if err != nil || strings.Contains(out, tokenEnv) || strings.Contains(out, `"env"`) || !strings.Contains(errOut, "will not see it") {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
	})
	t.Run("sandbox, code mode and a name", func(t *testing.T) {
		w := newConfigWorld(t, true)
		out, _, err := w.run(t, nil, "codex", "--sandbox", "--confirm", "code", "--name", "ynab-demo")
		if err != nil {
			t.Fatal(err)
		}
		configGolden(t, "codex-sandbox-code", out)
	})
	t.Run("codex: what its prompts do, and the entry that works in both", func(t *testing.T) {
		w := newConfigWorld(t, true)
		out, errOut, err := w.run(t, nil, "codex")
		if err != nil || strings.Contains(out, "default_tools_approval_mode") ||
			!strings.Contains(errOut, "True/False with False preselected") || !strings.Contains(errOut, "'codex exec' declines every question") ||
			!strings.Contains(errOut, "avenir config codex --confirm code") {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
		out, errOut, err = w.run(t, nil, "codex", "--confirm", "code")
		if err != nil || !strings.Contains(out, "default_tools_approval_mode = \"approve\"\n") || !strings.Contains(out, `AVENIR_MCP_CONFIRM = "code"`) ||
			!strings.Contains(errOut, "confirmed by code") || strings.Contains(errOut, "--confirm code") {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
		// Only Codex has the setting: other clients' entries take the variable alone.
		out, _, err = w.run(t, nil, "cursor", "--confirm", "code")
		if err != nil || strings.Contains(out, "approval") || !strings.Contains(out, `"AVENIR_MCP_CONFIRM": "code"`) {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	t.Run("gemini: trust the folder", func(t *testing.T) {
		_, errOut, err := newConfigWorld(t, true).run(t, nil, "gemini")
		if err != nil || !strings.Contains(errOut, "Check it with /mcp in Gemini CLI, and trust the folder when Gemini asks") {
			t.Fatalf("%v\n%s", err, errOut)
		}
	})
	refusals := []struct {
		args []string
		want string
	}{
		{nil, "name a client"},
		{[]string{"notepad"}, `unknown client "notepad"`},
		{[]string{"cursor", "vscode"}, "one client"},
		{[]string{"cursor", "--confirm", "always"}, "the one mode is code"},
		{[]string{"cursor", "--name", "my server"}, "letters, digits"},
	}
	for _, r := range refusals {
		t.Run("refuses "+strings.Join(r.args, " "), func(t *testing.T) {
			_, _, err := newConfigWorld(t, false).run(t, nil, r.args...)
			var ue *usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), r.want) {
				t.Fatalf("config %v: %v; want a usage error with %q", r.args, err, r.want)
			}
		})
	}
}

// writeCase is a client's file before --write; the file after it is a golden file.
type writeCase struct {
	name   string
	client string
	before string // "" = no file yet
}

var writeCases = []writeCase{
	{"claude-desktop-new", "claude-desktop", ""},
	{"claude-desktop-merge", "claude-desktop", `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/you/Documents"]},
    "ynab": {"command": "/old/path/avenir", "args": ["serve"], "env": {"YNAB_ACCESS_TOKEN": "was-here-in-plain-text"}}
  },
  "preferences": {"quickEntryShortcut": "off"}
}
`},
	{"vscode-merge", "vscode", `{
	"inputs": [{"type": "promptString", "id": "gh", "description": "GitHub token", "password": true}],
	"servers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}
}
`},
	{"claude-code-merge", "claude-code", `{"numStartups":42,"projects":{"/home/you/src/app":{"mcpServers":{}}},"mcpServers":{"playwright":{"type":"stdio","command":"npx","args":["@playwright/mcp@latest"],"env":{}}},"userID":"abc"}`},
	{"cursor-empty-object", "cursor", "{}\n"},
	{"qwen-merge", "qwen", `{
  "theme": "Default",
  "mcpServers": {
    "context7": {"httpUrl": "https://mcp.context7.com/mcp"}
  }
}
`},
	{"opencode-new", "opencode", ""},
	{"opencode-merge", "opencode", `{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-5",
  "mcp": {
    "sentry": {"type": "remote", "url": "https://mcp.sentry.dev/mcp"},
    "ynab": {"type": "local", "command": ["/old/path/avenir", "serve"], "environment": {"YNAB_ACCESS_TOKEN": "was-here-in-plain-text"}}
  }
}
`},
	{"codex-new", "codex", ""},
	{"codex-merge", "codex", `model = "o4"

# my servers
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_servers.ynab]
command = "/old/path/avenir"
args = ["serve"]

[mcp_servers.ynab.env]
YNAB_ACCESS_TOKEN = "was-here-in-plain-text"

# the last one
[mcp_servers.zeta]
command = "zeta"
`},
	{"codex-append", "codex", `model = "o4"
[mcp_servers.docs]
command = "npx"`},
}

func TestConfigWrite(t *testing.T) {
	for _, tc := range writeCases {
		t.Run(tc.name, func(t *testing.T) {
			w := newConfigWorld(t, true)
			spec := mustClient(t, tc.client)
			path := spec.file(osPaths{"linux", mapEnv(w.vars)})
			if tc.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tc.before), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			out, _, err := w.run(t, nil, tc.client, "--write")
			if err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			configGolden(t, "write-"+tc.name, strings.ReplaceAll(string(after), w.home, "/home/you"))
			backup := path + ".avenir-backup-20261202-183000"
			if tc.before == "" {
				if _, err := os.Stat(backup); !errors.Is(err, os.ErrNotExist) || !strings.Contains(out, "Created") {
					t.Fatalf("a new file got a backup (%v) or output %q", err, out)
				}
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("a new file: %v, %v; want mode 0600", fi, err)
				}
			} else {
				kept, err := os.ReadFile(backup)
				if err != nil || string(kept) != tc.before || !strings.Contains(out, backup[len(w.home):]) {
					t.Fatalf("backup %q (%v), output %q; want the file as it was, named", kept, err, out)
				}
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
					t.Fatalf("the file: %v, %v; want its mode kept (0640)", fi, err)
				}
			}
			if spec.format != "toml" {
				var doc map[string]any
				if err := json.Unmarshal(after, &doc); err != nil {
					t.Fatalf("the written file is not JSON: %v", err)
				}
			}
			if strings.Contains(string(after), tokenFile) {
				t.Fatal("the token is in the client's file")
			}

			// Again: nothing changes, no second backup.
			out, _, err = w.run(t, nil, tc.client, "--write")
			if err != nil || !strings.Contains(out, "nothing changed") {
				t.Fatalf("a second --write: %v, %q; want nothing changed", err, out)
			}
			if again, err := os.ReadFile(path); err != nil || string(again) != string(after) {
				t.Fatalf("after a second --write: %v\n%s", err, again)
			}
		})
	}
}

func TestConfigWriteRefusesWhatItCannotKeep(t *testing.T) {
	tests := []struct {
		client, before, want string
	}{
		{"vscode", "{\n  // my servers\n  \"servers\": {}\n}\n", "left as it is"},
		{"cursor", `{"mcpServers": {"a": {"command": "x"},}}`, "left as it is"},
		{"gemini", `{"mcpServers": ["not", "an", "object"]}`, `"mcpServers" is not a JSON object`},
		{"codex", "[mcp_servers]\nynab = { command = \"x\" }\n", "outside a [mcp_servers.ynab] table"},
		{"codex", "mcp_servers.ynab.command = \"x\"\n", "outside a [mcp_servers.ynab] table"},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			w := newConfigWorld(t, true)
			spec := mustClient(t, tt.client)
			path := spec.file(osPaths{"linux", mapEnv(w.vars)})
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.before), 0o600); err != nil {
				t.Fatal(err)
			}
			_, errOut, err := w.run(t, nil, tt.client, "--write")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(errOut, "by hand") {
				t.Fatalf("--write: %v, stderr %q; want a refusal with %q and the entry to add by hand", err, errOut, tt.want)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != tt.before {
				t.Fatalf("the file changed (%v):\n%s", err, b)
			}
			if m, err := filepath.Glob(path + ".avenir-backup-*"); err != nil || len(m) != 0 {
				t.Fatalf("backups left: %v (%v)", m, err)
			}
		})
	}
}

// TestClientFiles: where each client keeps its configuration on each OS.
func TestClientFiles(t *testing.T) {
	vars := mapEnv(map[string]string{"HOME": "/Users/you", "USERPROFILE": `C:\Users\you`, "APPDATA": `C:\Users\you\AppData\Roaming`})
	want := map[string][3]string{ // linux, darwin, windows (joined with this OS's separator)
		"claude-desktop": {"/Users/you/.config/Claude/claude_desktop_config.json", "/Users/you/Library/Application Support/Claude/claude_desktop_config.json", `C:\Users\you\AppData\Roaming/Claude/claude_desktop_config.json`},
		"vscode":         {"/Users/you/.config/Code/User/mcp.json", "/Users/you/Library/Application Support/Code/User/mcp.json", `C:\Users\you\AppData\Roaming/Code/User/mcp.json`},
		"cursor":         {"/Users/you/.cursor/mcp.json", "/Users/you/.cursor/mcp.json", `C:\Users\you/.cursor/mcp.json`},
		"codex":          {"/Users/you/.codex/config.toml", "/Users/you/.codex/config.toml", `C:\Users\you/.codex/config.toml`},
		"gemini":         {"/Users/you/.gemini/settings.json", "/Users/you/.gemini/settings.json", `C:\Users\you/.gemini/settings.json`},
		"qwen":           {"/Users/you/.qwen/settings.json", "/Users/you/.qwen/settings.json", `C:\Users\you/.qwen/settings.json`},
		"opencode":       {"/Users/you/.config/opencode/opencode.json", "/Users/you/.config/opencode/opencode.json", `C:\Users\you/.config/opencode/opencode.json`},
	}
	for id, paths := range want {
		spec := mustClient(t, id)
		for i, goos := range []string{"linux", "darwin", "windows"} {
			if got := filepath.ToSlash(spec.file(osPaths{goos, vars})); got != filepath.ToSlash(paths[i]) {
				t.Errorf("%s on %s: %s, want %s", id, goos, got, paths[i])
			}
		}
	}
}

// TestConfigWritesThePackagedClaudeDesktop: `avenir config claude-desktop --write` on Windows,
// with the packaged Claude Desktop installed, adds avenir to the file that Claude reads and
// leaves %APPDATA%\Claude's, which it does not read, as it was; the message names the file.
func TestConfigWritesThePackagedClaudeDesktop(t *testing.T) {
	root := t.TempDir()
	vars := map[string]string{"USERPROFILE": root, "APPDATA": filepath.Join(root, "Roaming"), "LOCALAPPDATA": filepath.Join(root, "Local")}
	msix := filepath.Join(root, "Local", "Packages", "Claude_pzs8sxrjxfjjc", "LocalCache", "Roaming", "Claude", "claude_desktop_config.json")
	classic := filepath.Join(root, "Roaming", "Claude", "claude_desktop_config.json")
	for path, doc := range map[string]string{msix: `{"mcpServers":{"other":{"command":"other"}}}`, classic: `{"mcpServers":{}}`} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := configCmd{executable: `C:\Users\you\bin\avenir.exe`, goos: "windows",
		now: func() time.Time { return time.Date(2026, 12, 2, 18, 30, 0, 0, time.UTC) }}
	var out, errOut strings.Builder
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: mapEnv(vars), keychain: &fakeKeychain{secret: tokenKeychain}}
	if err := cmd.run([]string{"claude-desktop", "--write"}, e); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), msix) {
		t.Errorf("the message does not name the packaged Claude's file %s:\n%s", msix, out.String())
	}
	var doc struct {
		MCPServers map[string]struct{ Command string } `json:"mcpServers"`
	}
	raw, err := os.ReadFile(msix)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.MCPServers["ynab"].Command != `C:\Users\you\bin\avenir.exe` || doc.MCPServers["other"].Command != "other" {
		t.Errorf("the packaged Claude's file (%v):\n%s", err, raw)
	}
	if raw, err := os.ReadFile(classic); err != nil || string(raw) != `{"mcpServers":{}}` {
		t.Errorf("%%APPDATA%%'s file changed (%v):\n%s", err, raw)
	}
}

// TestConfigNameLength: a --name that would make one of avenir's tools, as a client names it
// for its model, longer than 64 characters is refused for the clients that prefix tool names,
// saying which client and why; one character less is taken. The tools are the ones the real
// binary offers in write mode, listed over stdio, not a copy of their names.
func TestConfigNameLength(t *testing.T) {
	env, _ := isolatedEnv(t)
	cs := connectServe(t, env, "2025-11-25", nil, "--sandbox")
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	longest := ""
	for _, tool := range listed.Tools {
		if len(tool.Name) > len(longest) {
			longest = tool.Name
		}
	}
	prefixes := map[string]string{"claude-code": "mcp__%s__", "gemini": "mcp_%s_", "qwen": "mcp_%s_", "opencode": "%s_"}
	for _, c := range clients {
		t.Run(c.id, func(t *testing.T) {
			format, prefixed := prefixes[c.id]
			if !prefixed {
				// A client that does not prefix takes the longest name the formats allow.
				if _, _, err := newConfigWorld(t, true).run(t, nil, c.id, "--name", strings.Repeat("n", 64)); err != nil {
					t.Fatalf("a 64-character name for %s: %v", c.name, err)
				}
				return
			}
			most := 64 - len(longest) - len(fmt.Sprintf(format, ""))
			fits := strings.Repeat("n", most)
			if full := fmt.Sprintf(format, fits) + longest; len(full) != 64 {
				t.Fatalf("the test's arithmetic: %q has %d characters", full, len(full))
			}
			if _, _, err := newConfigWorld(t, true).run(t, nil, c.id, "--name", fits); err != nil {
				t.Fatalf("a %d-character name for %s: %v", most, c.name, err)
			}
			_, _, err := newConfigWorld(t, true).run(t, nil, c.id, "--name", fits+"n")
			var ue *usageError
			want := []string{c.name, fmt.Sprintf(format, "NAME") + "TOOL", "over 64 characters", longest + " would have 65",
				fmt.Sprintf("at most %d characters", most)}
			if !errors.As(err, &ue) {
				t.Fatalf("a %d-character name for %s: %v; want a usage error", most+1, c.name, err)
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestToolNamesAsServed: the list the check reads is the binary's own, in write mode.
func TestToolNamesAsServed(t *testing.T) {
	env, _ := isolatedEnv(t)
	listed, err := connectServe(t, env, "2025-11-25", nil, "--sandbox").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, tool := range listed.Tools {
		served = append(served, tool.Name)
	}
	names, err := avenirToolNames()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(served)
	slices.Sort(names)
	if !slices.Equal(names, served) || !slices.Contains(names, "undo_operation") {
		t.Fatalf("config checks against %v; serve offers %v", names, served)
	}
}

func mustClient(t *testing.T, id string) clientSpec {
	t.Helper()
	c, ok := findClient(id)
	if !ok {
		t.Fatalf("no client %q", id)
	}
	return c
}
