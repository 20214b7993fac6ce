package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"runtime/debug"
	"syscall"
	"time"
)

// rawFile reads a bbolt file without bbolt, trusting nothing in it: every page number and offset
// is checked against the file before it is used, so damage gives an error instead of the
// assertion panics and SIGBUS faults bbolt meets on a damaged file. The layout it reads is
// bbolt's file format version 2 (go.etcd.io/bbolt/internal/common).
type rawFile struct {
	f        *os.File
	data     []byte // the whole file, mapped read-only
	pageSize uint64
	meta     boltMeta // the meta page bbolt would use
	other    *boltMeta
}

// boltMeta is the part of a bbolt meta page the reader uses.
type boltMeta struct {
	root     uint64 // page of the root bucket
	freelist uint64 // noFreelist when the free list is rebuilt on open
	pages    uint64 // high-water mark: pages 0..pages-1 are in use
	txid     uint64
}

const (
	boltMagic   = 0xED0CDAED
	boltVersion = 2
	noFreelist  = ^uint64(0)

	pageHeaderSize  = 16 // id u64, flags u16, count u16, overflow u32
	elementSize     = 16 // branch: pos u32, ksize u32, page u64; leaf: flags u32, pos u32, ksize u32, vsize u32
	bucketHeaderLen = 16 // root page u64 (0: the bucket is inline), sequence u64
	metaOffset      = pageHeaderSize
	metaChecksumAt  = 56 // magic, version, page size, flags, root bucket (16), freelist, pgid, txid

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagFreelist = 0x10
	flagBucket   = 0x01 // on a leaf element
)

// bbolt writes its pages in the machine's byte order.
var order = binary.NativeEndian

var (
	// errNotBolt: no meta page carries bbolt's magic number and version.
	errNotBolt = errors.New("not a bbolt file")
	// errFileLocked: another process holds the file's write lock.
	errFileLocked = errors.New("locked")
)

// damage is a problem found in a file's bytes.
type damage struct{ why string }

func (d *damage) Error() string { return d.why }

func damagef(format string, args ...any) error { return &damage{fmt.Sprintf(format, args...)} }

// openRaw maps the file read-only under a shared lock (the one bbolt's readers take) and reads
// its meta pages. The caller must close it.
func openRaw(path string) (*rawFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := &rawFile{f: f}
	if err := r.load(); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *rawFile) load() error {
	if err := lockShared(r.f); err != nil {
		return err
	}
	info, err := r.f.Stat()
	if err != nil {
		return err
	}
	if info.Size() < pageHeaderSize+metaChecksumAt+8 {
		return errNotBolt
	}
	if int64(int(info.Size())) != info.Size() {
		return fmt.Errorf("the file is too large to map (%d bytes)", info.Size())
	}
	if r.data, err = syscall.Mmap(int(r.f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED); err != nil {
		return err
	}
	return r.readMeta()
}

func (r *rawFile) close() {
	if r.data != nil {
		_ = syscall.Munmap(r.data)
	}
	_ = r.f.Close() // closing the descriptor releases its lock
}

// lockShared waits up to lockTimeout for a shared lock, as bbolt's read-only open does.
func lockShared(f *os.File) error {
	deadline := time.Now().Add(lockTimeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return errFileLocked
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// readMeta picks the meta page as bbolt does: the valid one with the higher transaction id.
// The page size comes from the first meta page, or else from the second one found at one of
// the sizes bbolt tries.
func (r *rawFile) readMeta() error {
	first, firstErr := r.metaAt(0)
	var second *boltMeta
	var secondErr error
	if firstErr == nil {
		second, secondErr = r.metaAt(r.pageSize)
	} else {
		secondErr = firstErr
		for size := uint64(1024); size <= 1<<24 && second == nil; size *= 2 {
			var err error
			if second, err = r.metaAt(size); err == nil {
				secondErr = nil
			} else if !errors.Is(err, errNotBolt) {
				secondErr = err
			}
		}
	}
	switch {
	case first == nil && second == nil:
		if errors.Is(firstErr, errNotBolt) && errors.Is(secondErr, errNotBolt) {
			return errNotBolt
		}
		return damagef("both of its meta pages are damaged")
	case first == nil || (second != nil && second.txid > first.txid):
		r.meta, r.other = *second, first
	default:
		r.meta, r.other = *first, second
	}
	return nil
}

// metaAt reads the meta page at offset at; a page without the magic number is errNotBolt. A
// valid first meta page sets the page size.
func (r *rawFile) metaAt(at uint64) (*boltMeta, error) {
	end := at + metaOffset + metaChecksumAt + 8
	if end > uint64(len(r.data)) {
		return nil, errNotBolt
	}
	m := r.data[at+metaOffset : end]
	if order.Uint32(m[0:]) != boltMagic || order.Uint32(m[4:]) != boltVersion {
		return nil, errNotBolt
	}
	h := fnv.New64a()
	h.Write(m[:metaChecksumAt])
	if h.Sum64() != order.Uint64(m[metaChecksumAt:]) {
		return nil, damagef("a meta page fails its checksum")
	}
	pageSize := uint64(order.Uint32(m[8:]))
	if pageSize < 1024 || pageSize > 1<<24 || pageSize&(pageSize-1) != 0 {
		return nil, damagef("a meta page gives an impossible page size %d", pageSize)
	}
	if r.pageSize == 0 {
		r.pageSize = pageSize
	}
	return &boltMeta{
		root:     order.Uint64(m[16:]),
		freelist: order.Uint64(m[32:]),
		pages:    order.Uint64(m[40:]),
		txid:     order.Uint64(m[48:]),
	}, nil
}

// rawPage is one page and its overflow pages, or an inline bucket's page.
type rawPage struct {
	id    uint64
	flags uint16
	count int
	buf   []byte // from the page header to the end of its last overflow page
}

// page reads page id of the tree whose high-water mark is pages.
func (r *rawFile) page(id, pages uint64) (rawPage, error) {
	if id < 2 || id >= pages {
		return rawPage{}, damagef("page %d is outside the %d pages in use", id, pages)
	}
	start := id * r.pageSize
	if start+r.pageSize > uint64(len(r.data)) {
		return rawPage{}, damagef("page %d lies past the end of the file", id)
	}
	p := parsePage(r.data[start : start+r.pageSize])
	if p.id != id {
		return rawPage{}, damagef("page %d identifies itself as page %d", id, p.id)
	}
	overflow := uint64(order.Uint32(r.data[start+12:]))
	if overflow >= pages-id {
		return rawPage{}, damagef("page %d has %d overflow pages, past the pages in use", id, overflow)
	}
	end := start + (1+overflow)*r.pageSize
	if end > uint64(len(r.data)) {
		return rawPage{}, damagef("page %d's overflow lies past the end of the file", id)
	}
	p.buf = r.data[start:end]
	return p, nil
}

// parsePage reads a page header; buf holds at least the header.
func parsePage(buf []byte) rawPage {
	return rawPage{
		id:    order.Uint64(buf[0:]),
		flags: order.Uint16(buf[8:]),
		count: int(order.Uint16(buf[10:])),
		buf:   buf,
	}
}

// element returns the i-th element's fields and its key and value (empty for a branch).
func (p rawPage) element(i int) (flags uint32, key, value []byte, child uint64, err error) {
	at := uint64(pageHeaderSize + i*elementSize)
	if at+elementSize > uint64(len(p.buf)) {
		return 0, nil, nil, 0, damagef("page %d: element %d lies outside the page", p.id, i)
	}
	e := p.buf[at : at+elementSize]
	var pos, ksize, vsize uint64
	if p.flags == flagBranch {
		pos, ksize, child = uint64(order.Uint32(e[0:])), uint64(order.Uint32(e[4:])), order.Uint64(e[8:])
	} else {
		flags = order.Uint32(e[0:])
		pos, ksize, vsize = uint64(order.Uint32(e[4:])), uint64(order.Uint32(e[8:])), uint64(order.Uint32(e[12:]))
	}
	start := at + pos
	if start+ksize+vsize > uint64(len(p.buf)) {
		return 0, nil, nil, 0, damagef("page %d: element %d points outside the page", p.id, i)
	}
	return flags, p.buf[start : start+ksize], p.buf[start+ksize : start+ksize+vsize], child, nil
}

// bucketRef is where a bucket's entries live: a root page, or the inline page in its value.
type bucketRef struct {
	root     uint64
	inline   rawPage
	sequence uint64
}

// found is false for the zero bucketRef, which stands for a bucket that was not found.
func (b bucketRef) found() bool { return b.root != 0 || b.inline.buf != nil }

// parseBucket reads a bucket entry's value.
func parseBucket(v []byte) (bucketRef, error) {
	if len(v) < bucketHeaderLen {
		return bucketRef{}, damagef("a bucket header is cut short")
	}
	b := bucketRef{root: order.Uint64(v[0:]), sequence: order.Uint64(v[8:])}
	if b.root != 0 {
		return b, nil
	}
	if len(v) < bucketHeaderLen+pageHeaderSize {
		return bucketRef{}, damagef("an inline bucket is cut short")
	}
	b.inline = parsePage(v[bucketHeaderLen:])
	// bbolt writes an inline page with id and overflow 0, and when the bucket grows it frees
	// the "page" its id names.
	if b.inline.flags != flagLeaf || b.inline.id != 0 || order.Uint32(v[bucketHeaderLen+12:]) != 0 {
		return bucketRef{}, damagef("an inline bucket's page header is damaged (id %d, flags %#x)", b.inline.id, b.inline.flags)
	}
	return b, nil
}

// entry is one key of a bucket: a value, or a nested bucket when isBucket.
type entry struct {
	key, value []byte
	isBucket   bool
}

// walker visits the entries of bucket trees in key order. strict checks what bbolt's own
// consistency check does (each page used once, of the right type, keys in order within the
// bounds its parent gives) and stops at the first problem; otherwise each problem is handed to
// lost and the page or entry it concerns is skipped.
type walker struct {
	r      *rawFile
	pages  uint64 // the high-water mark of the meta page in use
	strict bool
	seen   pageSet
	lost   func(error)
	used   uint64 // pages read since they were last handed back (forgetEvery)
}

func newWalker(r *rawFile, strict bool, lost func(error)) *walker {
	return &walker{r: r, pages: r.meta.pages, strict: strict, seen: make(pageSet, (r.meta.pages+63)/64), lost: lost}
}

// pageSet is a set of page numbers below the high-water mark.
type pageSet []uint64

func (s pageSet) has(id uint64) bool { return s[id/64]&(1<<(id%64)) != 0 }
func (s pageSet) add(id uint64)      { s[id/64] |= 1 << (id % 64) }

// problem stops a strict walk, and records the loss and goes on otherwise.
func (w *walker) problem(err error) error {
	if w.strict {
		return err
	}
	w.lost(err)
	return nil
}

// bucket visits the bucket's entries in key order.
func (w *walker) bucket(b bucketRef, visit func(entry) error) error {
	var last []byte
	emit := func(e entry) error {
		if last != nil && string(e.key) <= string(last) {
			return w.problem(damagef("key %x is out of order", e.key))
		}
		last = e.key
		return visit(e)
	}
	if b.root == 0 {
		return w.leaf(b.inline, emit)
	}
	return w.subtree(b.root, nil, nil, emit, 0)
}

// maxDepth bounds the descent, which the seen set already keeps finite; a B+tree of bbolt's
// pages is never this deep.
const maxDepth = 64

// subtree visits the entries under page id, whose keys must lie in [lo, hi) (nil: unbounded).
func (w *walker) subtree(id uint64, lo, hi []byte, emit func(entry) error, depth int) error {
	p, err := w.use(id)
	if err == nil && depth > maxDepth {
		err = damagef("page %d is nested too deep", id)
	}
	if err != nil {
		return w.problem(err)
	}
	if p.flags == flagLeaf {
		if w.strict && !leafWithin(p, lo, hi) {
			return damagef("leaf page %d holds keys outside the range its parent gives", id)
		}
		return w.leaf(p, emit)
	}
	if p.count == 0 {
		return w.problem(damagef("branch page %d is empty", id))
	}
	n, err := w.elements(p)
	if err != nil {
		return err
	}
	for i := range n {
		_, key, _, child, err := p.element(i)
		if err != nil {
			if err := w.problem(err); err != nil {
				return err
			}
			continue
		}
		next := hi
		if i+1 < n {
			if _, k, _, _, err := p.element(i + 1); err == nil {
				next = k
			}
		}
		if w.strict && (string(key) < string(lo) || (next != nil && string(key) >= string(next))) {
			return damagef("branch page %d: key %x is out of order", id, key)
		}
		if err := w.subtree(child, key, next, emit, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// use reads a tree page and marks it and its overflow pages as used.
func (w *walker) use(id uint64) (rawPage, error) {
	p, err := w.r.page(id, w.pages)
	if err != nil {
		return p, err
	}
	if p.flags != flagBranch && p.flags != flagLeaf {
		return p, damagef("page %d has flags %#x, not a branch's or a leaf's", id, p.flags)
	}
	n := uint64(len(p.buf)) / w.r.pageSize
	for i := id; i < id+n; i++ {
		if w.seen.has(i) {
			return p, damagef("page %d is used twice", i)
		}
	}
	for i := id; i < id+n; i++ {
		w.seen.add(i)
	}
	if w.used += n; w.used >= forgetEvery {
		forgetMapped(w.r.data) // the pages read so far go back to the page cache (pages.go)
		w.used = 0
	}
	return p, nil
}

// leafWithin reports whether the leaf's first key is at least lo and its last below hi; emit
// checks that the keys between are in order. Elements that cannot be read are the walk's to
// report.
func leafWithin(p rawPage, lo, hi []byte) bool {
	n := p.fitting()
	if n == 0 {
		return true
	}
	_, first, _, _, err1 := p.element(0)
	_, last, _, _, err2 := p.element(n - 1)
	return err1 != nil || err2 != nil || (string(first) >= string(lo) && (hi == nil || string(last) < string(hi)))
}

// fitting is how many of the page's elements lie inside it: damage can claim more.
func (p rawPage) fitting() int {
	return min(p.count, (len(p.buf)-pageHeaderSize)/elementSize)
}

// elements is the number of elements to read on the page, and a problem when it claims more
// than it holds.
func (w *walker) elements(p rawPage) (int, error) {
	n := p.fitting()
	if n < p.count {
		return n, w.problem(damagef("page %d claims %d elements but holds at most %d", p.id, p.count, n))
	}
	return n, nil
}

func (w *walker) leaf(p rawPage, emit func(entry) error) error {
	n, err := w.elements(p)
	if err != nil {
		return err
	}
	for i := range n {
		flags, key, value, _, err := p.element(i)
		if err == nil && flags&^flagBucket != 0 {
			err = damagef("page %d: element %d has flags %#x", p.id, i, flags)
		}
		if err != nil {
			if err := w.problem(err); err != nil {
				return err
			}
			continue
		}
		if err := emit(entry{key: key, value: value, isBucket: flags&flagBucket != 0}); err != nil {
			return err
		}
	}
	return nil
}

// safely runs fn, turning a memory fault into an error: the file is mapped, and if something
// outside ward truncates it meanwhile, reading the lost part faults.
func safely(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if fault, ok := p.(interface{ Addr() uintptr }); ok {
				err = damagef("the file changed while it was read (fault at %#x)", fault.Addr())
				return
			}
			panic(p)
		}
	}()
	return fn()
}
