package persist

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"

	"golang.org/x/crypto/chacha20poly1305"
)

// A sealed value is still JSON, so every value ward stores stays JSON (dumps, archives and
// damage checks rely on it): {"sealed":"<base64 of nonce ‖ XChaCha20-Poly1305 ciphertext>"}.
var (
	sealedPrefix = []byte(`{"sealed":"`)
	sealedSuffix = []byte(`"}`)
)

var (
	errSealedInPlain = errors.New("an encrypted value in a database that holds no keys")
	errPlainInSealed = errors.New("a value that is not encrypted in an encrypted database: it was written by something other than ward")
	errTampered      = errors.New("an encrypted value does not open with its key: it was changed after ward wrote it")
)

// sealer encrypts the values of one trainee's records with their data key. A nil sealer is a
// database without encryption: values pass through unchanged.
type sealer struct {
	aead cipher.AEAD
	key  []byte // kept to wrap again under a new passphrase
}

// newSealer takes a 32-byte data key.
func newSealer(key []byte) (*sealer, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, err
	}
	return &sealer{aead, key}, nil
}

// seal encrypts a JSON value under a fresh random nonce; XChaCha20's 24-byte nonces make a
// collision negligible however many values one key seals.
func (c *sealer) seal(plain []byte) []byte {
	if c == nil {
		return plain
	}
	n := c.aead.NonceSize()
	box := make([]byte, n, n+len(plain)+c.aead.Overhead())
	_, _ = rand.Read(box) // crypto/rand never fails on the systems Go supports
	box = c.aead.Seal(box, box[:n], plain, nil)
	out := make([]byte, 0, len(sealedPrefix)+base64.StdEncoding.EncodedLen(len(box))+len(sealedSuffix))
	out = append(out, sealedPrefix...)
	out = base64.StdEncoding.AppendEncode(out, box)
	return append(out, sealedSuffix...)
}

// open returns the JSON a stored value holds. Without a sealer the stored bytes are returned as
// they are (still the transaction's memory). A sealed value must be sealed, and a plain one
// plain, and a sealed one must open: otherwise the file was changed behind ward's back, and the
// error is a damaged value.
func (c *sealer) open(stored []byte) ([]byte, error) {
	body, sealed := sealedBody(stored)
	switch {
	case stored == nil:
		return nil, nil
	case c == nil && !sealed:
		return stored, nil
	case c == nil:
		return nil, &corruptValue{errSealedInPlain}
	case !sealed:
		return nil, &corruptValue{errPlainInSealed}
	}
	box, err := base64.StdEncoding.AppendDecode(nil, body)
	n := c.aead.NonceSize()
	if err != nil || len(box) < n+c.aead.Overhead() {
		return nil, &corruptValue{errTampered}
	}
	plain, err := c.aead.Open(box[n:n], box[:n], box[n:], nil)
	if err != nil {
		return nil, &corruptValue{errTampered}
	}
	return plain, nil
}

func sealedBody(v []byte) ([]byte, bool) {
	if !bytes.HasPrefix(v, sealedPrefix) || !bytes.HasSuffix(v, sealedSuffix) || len(v) < len(sealedPrefix)+len(sealedSuffix) {
		return nil, false
	}
	return v[len(sealedPrefix) : len(v)-len(sealedSuffix)], true
}
