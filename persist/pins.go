package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// Pins are written in a compact binary form rather than JSON: a turn reads and writes two groups
// of them (its patient's and the shelf's own, which names every patient's), and JSON's base64
// and reflection made that a quarter of an encrypted commit's CPU. Three maps follow one another,
// Values, Lengths and Groups, each as a count then its entries in key order, every length and
// count a uvarint: a key (length, bytes) then a nonce (length, bytes) or a message count.

var errBadPins = errors.New("the pins do not decode")

func encodePins(p *pins) []byte {
	var out []byte
	putBytes := func(b []byte) []byte { return append(binary.AppendUvarint(out, uint64(len(b))), b...) }
	for _, m := range []map[string][]byte{p.Values, nil, p.Groups} {
		if m == nil { // Lengths, which hold counts
			out = binary.AppendUvarint(out, uint64(len(p.Lengths)))
			for _, k := range slices.Sorted(maps.Keys(p.Lengths)) {
				out = putBytes([]byte(k))
				out = binary.AppendUvarint(out, p.Lengths[k])
			}
			continue
		}
		out = binary.AppendUvarint(out, uint64(len(m)))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = putBytes([]byte(k))
			out = putBytes(m[k])
		}
	}
	return out
}

// decodePins reads what encodePins wrote; anything else is damage.
func decodePins(data []byte) (*pins, error) {
	p := &pins{Values: map[string][]byte{}, Lengths: map[string]uint64{}, Groups: map[string][]byte{}}
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(data)
		if n <= 0 {
			return 0, false
		}
		data = data[n:]
		return v, true
	}
	bytesOf := func() ([]byte, bool) {
		n, ok := next()
		if !ok || n > uint64(len(data)) {
			return nil, false
		}
		b := data[:n:n]
		data = data[n:]
		return b, true
	}
	for _, m := range []map[string][]byte{p.Values, nil, p.Groups} {
		count, ok := next()
		if !ok || count > uint64(len(data)) {
			return nil, &corruptValue{errBadPins}
		}
		for range count {
			k, ok := bytesOf()
			if !ok {
				return nil, &corruptValue{errBadPins}
			}
			if m == nil {
				n, ok := next()
				if !ok {
					return nil, &corruptValue{errBadPins}
				}
				p.Lengths[string(k)] = n
				continue
			}
			v, ok := bytesOf()
			if !ok {
				return nil, &corruptValue{errBadPins}
			}
			m[string(k)] = v
		}
	}
	if len(data) != 0 {
		return nil, &corruptValue{errBadPins}
	}
	return p, nil
}

// pinCache keeps the pins a store decoded, by shelf and group, with the sealed bytes they were
// read from. A turn's transactions read the same pins again and again, and decoding the shift's
// own group, which names every patient's, was most of what pinning cost. An entry is used only
// while the file holds the very bytes it came from, and is put in only once its transaction
// commits, so a rolled-back change never shows; only one writer holds the file.
type pinCache struct {
	mu sync.Mutex
	m  map[string]cachedPins
}

type cachedPins struct {
	stored []byte
	pins   *pins
}

func pinKey(where place, group string) string { return strings.Join(where.path, "/") + "\x00" + group }

// get returns a copy of the pins decoded from stored, or nil.
func (c *pinCache) get(key string, stored []byte) *pins {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && bytes.Equal(e.stored, stored) {
		return e.pins.clone()
	}
	return nil
}

// putOnCommit caches p as the pins sealed in stored once tx commits.
func (c *pinCache) putOnCommit(tx *bolt.Tx, key string, stored []byte, p *pins) {
	if c == nil {
		return
	}
	entry := cachedPins{stored, p.clone()} // stored is sealed afresh and never changed
	tx.OnCommit(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.m == nil {
			c.m = map[string]cachedPins{}
		}
		c.m[key] = entry
	})
}

// clone copies the maps; their nonces are never changed in place.
func (p *pins) clone() *pins {
	return &pins{Values: maps.Clone(p.Values), Lengths: maps.Clone(p.Lengths), Groups: maps.Clone(p.Groups)}
}
