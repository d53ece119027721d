package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkStartupToToolsList: from starting `avenir serve --sandbox` to the answer to the first
// tools/list, as an MCP client sees it (process start, sandbox start, handshake, tools/list).
func BenchmarkStartupToToolsList(b *testing.B) {
	bin := avenirBinary(b)
	dir := b.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_STATE_HOME=" + dir, "AVENIR_MCP_JOURNAL=" + filepath.Join(dir, "j.db")}
	ctx := context.Background()
	for _, protocol := range []string{"2026-07-28", "2025-06-18"} {
		b.Run(protocol, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bin, "serve", "--sandbox", "--log-level", "error")
				cmd.Env = env
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
					Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := cs.ListTools(ctx, nil); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cs.Close()
				b.StartTimer()
			}
		})
	}
}
