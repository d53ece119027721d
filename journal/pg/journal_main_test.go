package pg_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/avenir-mcp/avenir/internal/pgtest"
)

// Tests that need another process (an instance to kill) run this test binary again as a
// child, in the role this variable names (see runChild).
const roleVar = "AVENIR_PG_JOURNAL_TEST_ROLE"

// TestMain runs the package's tests on one PostgreSQL cluster (a database each), or plays a
// child's role.
func TestMain(m *testing.M) {
	if role := os.Getenv(roleVar); role != "" {
		if err := runChild(role); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(pgtest.Main(m))
}
