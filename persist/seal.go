package persist

import (
	"bytes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"slices"

	"golang.org/x/crypto/chacha20poly1305"
)

// A sealed value is a 4-byte mark, a random 24-byte nonce, then the XChaCha20-Poly1305
// ciphertext of the JSON it holds. The mark's zero byte starts no JSON document, so a sealed
// value and a plain one never pass for each other.
//
// A value sealed today (boundMagic) is bound to its place: the associated data names the trainee,
// the shift, the bucket path and the key it is stored under, and it is sealed with a key derived
// from the trainee's data key for that purpose alone. So a value moved, swapped with another,
// copied over another or carried into another shift fails to open as a changed one does. Values
// written before ward bound them (unboundMagic, the data key itself, no associated data) are read
// only to bind them, once (bind.go).
var (
	unboundMagic = []byte{0, 'w', 's', 1}
	boundMagic   = []byte{0, 'w', 's', 2}
)

const sealHead = 4 + chacha20poly1305.NonceSizeX

var (
	errSealedInPlain = errors.New("an encrypted value in a database that holds no keys")
	errPlainInSealed = errors.New("a value that is not encrypted in an encrypted database: it was written by something other than ward")
	errTampered      = errors.New("an encrypted value does not open with its key in its place: it was changed, moved or copied after ward wrote it")
	errUnbound       = errors.New("an encrypted value of the old kind, not bound to its place, in records ward has bound: it was put there after ward bound them")
)

// sealer encrypts the values of one trainee's records with their data key. A nil sealer is a
// database without encryption: values pass through unchanged.
type sealer struct {
	trainee string
	bound   cipher.AEAD // seals and opens values bound to their place
	unbound cipher.AEAD // opens values of the old kind; nil once the trainee's records are bound
	key     []byte      // kept to wrap again under a new passphrase
}

// newSealer takes a trainee's 32-byte data key. unbound says their records may still hold values
// sealed before ward bound them to their place.
func newSealer(trainee string, key []byte, unbound bool) (*sealer, error) {
	sub, err := hkdf.Key(sha256.New, key, nil, "ward: values bound to their place", chacha20poly1305.KeySize)
	if err != nil {
		return nil, err
	}
	c := &sealer{trainee: trainee, key: key}
	if c.bound, err = chacha20poly1305.NewX(sub); err != nil {
		return nil, err
	}
	if unbound {
		c.unbound, _ = chacha20poly1305.NewX(key) // the same size as sub, which NewX took
	}
	return c, nil
}

// place is where a value is stored: its shift ("" for a trainee's own values), the path of
// buckets from the file's root, and its key.
type place struct {
	shift string
	path  []string
	sub   []string // buckets nested below path: kept apart, so naming a value's place copies no path
	key   []byte
}

// at is the place of key in the same bucket.
func (p place) at(key []byte) place { p.key = key; return p }

// in is the place of a bucket nested in p's bucket.
func (p place) in(names ...string) place {
	if len(p.sub) > 0 {
		return place{shift: p.shift, path: slices.Concat(p.path, p.sub, names)}
	}
	return place{shift: p.shift, path: p.path, sub: names}
}

// aad is the associated data of a value at p: every part length-prefixed, so no two places
// encode alike.
func (c *sealer) aad(p place) []byte {
	out := []byte("ward: a sealed value and its place")
	for _, names := range [...][]string{{c.trainee, p.shift}, p.path, p.sub} {
		for _, n := range names {
			out = appendPart(out, n)
		}
	}
	return appendPart(out, p.key)
}

func appendPart[T string | []byte](out []byte, part T) []byte {
	out = binary.AppendUvarint(out, uint64(len(part)))
	return append(out, part...)
}

// seal encrypts a JSON value for its place under a fresh random nonce; XChaCha20's 24-byte
// nonces make a collision negligible however many values one key seals.
func (c *sealer) seal(plain []byte, at place) []byte {
	if c == nil {
		return plain
	}
	out := make([]byte, sealHead, sealHead+len(plain)+c.bound.Overhead())
	copy(out, boundMagic)
	nonce := out[len(boundMagic):sealHead]
	_, _ = rand.Read(nonce) // crypto/rand never fails on the systems Go supports
	return c.bound.Seal(out, nonce, plain, c.aad(at))
}

// open returns the JSON a stored value holds. Without a sealer the stored bytes are returned as
// they are (still the transaction's memory). A sealed value must be sealed, and a plain one
// plain, and a sealed one must open in its place: otherwise the file was changed behind ward's
// back, and the error is a damaged value.
func (c *sealer) open(stored []byte, at place) ([]byte, error) {
	sealed := isSealed(stored)
	switch {
	case stored == nil:
		return nil, nil
	case c == nil && !sealed:
		return stored, nil
	case c == nil:
		return nil, &corruptValue{errSealedInPlain}
	case !sealed:
		return nil, &corruptValue{errPlainInSealed}
	case len(stored) < sealHead+c.bound.Overhead():
		return nil, &corruptValue{errTampered}
	}
	aead, aad := c.bound, c.aad(at)
	if bytes.HasPrefix(stored, unboundMagic) {
		if c.unbound == nil {
			return nil, &corruptValue{errUnbound}
		}
		aead, aad = c.unbound, nil
	}
	plain, err := aead.Open(nil, stored[4:sealHead], stored[sealHead:], aad)
	if err != nil {
		return nil, &corruptValue{errTampered}
	}
	return plain, nil
}

// nonceOf is a sealed value's nonce, which no other sealed value shares: what pins it.
func nonceOf(stored []byte) []byte {
	if len(stored) < sealHead {
		return nil
	}
	return stored[4:sealHead]
}

// isSealed reports whether a stored value is encrypted.
func isSealed(v []byte) bool {
	return bytes.HasPrefix(v, boundMagic) || bytes.HasPrefix(v, unboundMagic)
}
