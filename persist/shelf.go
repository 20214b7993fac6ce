package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// A shelf is the content of one session, or of one of its archives: the registry, the histories
// and the per-patient documents, each value sealed bound to its place (seal.go). Binding stops a
// value moving; it does not stop an older value of the same place being put back (the registry
// of an hour ago, say), nor a history losing its newest messages. So a shelf of an encrypted
// file keeps pins beside its content: the nonce of every value rewritten in place (each seal
// draws a fresh one) and the length of every history. A value whose nonce is not its pin, a
// pinned value gone, or a history of another length, is refused as a changed value is.
//
// The pins are grouped by patient, one sealed value each in the shelf's pins bucket, so a turn
// rewrites the pins of the patient it touched, not the whole shift's. The shelf's own group ("/":
// the registry and the session history) pins each patient's group in turn, so one patient's
// values cannot be put back with their pins either: only the whole shelf, as a copy of the file
// had it, passes for itself.
type shelf struct {
	b     *bolt.Bucket
	c     *sealer
	where place            // the shelf's own bucket
	pins  map[string]*pins // group → its pins, read on first use
	dirty map[string]bool  // groups whose pins changed: flush writes them
	cache *pinCache        // the store's decoded pins; nil reads every group afresh
}

// pins are one group's, as pins.go encodes them.
type pins struct {
	Values  map[string][]byte // "registry", "sim/patient_1" → the nonce of its seal
	Lengths map[string]uint64 // "session_history", "histories/patient_1" → messages
	Groups  map[string][]byte // in "/": each patient's group → the nonce of its seal
}

var bucketPins = []byte("pins")

// shelfGroup is the pins group of the shelf's own values (a patient ID never holds a '/').
const shelfGroup = "/"

var (
	errReplayed = errors.New("an encrypted value is not the one ward wrote last in its place: an older one was put back")
	errMissing  = errors.New("a value ward wrote is missing")
	errCut      = errors.New("a history does not hold the messages ward wrote: some were removed")
)

func sessionShelf(b *bolt.Bucket, c *sealer, sessionID string) shelf {
	return shelf{b: b, c: c, where: place{shift: sessionID, path: []string{string(bucketSessions), sessionID}}}
}

func archiveShelf(b *bolt.Bucket, c *sealer, sessionID, archiveID string) shelf {
	return shelf{b: b, c: c, where: place{shift: sessionID, path: []string{string(bucketArchive), sessionID, archiveID}}}
}

// pinned reports whether the shelf's pins are checked: in an encrypted file whose trainee's
// values are bound. Pins are kept whenever values are sealed.
func (s *shelf) pinned() bool { return s.c != nil && s.c.unbound == nil }

// groupOf is the pins group of a value at key in the bucket at rel: the patient it belongs to.
func groupOf(rel []string, key []byte) string {
	switch {
	case len(rel) == 2: // histories/<patient>
		return rel[1]
	case len(rel) == 1 && rel[0] != string(bucketSessionHistory): // <kind>/<patient>
		return string(key)
	}
	return shelfGroup
}

// group returns a group's pins, read from the file the first time.
func (s *shelf) group(g string) (*pins, error) {
	if p, ok := s.pins[g]; ok {
		return p, nil
	}
	if s.pins == nil {
		s.pins, s.dirty = map[string]*pins{}, map[string]bool{}
	}
	s.pins[g] = &pins{Values: map[string][]byte{}, Lengths: map[string]uint64{}, Groups: map[string][]byte{}}
	var stored []byte
	if b := s.b.Bucket(bucketPins); b != nil {
		stored = b.Get([]byte(g))
	}
	if err := s.checkGroup(g, stored); err != nil {
		return s.pins[g], err
	}
	if p := s.cache.get(pinKey(s.where, g), stored); p != nil {
		s.pins[g] = p
		return p, nil
	}
	plain, err := s.c.open(stored, s.where.in(string(bucketPins)).at([]byte(g)))
	if err != nil || plain == nil {
		return s.pins[g], err
	}
	p, err := decodePins(plain)
	if err == nil {
		s.pins[g] = p
	}
	return s.pins[g], err
}

// checkGroup refuses a patient's pins that are not the ones the shelf's own group pinned.
func (s *shelf) checkGroup(g string, stored []byte) error {
	if g == shelfGroup || !s.pinned() {
		return nil
	}
	root, err := s.group(shelfGroup)
	if err != nil {
		return err
	}
	pin, ok := root.Groups[g]
	switch {
	case stored == nil && ok:
		return &corruptValue{errMissing}
	case stored != nil && !bytes.Equal(pin, nonceOf(stored)):
		return &corruptValue{errReplayed}
	}
	return nil
}

// allPins reads every group's pins, to find a value or a history that is gone.
func (s *shelf) allPins() ([]*pins, error) {
	var groups []string
	if b := s.b.Bucket(bucketPins); b != nil {
		_ = b.ForEach(func(k, _ []byte) error { groups = append(groups, string(k)); return nil })
	}
	var all []*pins
	for _, g := range groups {
		p, err := s.group(g)
		if err != nil {
			return nil, err
		}
		all = append(all, p)
	}
	return all, nil
}

// flush writes the pins of the groups that changed.
func (s *shelf) flush() error {
	if len(s.dirty) == 0 {
		return nil
	}
	b, err := s.b.CreateBucketIfNotExists(bucketPins)
	if err != nil {
		return err
	}
	root, err := s.group(shelfGroup)
	if err != nil {
		return err
	}
	for g := range s.dirty {
		if g == shelfGroup {
			continue
		}
		stored, err := s.writePins(b, g)
		if err != nil {
			return err
		}
		root.Groups[g] = nonceOf(stored)
	}
	clear(s.dirty)
	_, err = s.writePins(b, shelfGroup)
	return err
}

// writePins seals a group's pins into b, and caches them once the transaction commits.
func (s *shelf) writePins(b *bolt.Bucket, g string) ([]byte, error) {
	stored := s.c.seal(encodePins(s.pins[g]), s.where.in(string(bucketPins)).at([]byte(g)))
	s.cache.putOnCommit(b.Tx(), pinKey(s.where, g), stored, s.pins[g])
	return stored, b.Put([]byte(g), stored)
}

func pinName(rel []string, key []byte) string { return strings.Join(append(rel, string(key)), "/") }

// put seals a value rewritten in place (the registry, a document) into b, the bucket at rel
// under the shelf, and pins it. The caller's bytes are copied: bbolt holds them until the commit.
func (s *shelf) put(b *bolt.Bucket, rel []string, key, plain []byte) error {
	if s.c == nil {
		plain = bytes.Clone(plain)
	}
	return s.putOwn(b, rel, bytes.Clone(key), plain)
}

// putOwn is put of a key and a value that nothing changes before the commit, such as bytes just
// encoded or a key's name in this package: bbolt is given them as they are, not a copy.
func (s *shelf) putOwn(b *bolt.Bucket, rel []string, key, plain []byte) error {
	if s.c == nil {
		return b.Put(key, plain)
	}
	return s.putSealed(b, rel, key, s.c.seal(plain, s.where.in(rel...).at(key))) // new bytes no one else holds
}

// putSealed is putOwn of a value sealed already by the shelf's sealer for its place (a Batch's).
func (s *shelf) putSealed(b *bolt.Bucket, rel []string, key, stored []byte) error {
	g := groupOf(rel, key)
	p, err := s.group(g)
	if err != nil {
		return err
	}
	p.Values[pinName(rel, key)] = nonceOf(stored)
	s.dirty[g] = true
	return b.Put(key, stored)
}

// get opens a value rewritten in place, stored at key in the bucket at rel (nil: none stored),
// and checks it is the one last written there.
func (s *shelf) get(rel []string, key, stored []byte) ([]byte, error) {
	plain, err := s.c.open(stored, s.where.in(rel...).at(key))
	if err != nil || !s.pinned() {
		return plain, err
	}
	p, err := s.group(groupOf(rel, key))
	if err != nil {
		return nil, err
	}
	pin, ok := p.Values[pinName(rel, key)]
	switch {
	case stored == nil && ok:
		return nil, &corruptValue{errMissing}
	case stored != nil && !bytes.Equal(pin, nonceOf(stored)):
		return nil, &corruptValue{errReplayed}
	}
	return plain, nil
}

// pinnedIn counts the pinned values of the bucket at rel, to find one removed.
func (s *shelf) pinnedIn(rel []string) (int, error) {
	if !s.pinned() {
		return 0, nil
	}
	all, err := s.allPins()
	n, prefix := 0, pinName(rel, nil)
	for _, p := range all {
		for name := range p.Values {
			if strings.HasPrefix(name, prefix) && !strings.Contains(name[len(prefix):], "/") {
				n++
			}
		}
	}
	return n, err
}

// pinnedLengths are the lengths pinned for the histories under rel's bucket (histories/<p>).
func (s *shelf) pinnedLengths(prefix string) (map[string]uint64, error) {
	out := map[string]uint64{}
	if !s.pinned() {
		return out, nil
	}
	all, err := s.allPins()
	for _, p := range all {
		for name, n := range p.Lengths {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				out[rest] = n
			}
		}
	}
	return out, err
}

// sealMessage seals one message of the history at rel for its key.
func (s *shelf) sealMessage(rel []string, key, plain []byte) []byte {
	return s.c.seal(plain, s.where.in(rel...).at(key))
}

func (s *shelf) openMessage(rel []string, key, stored []byte) ([]byte, error) {
	return s.c.open(stored, s.where.in(rel...).at(key))
}

// setLength pins how many messages the history at rel holds.
func (s *shelf) setLength(rel []string, n uint64) error {
	if s.c == nil {
		return nil
	}
	g := groupOf(rel, nil)
	p, err := s.group(g)
	if err != nil {
		return err
	}
	p.Lengths[strings.Join(rel, "/")] = n
	s.dirty[g] = true
	return nil
}

// checkLength refuses a history at rel that does not end at the n-th message, the length pinned.
func (s *shelf) checkLength(rel []string, n uint64) error {
	if !s.pinned() {
		return nil
	}
	p, err := s.group(groupOf(rel, nil))
	if err != nil {
		return err
	}
	if p.Lengths[strings.Join(rel, "/")] != n {
		return &corruptValue{errCut}
	}
	return nil
}

// pinnedLength is the length pinned for the history at rel, and whether pins are kept.
func (s *shelf) pinnedLength(rel []string) (uint64, bool) {
	if !s.pinned() {
		return 0, false
	}
	p, err := s.group(groupOf(rel, nil))
	if err != nil {
		return 0, false
	}
	return p.Lengths[strings.Join(rel, "/")], true
}

// A shelf's registry lies alone in a bucket of its own, since schema version 4. It is the one
// value of a shelf that grows with the roster (about 55 KB at 100 patients). In the shelf's own
// bucket it shared a page with the headers of the buckets every turn writes (the engines',
// memory's, the histories'), so every commit wrote it again, whether it had changed or not.
// It is sealed and pinned for the shelf's own place, where it lay before: its bucket is only
// where its pages are.

// storedRegistry is the shelf's registry as stored, sealed or plain; nil when there is none.
func (s *shelf) storedRegistry() []byte {
	if b := s.b.Bucket(bucketRegistry); b != nil {
		return b.Get(keyRegistry)
	}
	return nil
}

// registryForWrite is the bucket the shelf's registry is put in, created if it is not there.
func (s *shelf) registryForWrite() (*bolt.Bucket, error) { return bucketForWrite(s.b, bucketRegistry) }

// putRegistry seals and pins the registry's JSON and puts it in its bucket.
func (s *shelf) putRegistry(plain []byte) error {
	b, err := s.registryForWrite()
	if err != nil {
		return err
	}
	return s.put(b, nil, keyRegistry, plain)
}

// clearPins forgets every pin: the shelf's content was deleted.
func (s *shelf) clearPins() error {
	s.pins, s.dirty = map[string]*pins{}, map[string]bool{}
	if s.b.Bucket(bucketPins) == nil {
		return nil
	}
	return s.b.DeleteBucket(bucketPins)
}

// historyRel is the path of a patient's history under a shelf ("" = the session history).
func historyRel(patientID string) []string {
	if patientID == "" {
		return []string{string(bucketSessionHistory)}
	}
	return []string{string(bucketHistories), patientID}
}

func isHistory(rel []string) bool {
	return (len(rel) == 1 && rel[0] == string(bucketSessionHistory)) || (len(rel) == 2 && rel[0] == string(bucketHistories))
}

// copyShelf copies src's content into dst (whose content is empty), opening each value in its
// place in src and sealing it for its place in dst, sequences included, so appends after a
// restore continue after the restored keys. dst's pins are flushed.
func copyShelf(dst, src *shelf) error {
	if v := src.storedRegistry(); v != nil {
		plain, err := src.get(nil, keyRegistry, v)
		if err != nil {
			return fmt.Errorf("registry: %w", err)
		}
		if err := dst.putRegistry(plain); err != nil {
			return err
		}
	}
	for _, name := range contentBuckets {
		if from := src.b.Bucket(name); from != nil {
			to, err := dst.b.CreateBucket(name)
			if err != nil {
				return err
			}
			if err := copyTree(dst, src, []string{string(name)}, to, from); err != nil {
				return err
			}
		}
	}
	return dst.flush()
}

func copyTree(dst, src *shelf, rel []string, to, from *bolt.Bucket) error {
	to.FillPercent = historyFill // keys arrive in order, as on append
	if err := to.SetSequence(from.Sequence()); err != nil {
		return err
	}
	var messages uint64
	err := from.ForEach(func(k, v []byte) error {
		if v == nil {
			child, err := to.CreateBucket(bytes.Clone(k))
			if err != nil {
				return err
			}
			return copyTree(dst, src, append(rel[:len(rel):len(rel)], string(k)), child, from.Bucket(k))
		}
		if !isHistory(rel) {
			plain, err := src.get(rel, k, v)
			if err != nil {
				return fmt.Errorf("%s: %w", pinName(rel, k), err)
			}
			return dst.put(to, rel, k, plain)
		}
		plain, err := src.openMessage(rel, k, v)
		if err != nil {
			return fmt.Errorf("%s: %w", strings.Join(rel, "/"), err)
		}
		messages++
		return to.Put(bytes.Clone(k), bytes.Clone(dst.sealMessage(rel, k, plain)))
	})
	if err != nil || !isHistory(rel) {
		return err
	}
	if err := src.checkLength(rel, messages); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(rel, "/"), err)
	}
	return dst.setLength(rel, messages)
}

// putJSON stores v as JSON at p, sealed by c (nil: as it is).
func putJSON(b *bolt.Bucket, key []byte, v any, c *sealer, p place) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, c.seal(data, p))
}
