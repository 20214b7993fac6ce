// Package jsonappend appends values to a JSON document byte for byte as encoding/json writes
// them, without its reflection: for the documents ward writes on every turn (an engine's
// snapshot, the registry, a patient's entities), where encoding/json's reflection was a turn's
// largest cost. It sits apart because the engine (session/physio), memory and the store
// (persist) write such documents, and none of them may import another.
package jsonappend

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// String appends s quoted as encoding/json quotes it: <, > and & escaped as \u003c and the like,
// control characters as \n, \t… or \u00XX, U+2028 and U+2029 escaped, and invalid UTF-8 as
// \ufffd.
func String(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0 // s[start:i] is yet to be appended as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\b':
				out = append(out, '\\', 'b')
			case '\f':
				out = append(out, '\\', 'f')
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(append(out, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			out = append(append(out, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(out, s[start:]...), '"')
}

const hexDigits = "0123456789abcdef"

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
