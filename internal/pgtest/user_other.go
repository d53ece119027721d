//go:build !unix

package pgtest

import (
	"errors"
	"os/exec"
)

// credential stands for the postgres user, which only a unix test run as root needs.
type credential struct{}

func postgresUser() (*credential, error) {
	return nil, errors.New("running PostgreSQL's binaries as another user is done on unix only")
}

func chown(string, *credential) error { return nil }

func runAs(*exec.Cmd, *credential) {}
