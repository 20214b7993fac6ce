package persist

import (
	"errors"
	"fmt"
)

// checkFile refuses a file that bbolt could crash on, before bbolt opens it for writing: that
// open walks every page to rebuild the free list, and bbolt meets a damaged page with a panic
// or a memory fault. The walk here reads the same pages through rawFile and checks what bbolt's
// own consistency check does, plus what its cursors and commits assume (no empty branch page,
// elements inside their page, inline buckets whose page says page 0). BenchmarkOpen measures
// what it costs. Errors call the file name: a snapshot checks its private copy of the file.
func checkFile(path, name string) error {
	r, err := openRaw(path)
	if err != nil {
		return fileError(name, err)
	}
	defer r.close()
	return fileError(name, safely(r.check))
}

// fileError turns rawFile's errors into Open's.
func fileError(path string, err error) error {
	var d *damage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errFileLocked):
		return lockedError(path)
	case errors.Is(err, errNotBolt):
		return notWard(path, "not a bbolt file")
	case errors.As(err, &d):
		return damaged(path, d.why)
	}
	return fmt.Errorf("open database %s: %w", path, err)
}

func lockedError(path string) error {
	return &openError{ErrLocked, fmt.Sprintf(
		"database %s is in use by another ward process (close it, or pass --db to use another file)", path)}
}

func damaged(path, why string) error {
	return &openError{ErrDamaged, fmt.Sprintf(
		"the database %s is damaged (%s); it was left untouched — `ward recover --db %s --out NEW` copies what is readable into a new file",
		path, why, path)}
}

func (r *rawFile) check() error {
	if need := r.meta.pages * r.pageSize; need > uint64(len(r.data)) {
		return damagef("it is %d bytes long but its pages take %d: it was cut short", len(r.data), need)
	}
	w := newWalker(r, true, nil)
	var free []uint64
	if r.meta.freelist != noFreelist {
		var err error
		if free, err = w.freelist(r.meta.freelist); err != nil {
			return err
		}
	}
	if err := w.tree(bucketRef{root: r.meta.root}); err != nil {
		return err
	}
	for _, id := range free {
		if w.seen.has(id) {
			return damagef("page %d is both free and in use", id)
		}
	}
	return nil
}

// tree walks a bucket and every bucket nested in it.
func (w *walker) tree(b bucketRef) error {
	return w.bucket(b, func(e entry) error {
		if !e.isBucket {
			return nil
		}
		child, err := parseBucket(e.value)
		if err != nil {
			return w.problem(err)
		}
		return w.tree(child)
	})
}

// freelist reads the free list page bbolt writes when it does not rebuild the list on open
// (ward's own commits never write one, but a file created by another bbolt program has one).
func (w *walker) freelist(id uint64) ([]uint64, error) {
	p, err := w.r.page(id, w.pages)
	if err != nil {
		return nil, err
	}
	if p.flags != flagFreelist {
		return nil, damagef("free list page %d has flags %#x", id, p.flags)
	}
	for i := id; i < id+uint64(len(p.buf))/w.r.pageSize; i++ {
		w.seen.add(i)
	}
	at, n := uint64(pageHeaderSize), uint64(p.count)
	if n == 0xFFFF { // the count did not fit the header: it is the first element
		if at+8 > uint64(len(p.buf)) {
			return nil, damagef("free list page %d is cut short", id)
		}
		n, at = order.Uint64(p.buf[at:]), at+8
	}
	if n > (uint64(len(p.buf))-at)/8 {
		return nil, damagef("free list page %d lists more pages than it holds", id)
	}
	free := make([]uint64, n)
	dup := map[uint64]bool{}
	for i := range free {
		free[i] = order.Uint64(p.buf[at+uint64(i)*8:])
		if free[i] < 2 || free[i] >= w.pages || dup[free[i]] {
			return nil, damagef("free list page %d lists page %d wrongly", id, free[i])
		}
		dup[free[i]] = true
	}
	return free, nil
}
