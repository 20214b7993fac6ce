package persist

import (
	"crypto/sha256"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestEmbeddingsRoundTripByModelAndHashAcrossReopen(t *testing.T) {
	s, path := openTemp(t)
	a, b := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	if err := s.PutEmbeddings("nomic-embed-text", map[[32]byte][]float32{a: {1, -2.5, 3}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutEmbeddings("other-model", map[[32]byte][]float32{a: {9}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	got, err := s.Embeddings("nomic-embed-text", [][32]byte{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[[32]byte][]float32{a: {1, -2.5, 3}}; !reflect.DeepEqual(got, want) {
		t.Errorf("nomic-embed-text = %v, want %v (b absent)", got, want)
	}
	got, err = s.Embeddings("other-model", [][32]byte{a})
	if err != nil || !reflect.DeepEqual(got[a], []float32{9}) {
		t.Errorf("other-model = %v, %v; want its own vector", got, err)
	}
	got, err = s.Embeddings("never-used", [][32]byte{a})
	if err != nil || len(got) != 0 {
		t.Errorf("unknown model = %v, %v; want empty", got, err)
	}
}

func TestEmbeddingsOnAFreshStoreAreEmpty(t *testing.T) {
	s, _ := openTemp(t)
	got, err := s.Embeddings("m", [][32]byte{sha256.Sum256(nil)})
	if err != nil || len(got) != 0 {
		t.Errorf("got %v, %v; want nothing and no error before the bucket exists", got, err)
	}
}

func TestPutEmbeddingsRefusesBadInputAndWritesNothing(t *testing.T) {
	s, _ := openTemp(t)
	k := sha256.Sum256([]byte("k"))
	if err := s.PutEmbeddings("", map[[32]byte][]float32{k: {1}}); err == nil {
		t.Error("empty model accepted")
	}
	if err := s.PutEmbeddings("m", map[[32]byte][]float32{k: {}}); err == nil {
		t.Error("empty vector accepted")
	}
	got, _ := s.Embeddings("m", [][32]byte{k})
	if len(got) != 0 {
		t.Errorf("refused input was stored: %v", got)
	}
}

func TestEmbeddingsReportsACorruptVector(t *testing.T) {
	s, _ := openTemp(t)
	k := sha256.Sum256([]byte("k"))
	if err := s.PutEmbeddings("m", map[[32]byte][]float32{k: {1}}); err != nil {
		t.Fatal(err)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEmbeddings).Bucket([]byte("m")).Put(k[:], []byte{1, 2, 3})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Embeddings("m", [][32]byte{k}); err == nil {
		t.Error("a 3-byte vector was read without error")
	}
}
