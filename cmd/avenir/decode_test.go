package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultInto decodes a tool result's structured content into out. It returns the content as
// JSON, for a test's messages, and an error where the content is not what out can hold.
func resultInto(res *mcp.CallToolResult, out any) ([]byte, error) {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("encoding the structured content: %w", err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return b, fmt.Errorf("decoding the structured content %s: %w", b, err)
	}
	return b, nil
}

// mustResult is resultInto for a test's own goroutine: an undecodable result fails the test.
func mustResult(t testing.TB, res *mcp.CallToolResult, out any) []byte {
	t.Helper()
	b, err := resultInto(res, out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mustDecode decodes JSON a test expects to be well formed, failing the test where it is not.
func mustDecode(t testing.TB, raw []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
}

// mustJSON encodes a value built of plain data (maps, slices, strings, numbers, the ynab
// package's structs), which cannot fail; for the test helpers that have no testing.TB, a
// failure is a panic rather than an empty value that would compare as something.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encoding %#v: %v", v, err))
	}
	return b
}
