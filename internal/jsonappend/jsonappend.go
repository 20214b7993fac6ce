// Package jsonappend appends values to a JSON document byte for byte as encoding/json writes
// them, without its reflection: for the documents ward writes on every turn (an engine's
// snapshot, the registry), where encoding/json's reflection was a turn's largest cost. It sits
// apart because both the engine (session/physio) and the store (persist) write such documents,
// and neither may import the other.
package jsonappend

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// String appends s quoted as encoding/json quotes it: as it is when it holds nothing to escape
// (the common case: IDs, words), else by encoding/json itself, which escapes <, > and &, control
// characters, U+2028 and U+2029, and replaces invalid UTF-8.
func String(out []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			quoted, _ := json.Marshal(s) // a string always encodes
			return append(out, quoted...)
		}
	}
	return append(append(append(out, '"'), s...), '"')
}

// Float appends f as encoding/json writes a float64: the shortest form that reads back the same,
// in plain notation from 1e-6 up to 1e21 and in exponent notation (e-7, not e-07) outside. ok is
// false for NaN and the infinities, which encoding/json refuses: nothing is appended then.
func Float(out []byte, f float64) (_ []byte, ok bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return out, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	out = strconv.AppendFloat(out, f, format, -1, 64)
	if n := len(out); format == 'e' && n >= 4 && out[n-4] == 'e' && out[n-3] == '-' && out[n-2] == '0' {
		out[n-2] = out[n-1] // e-07 → e-7
		out = out[:n-1]
	}
	return out, true
}

// Time appends t as time.Time's MarshalJSON writes it, which is RFC 3339 with nanoseconds for
// the years and zones it accepts; it answers for the others.
func Time(out []byte, t time.Time) ([]byte, error) {
	_, offset := t.Zone()
	if y := t.Year(); y < 0 || y > 9999 || offset <= -24*3600 || offset >= 24*3600 {
		b, err := t.MarshalJSON()
		return append(out, b...), err
	}
	return append(t.AppendFormat(append(out, '"'), time.RFC3339Nano), '"'), nil
}
