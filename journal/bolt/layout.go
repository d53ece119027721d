package bolt

import (
	"bytes"
	"fmt"

	"github.com/avenir-mcp/avenir/journal"
	"github.com/oklog/ulid/v2"
	"go.etcd.io/bbolt"
)

// The buckets; doc.go describes what each holds.
var (
	bucketMeta     = []byte("meta")
	bucketEvents   = []byte("events")
	bucketOps      = []byte("ops")
	bucketByPlan   = []byte("by_plan")
	bucketByTool   = []byte("by_tool")
	bucketByStatus = []byte("by_status")
	bucketInFlight = []byte("in_flight")

	allBuckets = [][]byte{bucketMeta, bucketEvents, bucketOps, bucketByPlan, bucketByTool, bucketByStatus, bucketInFlight}

	keyFormat        = []byte("format")
	keySchemaVersion = []byte("schema_version")
)

// idLen is the length of a key made of one ULID: 16 bytes, most significant first, so that
// byte order is time order.
const idLen = len(ulid.ULID{})

// parseID turns an operation id as people see it into its key.
func parseID(id string) ([]byte, error) {
	u, err := journal.ParseID(id)
	if err != nil {
		return nil, err
	}
	return u[:], nil
}

// idString turns a key back into an id.
func idString(key []byte) string {
	var u ulid.ULID
	copy(u[:], key)
	return u.String()
}

// indexBucket is the sub-bucket of index (by_plan, by_tool or by_status) for one value, or nil
// if no operation has that value.
func indexBucket(tx *bbolt.Tx, index []byte, value string) *bbolt.Bucket {
	if value == "" {
		return nil
	}
	return tx.Bucket(index).Bucket([]byte(value))
}

// addToIndex records that the operation keyed op has value in index.
func addToIndex(tx *bbolt.Tx, index []byte, value string, op []byte) error {
	b, err := tx.Bucket(index).CreateBucketIfNotExists([]byte(value))
	if err != nil {
		return fmt.Errorf("index %s %q: %w", index, value, err)
	}
	return b.Put(op, nil)
}

// inIndex says whether the operation keyed op is in the index sub-bucket b. (It seeks rather
// than gets: bbolt's Get cannot tell an empty value from a missing one inside a write.)
func inIndex(b *bbolt.Bucket, op []byte) bool {
	if b == nil {
		return false
	}
	k, _ := b.Cursor().Seek(op)
	return bytes.Equal(k, op)
}

// removeFromIndex forgets that the operation keyed op has value in index.
func removeFromIndex(tx *bbolt.Tx, index []byte, value string, op []byte) error {
	if b := indexBucket(tx, index, value); b != nil {
		return b.Delete(op)
	}
	return nil
}
