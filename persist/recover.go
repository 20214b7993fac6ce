package persist

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist/outfile"
	bolt "go.etcd.io/bbolt"
)

// RecoverReport says what Recover copied into the new file and what it could not read.
type RecoverReport struct {
	Path      string // the new file
	Sessions  int
	Archives  int
	Messages  int
	Documents int    // registries and per-patient documents
	Lost      []Loss // in the order met
	// Unchecked counts the encrypted values copied without being authenticated: recover reads
	// the damaged file without keys, so until CheckSealed opens them, none is known good.
	Unchecked int
}

// Loss is what could not be read in one bucket of the damaged file.
type Loss struct {
	Where      string // the bucket, as "sessions/<id>/histories/<patient>"
	Values     int    // values known to be lost: messages missing from a history, values that do not decode
	Unreadable int    // pages or entries that could not be read at all: what they held is unknown
	Why        string // the first problem met there
}

func (r RecoverReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recovered %d session(s), %d archive(s), %d message(s) and %d document(s) into %s\n",
		r.Sessions, r.Archives, r.Messages, r.Documents, r.Path)
	switch {
	case len(r.Lost) == 0 && r.Unchecked == 0:
		b.WriteString("nothing was lost\n")
	case r.Unchecked > 0:
		fmt.Fprintf(&b, "%d encrypted value(s) were copied but not checked: they open only with a key, so any of them may have been changed (ward recover --instructor opens each one and leaves out what does not authenticate)\n", r.Unchecked)
	}
	for _, l := range r.Lost {
		fmt.Fprintf(&b, "lost in %s: %d value(s), %d unreadable page(s) or entries (%s)\n", l.Where, l.Values, l.Unreadable, l.Why)
	}
	return b.String()
}

// Recover copies every readable part of the ward database at damagedPath into a new database at
// newPath, which must not exist: sessions with their info, registry, histories message by
// message and per-patient documents, and the archives. It reads the damaged file without bbolt
// and without writing to it, so no damage can crash it or spread. Values that do not decode are
// left out, a history's messages are numbered again without gaps, and a session whose info is
// lost gets one rebuilt from its id. The new file is opened and every session dumped before
// Recover returns.
func Recover(damagedPath, newPath string) (RecoverReport, error) {
	rep := RecoverReport{Path: newPath}
	// Lstat: a symbolic link, even to nothing, is not followed. The damaged file is refused too.
	if _, err := os.Lstat(newPath); !errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("recover: %s %w; name a new file", newPath, outfile.ErrExists)
	}
	if err := outfile.Check(newPath, false); err != nil { // a new name ward keeps for itself (DB.keys)
		return rep, fmt.Errorf("recover: %w", err)
	}
	src, err := openRaw(damagedPath)
	var d *damage
	if errors.As(err, &d) {
		return rep, fmt.Errorf("recover: nothing in %s can be read (%s)", damagedPath, d.why)
	}
	if err != nil {
		return rep, fileError(damagedPath, err)
	}
	defer src.close()
	if err := os.MkdirAll(filepath.Dir(newPath), 0o700); err != nil {
		return rep, err
	}
	err = copyReadable(src, newPath, &rep)
	if err == nil {
		err = verifyRecovered(newPath)
	}
	if err != nil {
		_ = os.Remove(newPath)
		return rep, fmt.Errorf("recover %s: %w", damagedPath, err)
	}
	return rep, nil
}

// copyReadable writes the new file in one transaction.
func copyReadable(src *rawFile, newPath string, rep *RecoverReport) error {
	db, err := bolt.Open(newPath, 0o600, &bolt.Options{Timeout: lockTimeout})
	if err != nil {
		return err
	}
	err = safely(func() error {
		return db.Update(func(tx *bolt.Tx) error { return (&copier{rep: rep}).all(src, tx) })
	})
	return errors.Join(err, db.Close())
}

// copier copies the readable part of a damaged file's layout, which is described in store.go
// (meta, sessions, archive), session.go and archive.go.
type copier struct {
	rep *RecoverReport
	w   *walker
}

func (c *copier) all(src *rawFile, tx *bolt.Tx) error {
	if p, err := src.page(src.meta.root, src.meta.pages); (err != nil || (p.flags != flagBranch && p.flags != flagLeaf)) && src.other != nil {
		c.loss("the last commit", 0, 1, "its root page is unreadable; the commit before it was recovered instead")
		src.meta = *src.other
	}
	c.w = newWalker(src, false, nil)
	top := map[string]bucketRef{}
	for name, ref := range c.nested(bucketRef{root: src.meta.root}, "the file") {
		top[name] = ref
	}
	version := schemaVersion()
	if v, err := strconv.Atoi(string(c.value(top[string(bucketMeta)], keySchemaVersion, "meta"))); err == nil && v >= 1 {
		version = v
	}
	if version > schemaVersion() {
		return fmt.Errorf("its schema version %d is newer than this ward's %d; recover it with a newer ward", version, schemaVersion())
	}
	if err := initialise(tx); err != nil {
		return err
	}
	// The new file has the damaged file's schema version: Open migrates it.
	if err := tx.Bucket(bucketMeta).Put(keySchemaVersion, []byte(strconv.Itoa(version))); err != nil {
		return err
	}
	if _, ok := top[string(bucketSessions)]; !ok {
		c.loss("the file", 0, 0, "its sessions bucket is lost")
	}
	sessions, archives := tx.Bucket(bucketSessions), tx.Bucket(bucketArchive)
	for key, ref := range c.nested(top[string(bucketSessions)], "sessions") {
		if err := c.session(sessions, key, ref); err != nil {
			return err
		}
	}
	for key, ref := range c.nested(top[string(bucketArchive)], "archive") {
		if err := c.archives(archives, key, ref); err != nil {
			return err
		}
		if id := sessionID(key); sessions.Bucket([]byte(id)) == nil { // archives are read through their session
			if _, err := c.newSession(sessions, id, nil, "archives are filed under this id but no session has it: an empty one now holds them"); err != nil {
				return err
			}
		}
	}
	// An encrypted file's keys and its trainees' sealed preferences go across as they are: the
	// sealed values copied above open only with them. The class's curriculum goes with them.
	for _, name := range [][]byte{bucketKeys, bucketTrainees, bucketClass} {
		if ref, ok := top[string(name)]; ok {
			b, err := tx.CreateBucket(name)
			if err == nil {
				err = c.tree(b, ref, string(name))
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// tree copies a bucket's readable values and nested buckets as they are.
func (c *copier) tree(dst *bolt.Bucket, ref bucketRef, where string) error {
	for _, e := range c.entries(ref, where) {
		if !e.isBucket {
			c.sealed(e.value)
			if err := dst.Put(e.key, e.value); err != nil {
				return err
			}
			continue
		}
		child, err := parseBucket(e.value)
		if err != nil {
			c.loss(where, 0, 1, fmt.Sprintf("bucket %s: %v", name(e.key), err))
			continue
		}
		b, err := dst.CreateBucket(e.key)
		if err == nil {
			err = c.tree(b, child, where+"/"+name(e.key))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// entries reads a bucket's readable entries; what cannot be read is a loss at where.
func (c *copier) entries(b bucketRef, where string) []entry {
	var out []entry
	c.w.lost = func(err error) { c.loss(where, 0, 1, err.Error()) }
	_ = c.w.bucket(b, func(e entry) error {
		if len(e.key) == 0 || len(e.key) > bolt.MaxKeySize {
			c.loss(where, 1, 0, fmt.Sprintf("a key of %d bytes, which bbolt never writes", len(e.key)))
		} else {
			out = append(out, e)
		}
		return nil
	})
	return out
}

// nested iterates over the buckets nested in b, in key order; a plain value there is lost. A
// bucket that was not found (the zero bucketRef) has none.
func (c *copier) nested(b bucketRef, where string) func(yield func(string, bucketRef) bool) {
	return func(yield func(string, bucketRef) bool) {
		if !b.found() {
			return
		}
		for _, e := range c.entries(b, where) {
			ref, err := parseBucket(e.value)
			switch {
			case !e.isBucket:
				c.loss(where, 1, 0, fmt.Sprintf("a value %s where ward keeps only buckets", name(e.key)))
			case err != nil:
				c.loss(where, 0, 1, fmt.Sprintf("bucket %s: %v", name(e.key), err))
			default:
				if !yield(string(e.key), ref) {
					return
				}
			}
		}
	}
}

// value reads one plain value of a bucket, nil when it cannot be read.
func (c *copier) value(b bucketRef, key []byte, where string) []byte {
	if !b.found() {
		return nil
	}
	for _, e := range c.entries(b, where) {
		if string(e.key) == string(key) && !e.isBucket {
			return e.value
		}
	}
	return nil
}

// sessionID is the id under which the archives filed under key go in the new file: the key,
// with any bytes that are not UTF-8 replaced, because a session's info holds its id in JSON.
func sessionID(key string) string { return strings.ToValidUTF8(key, "?") }

func (c *copier) session(sessions *bolt.Bucket, key string, ref bucketRef) error {
	where := "sessions/" + name([]byte(key))
	ents := c.entries(ref, where)
	info, id := c.sessionInfo(sessions, key, ents, where)
	b, err := c.newSession(sessions, id, info, "the session's info is lost; rebuilt from its id")
	if err != nil {
		return err
	}
	return c.content(b, ents, where)
}

// sessionInfo finds the session's info and the id the session gets in the new file. A key and
// an info that disagree mean that one of them was damaged: the info's id is kept, as the
// session's archives are filed under it too, unless a session already has it.
func (c *copier) sessionInfo(sessions *bolt.Bucket, key string, ents []entry, where string) (info []byte, id string) {
	id = sessionID(key)
	for _, e := range ents {
		var si SessionInfo
		if string(e.key) != string(keyInfo) || e.isBucket || decodeStored(e.value, &si) != nil {
			continue
		}
		if si.ID != key && si.ID != "" && sessions.Bucket([]byte(si.ID)) == nil {
			id = si.ID
		}
		info = e.value
		if si.ID != id {
			si.ID = id
			info, _ = json.Marshal(si)
		}
	}
	if id != key {
		c.loss(where, 0, 0, "its key was damaged or disagrees with its info; the session is now "+strconv.Quote(id))
	}
	return info, id
}

// newSession creates a session with its stored info, or else with one rebuilt from its id, for
// the reason why.
func (c *copier) newSession(sessions *bolt.Bucket, id string, info []byte, why string) (*bolt.Bucket, error) {
	if info == nil {
		c.loss("sessions/"+name([]byte(id)), 1, 0, why)
		info, _ = json.Marshal(SessionInfo{ID: id})
	}
	b, err := sessions.CreateBucket([]byte(id))
	if err != nil {
		return nil, err
	}
	c.rep.Sessions++
	return b, b.Put(keyInfo, info)
}

// archives copies the snapshots of one session.
func (c *copier) archives(archive *bolt.Bucket, key string, ref bucketRef) error {
	where := "archive/" + name([]byte(key))
	var perSession *bolt.Bucket
	for id, snap := range c.nested(ref, where) {
		if _, err := time.Parse(time.RFC3339Nano, id); err != nil {
			c.loss(where, 1, 0, fmt.Sprintf("archive %s has a damaged id", name([]byte(id))))
			continue
		}
		if perSession == nil {
			var err error
			if perSession, err = archive.CreateBucket([]byte(sessionID(key))); err != nil {
				return err
			}
		}
		b, err := perSession.CreateBucket([]byte(id))
		if err != nil {
			return err
		}
		c.rep.Archives++
		at := where + "/" + id
		if err := c.content(b, c.entries(snap, at), at); err != nil {
			return err
		}
	}
	return nil
}

// content copies a session's or a snapshot's registry, histories and documents.
func (c *copier) content(dst *bolt.Bucket, ents []entry, where string) error {
	for _, e := range ents {
		key := string(e.key)
		ref, refErr := bucketRef{}, error(nil)
		if e.isBucket {
			ref, refErr = parseBucket(e.value)
		}
		var err error
		switch {
		case refErr != nil:
			c.loss(where, 0, 1, fmt.Sprintf("bucket %s: %v", name(e.key), refErr))
		case key == string(keyInfo) && !e.isBucket:
			// the session's info, copied by session
		case key == string(bucketPins) && e.isBucket:
			var pins *bolt.Bucket
			if pins, err = dst.CreateBucket(bucketPins); err == nil {
				err = c.tree(pins, ref, where+"/"+key)
			}
		case key == string(bucketRegistry) && e.isBucket:
			err = c.registryBucket(dst, ref, where+"/"+key)
		case key == string(keyRegistry) && !e.isBucket: // where it lay before schema version 4
			err = c.registry(dst, e.value, where)
		case key == string(bucketSessionHistory) && e.isBucket:
			err = c.history(dst, bucketSessionHistory, ref, where+"/"+key)
		case key == string(bucketHistories) && e.isBucket:
			err = c.histories(dst, ref, where+"/"+key)
		case e.isBucket && checkKind(key) == nil:
			err = c.docs(dst, e.key, ref, where+"/"+key)
		default:
			c.loss(where, 1, 0, fmt.Sprintf("%s is not part of a ward session", name(e.key)))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// registryBucket copies the registry from its bucket; anything else there is lost.
func (c *copier) registryBucket(dst *bolt.Bucket, ref bucketRef, where string) error {
	for _, e := range c.entries(ref, where) {
		if e.isBucket || !bytes.Equal(e.key, keyRegistry) {
			c.loss(where, 1, 0, fmt.Sprintf("%s is not part of a ward session", name(e.key)))
			continue
		}
		if err := c.registry(dst, e.value, where); err != nil {
			return err
		}
	}
	return nil
}

// registry copies a registry that decodes, or is sealed, into its bucket in dst.
func (c *copier) registry(dst *bolt.Bucket, value []byte, where string) error {
	if _, err := decodeRegistry(value); err != nil && !isSealed(value) {
		c.loss(where, 1, 0, "the registry does not decode")
		return nil
	}
	c.rep.Documents++
	c.sealed(value)
	b, err := bucketForWrite(dst, bucketRegistry)
	if err != nil {
		return err
	}
	return b.Put(keyRegistry, value)
}

func (c *copier) histories(dst *bolt.Bucket, ref bucketRef, where string) error {
	h, err := dst.CreateBucket(bucketHistories)
	if err != nil {
		return err
	}
	for pid, hist := range c.nested(ref, where) {
		if err := c.history(h, []byte(pid), hist, where+"/"+name([]byte(pid))); err != nil {
			return err
		}
	}
	return nil
}

// history copies the messages that decode, numbered again from 1 so that the history's
// sequence is its length, as Append keeps it. An encrypted message keeps its number, which its
// seal is bound to. The damaged history's sequence says how many messages it held.
func (c *copier) history(dst *bolt.Bucket, key []byte, ref bucketRef, where string) error {
	h, err := dst.CreateBucket(key)
	if err != nil {
		return err
	}
	h.FillPercent = historyFill
	n, last := 0, uint64(0)
	for _, e := range c.entries(ref, where) {
		var m memory.Message
		if e.isBucket || (!isSealed(e.value) && decodeStored(e.value, &m) != nil) {
			c.loss(where, 0, 0, fmt.Sprintf("message %x does not decode", e.key))
			continue
		}
		n++
		at := seqKey(uint64(n))
		if isSealed(e.value) && len(e.key) == 8 {
			at = e.key
		}
		last = max(last, binary.BigEndian.Uint64(at))
		c.sealed(e.value)
		if err := h.Put(at, e.value); err != nil {
			return err
		}
	}
	if missing := int(ref.sequence) - n; missing > 0 && ref.sequence < 1<<32 {
		c.loss(where, missing, 0, fmt.Sprintf("%d of its %d messages are missing", missing, ref.sequence))
	}
	c.rep.Messages += n
	return h.SetSequence(last)
}

func (c *copier) docs(dst *bolt.Bucket, kind []byte, ref bucketRef, where string) error {
	b, err := dst.CreateBucket(kind)
	if err != nil {
		return err
	}
	for _, e := range c.entries(ref, where) {
		if e.isBucket || !(isSealed(e.value) || json.Valid(e.value)) {
			c.loss(where, 1, 0, fmt.Sprintf("the document of %s does not decode", name(e.key)))
			continue
		}
		c.rep.Documents++
		c.sealed(e.value)
		if err := b.Put(e.key, e.value); err != nil {
			return err
		}
	}
	return nil
}

// sealed counts a value copied as it is that only a key can authenticate.
func (c *copier) sealed(v []byte) {
	if isSealed(v) {
		c.rep.Unchecked++
	}
}

// loss adds to the report's entry for where, keeping the first reason.
func (c *copier) loss(where string, values, unreadable int, why string) {
	for i := range c.rep.Lost {
		if l := &c.rep.Lost[i]; l.Where == where {
			l.Values += values
			l.Unreadable += unreadable
			return
		}
	}
	c.rep.Lost = append(c.rep.Lost, Loss{Where: where, Values: values, Unreadable: unreadable, Why: why})
}

// name prints a key from the damaged file: as it is when it is plain text, quoted otherwise, so
// that damaged bytes never reach the terminal raw.
func name(key []byte) string {
	if len(key) == 0 || !utf8.Valid(key) || strings.ContainsRune(string(key), '/') {
		return strconv.Quote(string(key))
	}
	for _, r := range string(key) {
		if !unicode.IsPrint(r) {
			return strconv.Quote(string(key))
		}
	}
	return string(key)
}
