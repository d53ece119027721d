package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// committed is avenir's server.json as committed.
func committed(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestCommittedServerJSON: the committed server.json passes the registry's schema and
// avenir's rules.
func TestCommittedServerJSON(t *testing.T) {
	if err := check(committed(t), ""); err != nil {
		t.Fatal(err)
	}
}

// TestFill: a release's server.json carries its version, its bundle's address and the
// bundle's SHA-256, and passes; checked against another file, the hash is refused.
func TestFill(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "avenir-1.2.3.mcpb")
	if err := os.WriteFile(bundle, []byte("a bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "server.json")
	var msg strings.Builder
	if err := run([]string{"-fill", "-version", "1.2.3", "-bundle", bundle, "-o", out, filepath.Join("..", "server.json")}, &msg); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s, err := decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Packages[0]
	if s.Version != "1.2.3" || got.Version != "1.2.3" ||
		got.Identifier != "https://github.com/avenir-mcp/avenir/releases/download/v1.2.3/avenir-1.2.3.mcpb" {
		t.Errorf("filled: %s", raw)
	}
	if want, _ := fileSHA256(bundle); got.FileSHA256 != want || len(want) != 64 {
		t.Errorf("fileSha256 %s, want %s", got.FileSHA256, want)
	}
	other := filepath.Join(dir, "other.mcpb")
	if err := os.WriteFile(other, []byte("another bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-bundle", other, out}, &msg); err == nil || !strings.Contains(err.Error(), "is not the bundle's") {
		t.Errorf("another bundle's hash: %v", err)
	}
	// The description, name and title survive the fill as committed.
	c, _ := decode(committed(t))
	if s.Description != c.Description || s.Name != c.Name || s.Title != c.Title || s.Repository == nil {
		t.Errorf("the fill changed what it should keep: %s", raw)
	}
}

// TestRefused: what the registry's schema refuses is refused here too (so the schema is in
// force, not just parsed), and so is what breaks avenir's own rules.
func TestRefused(t *testing.T) {
	base := string(committed(t))
	tests := []struct{ name, from, to, want string }{
		{"a description over 100 characters", `"description": "`, `"description": "` + strings.Repeat("x", 95), "maxLength"},
		{"a name without its namespace", `"name": "io.github.avenir-mcp/avenir"`, `"name": "avenir"`, "name"},
		{"a package version of latest", `"version": "0.0.0-dev",
      "fileSha256"`, `"version": "latest",
      "fileSha256"`, "/packages/0/version"},
		{"a hash that is not SHA-256 hex", `"0000000000000000000000000000000000000000000000000000000000000000"`, `"ABC"`, "fileSha256"},
		{"a website that is no URI", `"websiteUrl": "https://github.com/avenir-mcp/avenir#readme"`, `"websiteUrl": "not a uri"`, "websiteUrl"},
		{"no transport", `"transport": {
        "type": "stdio"
      }`, `"transport": {}`, "transport"},
		{"another server's name", `"name": "io.github.avenir-mcp/avenir"`, `"name": "io.github.someone/avenir"`, "want \"io.github.avenir-mcp/avenir\""},
		{"a download of another version", `/v0.0.0-dev/avenir-0.0.0-dev.mcpb`, `/v0.0.1/avenir-0.0.1.mcpb`, "identifier"},
		{"a field avenir does not know", `"websiteUrl"`, `"remotes": [], "websiteUrl"`, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(base, tt.from) {
				t.Fatalf("server.json no longer has %q", tt.from)
			}
			err := check([]byte(strings.Replace(base, tt.from, tt.to, 1)), "")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}
