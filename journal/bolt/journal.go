package bolt

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/oklog/ulid/v2"
	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout of the buckets this avenir writes (see the package doc). A
// journal with a higher version is refused, never read or changed.
const SchemaVersion = 1

// format marks a bbolt file as an avenir journal, so that another program's bbolt file that
// happens to have a meta bucket is not mistaken for one.
const format = "avenir journal"

var (
	// ErrNoJournal is returned by OpenExisting when the file does not exist yet.
	ErrNoJournal = errors.New("no journal yet: nothing has been recorded")
	// ErrNotJournal is returned for a file that is not an avenir journal, or is damaged.
	ErrNotJournal = errors.New("not an avenir journal")
	// ErrBusy is returned when another process held the journal for longer than the lock
	// timeout.
	ErrBusy = errors.New("the journal is in use by another avenir process; try again")
)

// Options tune a Journal. The zero value is what a server or the CLI wants.
type Options struct {
	LockTimeout time.Duration    // how long to wait for another process's lock; default 5s
	Now         func() time.Time // default time.Now
	Entropy     io.Reader        // ULID entropy; default crypto/rand, monotonic within a ms
}

// Journal is an avenir journal file. It does not hold the file open: each call opens it,
// runs one transaction and closes it again, because bbolt locks the file for as long as it is
// open and several processes (servers, the CLI) share it. A Journal is safe for concurrent use.
type Journal struct {
	path        string
	writable    bool
	lockTimeout time.Duration
	now         func() time.Time
	entropy     io.Reader // monotonic, safe for concurrent use
	session     string    // tells this Journal's writes in flight from a dead process's
}

// Open opens the journal at path for a server, creating its directory (0700) and the file
// (0600) if they do not exist. It refuses a file that is not a journal, is damaged or has a
// newer schema, and leaves such a file exactly as it was.
func Open(path string, opts Options) (*Journal, error) {
	j := newJournal(path, opts, true)
	if err := j.create(); err != nil {
		return nil, err
	}
	if err := j.view(context.Background(), func(*bbolt.Tx) error { return nil }); err != nil {
		return nil, err
	}
	return j, nil
}

// OpenExisting opens the journal at path for reading only, as the CLI does: it never creates
// or changes anything, and returns ErrNoJournal when the file does not exist.
func OpenExisting(path string, opts Options) (*Journal, error) {
	j := newJournal(path, opts, false)
	if err := j.view(context.Background(), func(*bbolt.Tx) error { return nil }); err != nil {
		return nil, err
	}
	return j, nil
}

// OpenExistingWritable opens the journal at path to write, as Open does, but never creates it:
// it returns ErrNoJournal when the file does not exist. It is for the CLI's one write (journal
// resolve), which must not leave a new, empty journal where there was none.
func OpenExistingWritable(path string, opts Options) (*Journal, error) {
	j := newJournal(path, opts, true)
	if err := j.view(context.Background(), func(*bbolt.Tx) error { return nil }); err != nil {
		return nil, err
	}
	return j, nil
}

func newJournal(path string, opts Options, writable bool) *Journal {
	j := &Journal{path: path, writable: writable, lockTimeout: opts.LockTimeout, now: opts.Now, session: ulid.Make().String()}
	if j.lockTimeout <= 0 {
		j.lockTimeout = 5 * time.Second
	}
	if j.now == nil {
		j.now = time.Now
	}
	entropy := opts.Entropy
	if entropy == nil {
		entropy = rand.Reader
	}
	j.entropy = &ulid.LockedMonotonicReader{MonotonicReader: ulid.Monotonic(entropy, 0)}
	return j
}

// create makes a new, empty journal at j.path unless a file is already there. The journal is
// built under a temporary name and linked into place, so the path only ever holds a complete
// journal, even if avenir is killed half-way or two servers start at once.
func (j *Journal) create() error {
	if _, err := os.Lstat(j.path); !errors.Is(err, fs.ErrNotExist) {
		return nil // exists (checked when opened) or unreadable (reported when opened)
	}
	dir := filepath.Dir(j.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the journal's directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(j.path)+".new-*")
	if err != nil {
		return fmt.Errorf("creating the journal: %w", err)
	}
	tmpPath := tmp.Name()
	defer os.Remove(tmpPath)
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("creating the journal: %w", err)
	}
	if err := initialize(tmpPath); err != nil {
		return fmt.Errorf("creating the journal: %w", err)
	}
	if err := os.Link(tmpPath, j.path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating the journal: %w", err)
	}
	return syncDir(dir)
}

// initialize creates the buckets and the meta data in the new, empty bbolt file at path.
func initialize(path string) error {
	db, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, name := range allBuckets {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		if err := meta.Put(keyFormat, []byte(format)); err != nil {
			return err
		}
		return meta.Put(keySchemaVersion, []byte(strconv.Itoa(SchemaVersion)))
	})
	return errors.Join(err, db.Close())
}

// syncDir makes a new directory entry durable. (Windows cannot sync a directory; NTFS
// journals its own metadata.)
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing the journal's directory: %w", err)
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// view runs fn in a read-only transaction on the verified journal.
func (j *Journal) view(ctx context.Context, fn func(*bbolt.Tx) error) error {
	return j.withDB(ctx, true, j.deadline(ctx), func(db *bbolt.DB) error {
		return db.View(func(tx *bbolt.Tx) error {
			if err := j.verify(tx); err != nil {
				return err
			}
			return fn(tx)
		})
	})
}

// update runs fn in a read-write transaction; its commit is fsync'd. bbolt trusts a file it
// opens for writing (it reads its free-page list at once, and a truncated file would crash the
// process), so the file is verified read-only first.
func (j *Journal) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if !j.writable {
		return fmt.Errorf("%s: the journal was opened read-only", j.path)
	}
	deadline := j.deadline(ctx)
	if err := j.withDB(ctx, true, deadline, func(db *bbolt.DB) error { return db.View(j.verify) }); err != nil {
		return err
	}
	return j.withDB(ctx, false, deadline, func(db *bbolt.DB) error { return db.Update(fn) })
}

// deadline is how long a call may wait for another process's lock: the lock timeout, or less
// if ctx ends sooner. (A transaction, once it has the file, is not interrupted: bbolt's
// transactions take no context, and one is short.)
func (j *Journal) deadline(ctx context.Context) time.Time {
	deadline := time.Now().Add(j.lockTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		return d
	}
	return deadline
}

// withDB opens the journal, waiting for another process's lock until deadline, runs fn and
// closes it again. It never creates the file: only create does, so a journal that disappears
// while a server runs is not silently replaced by an empty one.
//
// bbolt locks the file itself, but polls for the lock (every 50 ms): a poller loses to a
// process that takes the lock back at once, so a reader listing in a loop could keep a writer
// out past its timeout. So every process first queues on journal.lock beside the journal
// (lockFile), where the system hands the lock on as soon as it is free; bbolt's own lock then
// finds the file free, unless an avenir that does not queue holds it.
func (j *Journal) withDB(ctx context.Context, readOnly bool, deadline time.Time, fn func(*bbolt.DB) error) error {
	info, err := os.Stat(j.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", j.path, ErrNoJournal)
	case err != nil:
		return fmt.Errorf("reading the journal: %w", err)
	case !info.Mode().IsRegular():
		return j.notJournal("it is not a regular file")
	case info.Size() == 0:
		return j.notJournal("it is empty")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", j.path, err)
	}
	if time.Until(deadline) <= 0 {
		return j.busy(ctx, deadline)
	}
	unqueue, err := j.queue(ctx, deadline, !readOnly)
	if err != nil {
		return err
	}
	db, err := bbolt.Open(j.path, 0o600, &bbolt.Options{
		// Never 0, which bbolt takes for "wait for ever"; 1 ms is one try.
		Timeout:  max(time.Until(deadline), time.Millisecond),
		ReadOnly: readOnly,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			return os.OpenFile(name, flag&^os.O_CREATE, perm)
		},
	})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		err = j.busy(ctx, deadline)
	case errors.Is(err, fs.ErrNotExist):
		err = fmt.Errorf("%s: %w", j.path, ErrNoJournal)
	case errors.As(err, new(*fs.PathError)):
		err = fmt.Errorf("opening the journal: %w", err)
	case err != nil:
		err = j.notJournal(err.Error())
	default:
		err = errors.Join(fn(db), db.Close())
	}
	return errors.Join(err, unqueue())
}

// busy is the error of a wait for the lock that ended at deadline: the caller's context's own
// error when deadline was its deadline (its timer may not have fired yet), else ErrBusy.
func (j *Journal) busy(ctx context.Context, deadline time.Time) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", j.path, err)
	}
	if d, ok := ctx.Deadline(); ok && !d.After(deadline) {
		return fmt.Errorf("%s: %w", j.path, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s: %w", j.path, ErrBusy)
}

// queue takes journal.lock beside the journal, exclusive to write and shared to read, until
// deadline (ErrBusy after it) or until ctx ends (its error). A writer creates the lock file; a reader (the CLI) creates
// nothing, and goes without the queue where the file is missing or cannot be opened: bbolt's
// lock still keeps it from a writer, only less promptly.
func (j *Journal) queue(parent context.Context, deadline time.Time, write bool) (unqueue func() error, err error) {
	ctx, cancel := context.WithDeadline(parent, deadline)
	defer cancel()
	name := filepath.Join(j.lockDir(), "journal.lock")
	if write {
		if err := os.MkdirAll(j.lockDir(), 0o700); err != nil {
			return nil, fmt.Errorf("opening the journal: its lock: %w", err)
		}
	}
	unlock, err := lockFile(ctx, name, write, write)
	switch {
	case err == nil:
		return unlock, nil
	case parent.Err() != nil:
		return nil, fmt.Errorf("%s: %w", j.path, parent.Err())
	case ctx.Err() != nil:
		return nil, j.busy(parent, deadline)
	case write:
		return nil, fmt.Errorf("opening the journal: its lock: %w", err)
	}
	return func() error { return nil }, nil
}

// verify checks, before anything else is read, that the file is a whole avenir journal whose
// schema this avenir knows.
func (j *Journal) verify(tx *bbolt.Tx) error {
	info, err := os.Stat(j.path)
	if err != nil {
		return fmt.Errorf("reading the journal: %w", err)
	}
	if tx.Size() > info.Size() {
		return j.notJournal(fmt.Sprintf("it is damaged: %d bytes long where it should be %d; it was probably cut short", info.Size(), tx.Size()))
	}
	meta := tx.Bucket(bucketMeta)
	if meta == nil || string(meta.Get(keyFormat)) != format {
		return j.notJournal("it has no avenir meta data")
	}
	v, err := strconv.Atoi(string(meta.Get(keySchemaVersion)))
	switch {
	case err != nil || v < 1:
		return j.notJournal(fmt.Sprintf("its schema version %q is not valid", meta.Get(keySchemaVersion)))
	case v > SchemaVersion:
		return fmt.Errorf("%s: %w (schema %d; this avenir reads schema %d at most): upgrade avenir to use it; the file was left untouched",
			j.path, journal.ErrNewerSchema, v, SchemaVersion)
	}
	for _, name := range allBuckets {
		if tx.Bucket(name) == nil {
			return j.notJournal(fmt.Sprintf("its %s bucket is missing", name))
		}
	}
	return nil
}

func (j *Journal) notJournal(detail string) error {
	return fmt.Errorf("%s: %w (%s); the file was left untouched", j.path, ErrNotJournal, detail)
}
