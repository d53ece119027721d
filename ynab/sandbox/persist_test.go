package sandbox_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/avenir-mcp/avenir/ynab"
	"github.com/avenir-mcp/avenir/ynab/sandbox"
	"github.com/avenir-mcp/avenir/ynab/sandbox/sandboxtest"
)

func TestStateOutlivesARestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "sandbox.json")
	a := newAPI(t, sandbox.Options{StatePath: path})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	a.ok(200, "PATCH", plan+"/months/current/categories/"+n.id(t, "Restaurants"), budget(150000), nil)
	var created saved
	a.ok(201, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Contant"), "date": "2026-09-15",
		"amount": -4500, "payee_name": "Snackbar", "category_id": n.id(t, "Restaurants")}), &created)

	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s has mode %o, want %o", p, got, want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the state directory holds %d files, want only the state file", len(entries))
	}

	again, err := sandbox.New(sandbox.Options{StatePath: path, Now: sandboxtest.FixedNow})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := a.sb.Export(sandbox.PlanID)
	after, _ := again.Export(sandbox.PlanID)
	if !reflect.DeepEqual(before, after) {
		t.Error("a sandbox loaded from the state file serves another plan than the one that saved it")
	}
	b := newAPI(t, sandbox.Options{StatePath: path})
	var tx struct {
		Transaction     ynab.Transaction `json:"transaction"`
		ServerKnowledge int64            `json:"server_knowledge"`
	}
	b.ok(200, "GET", plan+"/transactions/"+created.Transaction.ID, nil, &tx)
	if tx.ServerKnowledge != 1002 || *tx.Transaction.PayeeName != "Snackbar" {
		t.Errorf("after the restart: knowledge %d, payee %v", tx.ServerKnowledge, tx.Transaction.PayeeName)
	}
	var delta struct{ Payees []ynab.Payee }
	b.ok(200, "GET", plan+"/payees?last_knowledge_of_server=1001", nil, &delta)
	if len(delta.Payees) != 1 || delta.Payees[0].Name != "Snackbar" {
		t.Errorf("the delta after a restart = %+v, want only Snackbar", delta.Payees)
	}
}

func TestBadStateFilesAreRefusedByName(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"not JSON", "{{{", "not readable"},
		{"another program's file", `{"format":"something-else","version":1}`, "not an avenir sandbox state file"},
		{"a newer version", `{"format":"avenir-sandbox-state","version":99,"world":{}}`, "version 99"},
		{"no plans", `{"format":"avenir-sandbox-state","version":1,"world":{"plans":[]}}`, "no usable plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := sandbox.New(sandbox.Options{StatePath: path})
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one naming %s and saying %q", err, path, tt.want)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.content {
				t.Error("the refused file was changed")
			}
		})
	}
}

func TestServerCloseSaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	sb, err := sandbox.New(sandbox.Options{StatePath: path, Now: sandboxtest.FixedNow})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sb.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || !strings.HasSuffix(srv.URL, "/v1") {
		t.Errorf("URL = %s", srv.URL)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("no state file after Close: %v", err)
	}
}

func TestResetRestoresTheSampleAndKeepsDeltasExact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sandbox.json")
	a := newAPI(t, sandbox.Options{StatePath: path})
	n := sampleNames(t, a.sb, sandbox.PlanID)
	var created saved
	a.ok(201, "POST", plan+"/transactions", one(map[string]any{"account_id": n.id(t, "Contant"), "date": "2026-09-15",
		"amount": -4500, "payee_name": "Snackbar"}), &created)
	a.ok(201, "POST", plan+"/categories", map[string]any{"category": map[string]any{"name": "Huisdieren", "category_group_id": n.id(t, "group:Dagelijks")}}, nil)
	a.ok(200, "PATCH", plan+"/months/current/categories/"+n.id(t, "Restaurants"), budget(1), nil)
	k := a.knowledge()

	if err := a.sb.Reset(); err != nil {
		t.Fatal(err)
	}
	fresh, _ := sandbox.New(sandbox.Options{Now: sandboxtest.FixedNow})
	want, _ := fresh.Export(sandbox.PlanID)
	got, _ := a.sb.Export(sandbox.PlanID)
	want.LastModifiedOn, got.LastModifiedOn = "", ""
	if !reflect.DeepEqual(got, want) {
		t.Error("after Reset the plan is not the sample")
	}
	var delta struct {
		Transactions    []ynab.Transaction `json:"transactions"`
		ServerKnowledge int64              `json:"server_knowledge"`
	}
	a.ok(200, "GET", plan+"/transactions?last_knowledge_of_server="+strconv.FormatInt(k, 10), nil, &delta)
	deleted := false
	for _, tx := range delta.Transactions {
		if tx.ID == created.Transaction.ID {
			deleted = tx.Deleted
		}
	}
	if !deleted || delta.ServerKnowledge <= k {
		t.Errorf("after Reset a delta from %d (now %d) does not show the created transaction deleted", k, delta.ServerKnowledge)
	}
	reloaded, err := sandbox.New(sandbox.Options{StatePath: path, Now: sandboxtest.FixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := reloaded.Export(sandbox.PlanID); len(d.Transactions) != 83 {
		t.Errorf("the saved state after Reset has %d transactions, want the sample's 83", len(d.Transactions))
	}
}
