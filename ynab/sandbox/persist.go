package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// stateFormat names the sandbox's state files, so that a file that is not one is never
// mistaken for one (nor overwritten).
const (
	stateFormat  = "avenir-sandbox-state"
	stateVersion = 1
)

type stateFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	World   *world `json:"world"`
	// Users are the OAuth users' copies of the sample, by login name, and OAuth what was
	// granted to whom (oauth.go); both absent in a sandbox nobody signed in to.
	Users map[string]*world `json:"users,omitempty"`
	OAuth *oauthState       `json:"oauth,omitempty"`
}

// load reads the state saved at path; a missing file (or path "") gives nil and no error.
func load(path string) (*stateFile, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox state %s: %w", path, err)
	}
	var sf stateFile
	if err := json.Unmarshal(b, &sf); err != nil {
		return nil, fmt.Errorf("sandbox state %s is not readable (%v): remove it to start again from the sample", path, err)
	}
	switch {
	case sf.Format != stateFormat:
		return nil, fmt.Errorf("sandbox state %s is not an avenir sandbox state file: remove it or choose another file", path)
	case sf.Version != stateVersion:
		return nil, fmt.Errorf("sandbox state %s has version %d, this avenir reads version %d: remove it to start again from the sample", path, sf.Version, stateVersion)
	case sf.World == nil || len(sf.World.Plans) == 0 || sf.World.findPlan(sf.World.LastUsed) == nil:
		return nil, fmt.Errorf("sandbox state %s holds no usable plan: remove it to start again from the sample", path)
	}
	for login, w := range sf.Users {
		if w == nil || len(w.Plans) == 0 || w.findPlan(w.LastUsed) == nil {
			return nil, fmt.Errorf("sandbox state %s holds no usable plan for the user %q: remove it to start again from the sample", path, login)
		}
	}
	return &sf, nil
}

// save writes the whole state to the state file, atomically: a temporary file in the same
// directory, synced, then renamed over the old one. The directory is 0700 and the file 0600.
// Callers hold s.mu.
func (s *Sandbox) save() error {
	path := s.opts.StatePath
	if path == "" {
		return nil
	}
	b, err := json.Marshal(stateFile{Format: stateFormat, Version: stateVersion, World: s.w, Users: s.users, OAuth: s.oauth.saved()})
	if err != nil {
		return fmt.Errorf("encode the sandbox state: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sandbox state directory %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".sandbox-*.tmp")
	if err != nil {
		return fmt.Errorf("sandbox state %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write sandbox state %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync sandbox state %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write sandbox state %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("sandbox state %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("sandbox state %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sandbox state directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync sandbox state directory %s: %w", dir, err)
	}
	return nil
}
