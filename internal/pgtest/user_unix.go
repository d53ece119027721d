//go:build unix

package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// credential is the user PostgreSQL's binaries run as when the tests run as root: initdb and
// postgres refuse to run as root.
type credential = syscall.Credential

func postgresUser() (*credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs the postgres user (Debian's package makes it): %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("the postgres user's ids %q:%q are not numbers", u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func chown(path string, c *credential) error { return os.Chown(path, int(c.Uid), int(c.Gid)) }

func runAs(cmd *exec.Cmd, c *credential) { cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c} }
