package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"
)

// bucketEmbeddings holds the knowledge base's embeddings outside every session, so a clear or
// an archive never touches them: embeddings/<model>/<sha256 of the embedded text> = the vector
// as little-endian float32s. The bucket is created by the first write.
var bucketEmbeddings = []byte("embeddings")

// Embeddings returns the stored vectors of model for the given content hashes; a hash with no
// vector is absent from the map.
func (s *Store) Embeddings(model string, keys [][32]byte) (map[[32]byte][]float32, error) {
	out := map[[32]byte][]float32{}
	err := s.db.View(func(tx *bolt.Tx) error {
		b := modelBucket(tx, model)
		if b == nil {
			return nil
		}
		for _, k := range keys {
			raw := b.Get(k[:])
			if raw == nil {
				continue
			}
			v, err := decodeVector(raw)
			if err != nil {
				return fmt.Errorf("embedding %x of %s: %w", k[:4], model, err)
			}
			out[k] = v
		}
		return nil
	})
	return out, err
}

// PutEmbeddings stores vectors of model under their content hashes, replacing any stored.
func (s *Store) PutEmbeddings(model string, vectors map[[32]byte][]float32) error {
	if model == "" {
		return errors.New("put embeddings: empty model name")
	}
	for k, v := range vectors {
		if len(v) == 0 {
			return fmt.Errorf("put embeddings of %s: empty vector for %x", model, k[:4])
		}
	}
	return s.update(func(tx *bolt.Tx) error {
		top, err := tx.CreateBucketIfNotExists(bucketEmbeddings)
		if err != nil {
			return err
		}
		b, err := top.CreateBucketIfNotExists([]byte(model))
		if err != nil {
			return err
		}
		for k, v := range vectors {
			if err := b.Put(k[:], encodeVector(v)); err != nil {
				return err
			}
		}
		return nil
	})
}

func modelBucket(tx *bolt.Tx, model string) *bolt.Bucket {
	top := tx.Bucket(bucketEmbeddings)
	if top == nil || model == "" {
		return nil
	}
	return top.Bucket([]byte(model))
}

func encodeVector(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// decodeVector copies the vector out of the transaction's memory.
func decodeVector(raw []byte) ([]float32, error) {
	if len(raw) == 0 || len(raw)%4 != 0 {
		return nil, fmt.Errorf("%d bytes is not a vector of float32", len(raw))
	}
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v, nil
}
