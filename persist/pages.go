package persist

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// A read that goes through the whole file once (the damage check before a shift opens, a dump)
// would otherwise keep every page it read resident in this process through the file's memory
// map: 16 MiB for a shift of 100 patients × 1,000 messages, half of what a dump costs. The pages
// read so far are handed back every MiB or so: they stay in the kernel's page cache, the mapping
// stays valid, and a page read again is mapped again from the cache, without a disk read.

// forgetEvery is how many pages a whole-file read maps before it hands them back (1 MiB of
// 4 KiB pages).
const forgetEvery = 256

// forgetMapped hands a read-only shared mapping's pages back to the page cache.
func forgetMapped(data []byte) { _ = syscall.Madvise(data, syscall.MADV_DONTNEED) }

// forgetTxPages hands back the pages of bbolt's read-only mapping that tx can reach. bbolt gives
// the mapping's address only as a number, so it is passed to madvise as one.
func forgetTxPages(tx *bolt.Tx) {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, tx.DB().Info().Data, uintptr(tx.Size()), syscall.MADV_DONTNEED)
}
