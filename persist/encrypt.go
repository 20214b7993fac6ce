package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Encrypt converts the plain database at path into an encrypted one. The encrypted copy is
// written to a new file that then takes the old one's name, because a file converted in place
// would keep plaintext in the pages bbolt frees; the old file's bytes are then overwritten with
// zeros (on a copy-on-write file system or an SSD that cannot promise the old blocks are gone).
//
// A shift that names no trainee is given to owner. Every trainee gets a data key sealed to the
// instructor only: Encrypt returns their names, and the instructor gives each a passphrase
// (SetPassphrase). The file must not be in use.
func Encrypt(path string, instructorPassphrase []byte, owner string) (trainees []string, err error) {
	if err := CheckPassphrase(instructorPassphrase, "", true); err != nil {
		return nil, err
	}
	if err := checkTraineeName(owner, true); err != nil {
		return nil, err
	}
	src, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	tmp := path + ".encrypting"
	_ = os.Remove(tmp) // what a conversion that crashed left behind
	err = src.db.View(func(tx *bolt.Tx) error {
		if src.encrypted(tx) {
			return errors.New("the database is encrypted already")
		}
		trainees, err = writeEncrypted(tx, tmp, instructorPassphrase, owner)
		return err
	})
	if err == nil {
		err = replace(path, tmp)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("encrypt %s: %w (the file was left as it was)", path, err)
	}
	return trainees, nil
}

// writeEncrypted writes the encrypted copy of the file tx reads to a new file at dst.
func writeEncrypted(tx *bolt.Tx, dst string, passphrase []byte, owner string) ([]string, error) {
	ik, _, err := newInstructorKey(passphrase)
	if err != nil {
		return nil, err
	}
	owners, err := sessionOwners(tx, owner)
	if err != nil {
		return nil, err
	}
	seals := map[string]*sealer{}
	db, err := bolt.Open(dst, 0o600, &bolt.Options{Timeout: lockTimeout})
	if err != nil {
		return nil, err
	}
	err = db.Update(func(out *bolt.Tx) error {
		if err := putInstructorKey(out, ik); err != nil {
			return err
		}
		sealFor := func(trainee string) (*sealer, error) {
			if c, ok := seals[trainee]; ok {
				return c, nil
			}
			dataKey := newDataKey()
			if err := putTraineeKey(out, trainee, dataKey, nil, true); err != nil {
				return nil, err
			}
			c, err := newSealer(trainee, dataKey, false)
			seals[trainee] = c
			return c, err
		}
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			to, err := out.CreateBucketIfNotExists(name)
			if err != nil {
				return err
			}
			switch string(name) {
			case string(bucketMeta), string(bucketEmbeddings), string(bucketClass): // nothing about a trainee
				return copyBucket(to, b)
			case string(bucketSessions):
				return encryptSessions(to, b, owners, sealFor)
			case string(bucketArchive):
				return encryptArchives(to, b, owners, owner, sealFor)
			case string(bucketTrainees):
				return encryptPrefs(to, b, sealFor)
			case string(bucketOutbox): // ids of records sent, nothing about a trainee
				if !emptyTree(b.Bucket(bucketWaiting)) {
					return errors.New("learning records wait in the outbox, in the clear: post them (ward report --lrs URL) before encrypting: nothing was converted")
				}
				return copyBucket(to, b)
			}
			return fmt.Errorf("the bucket %q is not ward's: nothing was converted", name)
		})
	})
	if err == nil {
		err = db.Sync()
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return slices.Sorted(maps.Keys(seals)), err
}

// sessionOwners maps each session to its trainee, owner for those that name none.
func sessionOwners(tx *bolt.Tx, owner string) (map[string]string, error) {
	owners := map[string]string{}
	err := tx.Bucket(bucketSessions).ForEachBucket(func(id []byte) error {
		info, err := readInfo(tx.Bucket(bucketSessions).Bucket(id))
		if err != nil {
			return fmt.Errorf("session %q: %w", id, err)
		}
		if info.Trainee == "" {
			info.Trainee = owner
		}
		owners[string(id)] = info.Trainee
		return nil
	})
	return owners, err
}

// encryptSessions copies every session: its info as it is (naming its trainee), the rest sealed
// with the trainee's data key.
func encryptSessions(dst, src *bolt.Bucket, owners map[string]string, sealFor func(string) (*sealer, error)) error {
	return src.ForEachBucket(func(id []byte) error {
		c, err := sealFor(owners[string(id)])
		if err != nil {
			return err
		}
		to, err := dst.CreateBucket(bytes.Clone(id))
		if err != nil {
			return err
		}
		from, into := sessionShelf(src.Bucket(id), nil, string(id)), sessionShelf(to, c, string(id))
		if err := copyShelf(&into, &from); err != nil {
			return err
		}
		var info SessionInfo
		if err := json.Unmarshal(src.Bucket(id).Get(keyInfo), &info); err != nil {
			return err
		}
		info.Trainee = owners[string(id)]
		return putJSON(to, keyInfo, info, nil, place{})
	})
}

// encryptArchives seals each archive with the data key of its session's trainee.
func encryptArchives(dst, src *bolt.Bucket, owners map[string]string, owner string, sealFor func(string) (*sealer, error)) error {
	return src.ForEachBucket(func(id []byte) error {
		trainee, ok := owners[string(id)]
		if !ok {
			trainee = owner
		}
		c, err := sealFor(trainee)
		if err != nil {
			return err
		}
		to, err := dst.CreateBucket(bytes.Clone(id))
		if err != nil {
			return err
		}
		return src.Bucket(id).ForEachBucket(func(at []byte) error {
			b, err := to.CreateBucket(bytes.Clone(at))
			if err != nil {
				return err
			}
			from, into := archiveShelf(src.Bucket(id).Bucket(at), nil, string(id), string(at)), archiveShelf(b, c, string(id), string(at))
			return copyShelf(&into, &from)
		})
	})
}

// encryptPrefs seals each trainee's preferences with their data key.
func encryptPrefs(dst, src *bolt.Bucket, sealFor func(string) (*sealer, error)) error {
	return src.ForEachBucket(func(name []byte) error {
		prefs := src.Bucket(name).Get(keyPrefs)
		if prefs == nil {
			return nil
		}
		c, err := sealFor(string(name))
		if err != nil {
			return err
		}
		return dst.Bucket(name).Put(keyPrefs, c.seal(prefs, prefsPlace(string(name))))
	})
}

// replace puts the file at tmp in place of the one at path, durably, then overwrites the old
// file's bytes, which no name reaches any more.
func replace(path, tmp string) error {
	old, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer old.Close()
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync() // the rename is durable once the directory is
		dir.Close()
	}
	info, err := old.Stat()
	if err != nil {
		return nil // the new file is in place; only the wipe is lost
	}
	zeros := make([]byte, 64*1024)
	for at := int64(0); at < info.Size(); at += int64(len(zeros)) {
		if _, err := old.WriteAt(zeros[:min(int64(len(zeros)), info.Size()-at)], at); err != nil {
			return nil
		}
	}
	_ = old.Sync()
	return nil
}
