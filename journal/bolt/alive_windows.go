//go:build windows

package bolt

import (
	"errors"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code GetExitCodeProcess gives a process that has not exited
// (STILL_ACTIVE).
const stillActive = 259

// processAlive says whether a process with this id runs. Windows has no signal 0: the process
// is opened for its exit code, which is STILL_ACTIVE until it ends (an ended process can still
// be opened while another holds a handle to it). A process of another user cannot be opened,
// and counts as running.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return true
	}
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true // it exists; what it is doing is not known, so it is left alone
	}
	return code == stillActive
}
