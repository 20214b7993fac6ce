package persist

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"errors"

	"golang.org/x/crypto/chacha20poly1305"
)

// A sealed value is sealedMagic, a random 24-byte nonce, then the XChaCha20-Poly1305 ciphertext
// of the JSON it holds. The magic's zero byte starts no JSON document, so a sealed value and a
// plain one never pass for each other.
var sealedMagic = []byte{0, 'w', 's', 1}

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
	head := len(sealedMagic) + c.aead.NonceSize()
	out := make([]byte, head, head+len(plain)+c.aead.Overhead())
	copy(out, sealedMagic)
	nonce := out[len(sealedMagic):head]
	_, _ = rand.Read(nonce) // crypto/rand never fails on the systems Go supports
	return c.aead.Seal(out, nonce, plain, nil)
}

// open returns the JSON a stored value holds. Without a sealer the stored bytes are returned as
// they are (still the transaction's memory). A sealed value must be sealed, and a plain one
// plain, and a sealed one must open: otherwise the file was changed behind ward's back, and the
// error is a damaged value.
func (c *sealer) open(stored []byte) ([]byte, error) {
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
	}
	head := len(sealedMagic) + c.aead.NonceSize()
	if len(stored) < head+c.aead.Overhead() {
		return nil, &corruptValue{errTampered}
	}
	plain, err := c.aead.Open(nil, stored[len(sealedMagic):head], stored[head:], nil)
	if err != nil {
		return nil, &corruptValue{errTampered}
	}
	return plain, nil
}

// isSealed reports whether a stored value is encrypted.
func isSealed(v []byte) bool { return bytes.HasPrefix(v, sealedMagic) }
