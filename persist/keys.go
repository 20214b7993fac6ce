package persist

import (
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/chacha20poly1305"
)

// The keys of an encrypted database. Each trainee's records are sealed with their own random
// 32-byte data key, which the file holds only wrapped: once under a key derived (argon2id) from
// the trainee's passphrase, and once sealed to the instructor's X25519 public key, whose private
// key the file holds wrapped under the instructor's passphrase. So a trainee's passphrase opens
// their own records only, the instructor's opens every trainee's, and a trainee can be enrolled
// without the instructor at the keyboard. No key is ever written unwrapped.
//
//	keys/instructor         instructorKey
//	trainees/<name>/key     traineeKey
//	trainees/<name>/prefs   the trainee's preferences, sealed with their data key
//
// Every value is JSON and none depends on where it sits in the file, so recover copies these
// buckets as they are; the values the data keys seal are bound to their places (seal.go).

// instructorKey is the instructor's key pair, the private half wrapped.
type instructorKey struct {
	Public  []byte   `json:"public"`
	Private passWrap `json:"private"`
}

// traineeKey is one trainee's data key, wrapped twice. Own is nil until the trainee has a
// passphrase: a database converted by the instructor holds each trainee's key for the
// instructor only, until the instructor gives the trainee a passphrase.
//
// Bound says the trainee's values are all sealed bound to their place (seal.go); a key written
// before ward bound them lacks it, and the trainee's values are bound when their key is next
// opened by a writer (bind.go).
//
// Members is a team's (team.go): its data key boxed under each member's own data key, by member.
type traineeKey struct {
	Own        *passWrap         `json:"own,omitempty"`
	Instructor []byte            `json:"instructor"` // ephemeral public key ‖ nonce ‖ ciphertext
	Bound      bool              `json:"bound,omitempty"`
	Members    map[string][]byte `json:"members,omitempty"` // nonce ‖ ciphertext
}

// passWrap is a secret encrypted under a key derived from a passphrase, with the parameters
// that derive it again.
type passWrap struct {
	Salt      []byte `json:"salt"`
	Time      uint32 `json:"time"`
	MemoryKiB uint32 `json:"memory_kib"`
	Threads   uint8  `json:"threads"`
	Box       []byte `json:"box"` // nonce ‖ ciphertext
}

// kdfParams are argon2id's cost: passes, memory and lanes.
type kdfParams struct {
	time, memoryKiB uint32
	threads         uint8
}

// recommendedKDF is RFC 9106's second recommended setting: 3 passes over 64 MiB, 4 lanes.
// BenchmarkSignIn measures what it costs.
var recommendedKDF = kdfParams{3, 64 * 1024, 4}

// kdfCost is the cost of a new wrap; tests lower it to cheapKDF.
var kdfCost = recommendedKDF

// cheapKDF is the least argon2id cost: a passphrase check in microseconds.
var cheapKDF = kdfParams{1, 64, 1}

// CheapKDFForTests makes every new passphrase wrap use cheapKDF, for the test binaries of other
// packages that create encrypted databases by the dozen: at the recommended cost a derivation
// takes tens of milliseconds, and seconds under the race detector. A wrap stores its own cost,
// so what is made under it opens anywhere. Only a TestMain calls it; BenchmarkSignIn measures
// the real cost, and the class-load test runs the ward binary, which never lowers it.
func CheapKDFForTests() { kdfCost = cheapKDF }

// ErrWrongPassphrase is a passphrase that does not open the key it was given for. Nothing is
// written when it happens.
var ErrWrongPassphrase = errors.New("wrong passphrase")

const dataKeySize = chacha20poly1305.KeySize

func newDataKey() []byte {
	k := make([]byte, dataKeySize)
	_, _ = rand.Read(k)
	return k
}

// wrapWithPassphrase encrypts secret under a key argon2id derives from passphrase and a fresh
// salt. aad names what the secret is, so a wrap cannot be passed off as another's.
func wrapWithPassphrase(passphrase, secret []byte, aad string) passWrap {
	w := passWrap{Salt: make([]byte, 16), Time: kdfCost.time, MemoryKiB: kdfCost.memoryKiB, Threads: kdfCost.threads}
	_, _ = rand.Read(w.Salt)
	w.Box = boxSeal(w.key(passphrase), secret, aad)
	return w
}

func (w passWrap) key(passphrase []byte) []byte {
	return argon2.IDKey(passphrase, w.Salt, w.Time, w.MemoryKiB, w.Threads, chacha20poly1305.KeySize)
}

// unwrap returns the secret, or ErrWrongPassphrase. Parameters outside what ward writes are
// refused before argon2id runs: an edited file must not make ward spend gigabytes or minutes.
func (w passWrap) unwrap(passphrase []byte, aad string) ([]byte, error) {
	if err := w.checkParams(); err != nil {
		return nil, err
	}
	secret, err := boxOpen(w.key(passphrase), w.Box, aad)
	if err != nil {
		return nil, ErrWrongPassphrase
	}
	return secret, nil
}

// checkParams refuses argon2id parameters ward would not write: above recommendedKDF (the
// cost of every wrap ward makes), below argon2's own minimum, or a salt of another size.
func (w passWrap) checkParams() error {
	most := recommendedKDF
	if w.Time < 1 || w.Time > most.time || w.Threads < 1 || w.Threads > most.threads ||
		w.MemoryKiB < 8*uint32(w.Threads) || w.MemoryKiB > most.memoryKiB || len(w.Salt) != 16 {
		return fmt.Errorf("a wrapped key's argon2id parameters (%d passes, %d KiB, %d lanes, a %d-byte salt) are outside what ward writes (at most %d passes over %d MiB in %d lanes, a 16-byte salt): the key was changed after ward wrote it",
			w.Time, w.MemoryKiB, w.Threads, len(w.Salt), most.time, most.memoryKiB/1024, most.threads)
	}
	return nil
}

// sealTo encrypts secret for the holder of pub's private key: an ephemeral X25519 exchange,
// HKDF-SHA256 over its result, XChaCha20-Poly1305.
func sealTo(pub *ecdh.PublicKey, secret []byte, aad string) ([]byte, error) {
	eph, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	shared, err := eph.ECDH(pub)
	if err != nil {
		return nil, err
	}
	key, err := exchangeKey(shared, eph.PublicKey(), pub)
	if err != nil {
		return nil, err
	}
	return append(eph.PublicKey().Bytes(), boxSeal(key, secret, aad)...), nil
}

// openFrom opens what sealTo sealed for priv.
func openFrom(priv *ecdh.PrivateKey, sealed []byte, aad string) ([]byte, error) {
	const pubSize = 32
	if len(sealed) < pubSize {
		return nil, errors.New("a sealed key is cut short")
	}
	eph, err := ecdh.X25519().NewPublicKey(sealed[:pubSize])
	if err != nil {
		return nil, err
	}
	shared, err := priv.ECDH(eph)
	if err != nil {
		return nil, err
	}
	key, err := exchangeKey(shared, eph, priv.PublicKey())
	if err != nil {
		return nil, err
	}
	return boxOpen(key, sealed[pubSize:], aad)
}

// exchangeKey derives a box key from an X25519 exchange, bound to both of its public keys.
func exchangeKey(shared []byte, ephemeral, recipient *ecdh.PublicKey) ([]byte, error) {
	salt := append(ephemeral.Bytes(), recipient.Bytes()...)
	return hkdf.Key(sha256.New, shared, salt, "ward: a data key sealed to the instructor", chacha20poly1305.KeySize)
}

func boxSeal(key, plain []byte, aad string) []byte {
	aead, _ := chacha20poly1305.NewX(key) // key is always KeySize long
	box := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(box)
	return aead.Seal(box, box, plain, []byte(aad))
}

func boxOpen(key, box []byte, aad string) ([]byte, error) {
	aead, _ := chacha20poly1305.NewX(key)
	n := aead.NonceSize()
	if len(box) < n+aead.Overhead() {
		return nil, errors.New("a wrapped key is cut short")
	}
	return aead.Open(nil, box[:n], box[n:], []byte(aad))
}

// newInstructorKey makes the instructor's key pair, the private half wrapped by passphrase.
func newInstructorKey(passphrase []byte) (instructorKey, *ecdh.PrivateKey, error) {
	priv, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return instructorKey{}, nil, err
	}
	k := instructorKey{Public: priv.PublicKey().Bytes(), Private: wrapWithPassphrase(passphrase, priv.Bytes(), instructorAAD)}
	return k, priv, nil
}

const instructorAAD = "ward: the instructor's private key"

func traineeAAD(name string) string { return "ward: the data key of trainee " + name }

func (k instructorKey) public() (*ecdh.PublicKey, error) { return ecdh.X25519().NewPublicKey(k.Public) }

func (k instructorKey) open(passphrase []byte) (*ecdh.PrivateKey, error) {
	raw, err := k.Private.unwrap(passphrase, instructorAAD)
	if err != nil {
		return nil, err
	}
	return ecdh.X25519().NewPrivateKey(raw)
}

// newTraineeKey wraps a trainee's data key for the instructor and, when the trainee has a
// passphrase already, for the trainee.
func newTraineeKey(name string, dataKey []byte, instructor *ecdh.PublicKey, passphrase []byte, bound bool) (traineeKey, error) {
	sealed, err := sealTo(instructor, dataKey, traineeAAD(name))
	if err != nil {
		return traineeKey{}, err
	}
	k := traineeKey{Instructor: sealed, Bound: bound}
	if passphrase != nil {
		own := wrapWithPassphrase(passphrase, dataKey, traineeAAD(name))
		k.Own = &own
	}
	return k, nil
}

func decodeKey[T any](raw []byte, what string) (T, error) {
	var k T
	if err := json.Unmarshal(raw, &k); err != nil {
		return k, fmt.Errorf("%s is damaged: %w", what, err)
	}
	return k, nil
}
