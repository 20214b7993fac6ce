package records

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ward-sim/ward/memory"
)

// A stored message is the JSON json.Marshal wrote for a memory.Message. When those bytes are
// what encoding/json would write again for the message they decode to (its fields in order,
// none empty that it omits, every string, time and number in encoding/json's one spelling),
// the dump prints them re-indented instead of decoding and encoding the message: the same
// bytes, without a message's allocations. Anything else, a message that calls a tool or cites
// a source among it, is decoded and encoded as before.

// messageFields are memory.Message's fields a stored message may be printed as is with, in the
// struct's order, and whether encoding/json leaves each out when empty: read from the struct's
// own tags, so a field added to it is either here or makes its messages decoded. A field of
// another type (the tool calls, the sources) is not here: a message with one is decoded.
var messageFields = fieldsOf(reflect.TypeFor[memory.Message]())

type messageField struct {
	key       string
	kind      byte // 's' a string, 't' a time, 'n' a float64
	omitEmpty bool
}

func fieldsOf(t reflect.Type) []messageField {
	var out []messageField
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		var kind byte
		switch {
		case f.Type == reflect.TypeFor[time.Time]():
			kind = 't'
		case f.Type.Kind() == reflect.String:
			kind = 's'
		case f.Type.Kind() == reflect.Float64:
			kind = 'n'
		default:
			continue
		}
		out = append(out, messageField{key: strconv.Quote(name), kind: kind, omitEmpty: opts == "omitempty"})
	}
	return out
}

// appendMessage appends the stored message as json.Encoder, indenting by two spaces after
// prefix, encodes the message it decodes to, and reports whether it could: false leaves dst's
// bytes past its length undefined and the message to be decoded.
func appendMessage(dst, stored []byte, prefix string) ([]byte, bool) {
	if len(stored) < 2 || stored[0] != '{' || stored[len(stored)-1] != '}' {
		return dst, false
	}
	body := stored[1 : len(stored)-1]
	dst = append(dst, '{')
	field, seen := 0, 0
	for len(body) > 0 {
		if seen > 0 {
			if body[0] != ',' {
				return dst, false
			}
			body = body[1:]
		}
		colon := bytes.IndexByte(body, ':')
		if colon < 0 {
			return dst, false
		}
		key := body[:colon]
		for field < len(messageFields) && messageFields[field].key != string(key) {
			if !messageFields[field].omitEmpty {
				return dst, false // a field encoding/json always writes is missing
			}
			field++
		}
		if field == len(messageFields) {
			return dst, false // a field out of order, repeated, unknown, or one printed by decoding
		}
		f := messageFields[field]
		field++
		body = body[colon+1:]
		var end int
		var ok bool
		switch f.kind {
		case 's':
			end, ok = canonicalString(body)
			ok = ok && !(f.omitEmpty && end == 2)
		case 't':
			end, ok = canonicalTime(body)
		default:
			end, ok = canonicalFloat(body)
		}
		if !ok {
			return dst, false
		}
		if seen > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		dst = append(dst, "  "...)
		dst = append(dst, key...)
		dst = append(dst, ": "...)
		dst = append(dst, body[:end]...)
		body = body[end:]
		seen++
	}
	for ; field < len(messageFields); field++ {
		if !messageFields[field].omitEmpty {
			return dst, false
		}
	}
	if seen == 0 {
		return dst, false
	}
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	return append(dst, '}'), true
}

// canonicalString is the length of the JSON string that b begins with, and whether it is
// spelled as encoding/json spells the string it decodes to: valid UTF-8, with HTML's <, > and
// & escaped, and only the escapes encoding/json writes.
func canonicalString(b []byte) (int, bool) {
	if len(b) == 0 || b[0] != '"' {
		return 0, false
	}
	for i := 1; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, true
		case c == '\\':
			n := canonicalEscape(b[i:])
			if n == 0 {
				return 0, false
			}
			i += n
		case c < 0x20, c == '<', c == '>', c == '&':
			return 0, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(b[i:])
			if (r == utf8.RuneError && n == 1) || r == '\u2028' || r == '\u2029' {
				return 0, false
			}
			i += n
		}
	}
	return 0, false
}

// canonicalEscape is the length of the escape b begins with when encoding/json writes it so,
// else 0.
func canonicalEscape(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		switch u := string(b[2:6]); u {
		case "003c", "003e", "0026", "2028", "2029":
			return 6
		default:
			const hex = "0123456789abcdef"
			if u[0] != '0' || u[1] != '0' || (u[2] != '0' && u[2] != '1') || !bytes.ContainsRune([]byte(hex), rune(u[3])) {
				return 0
			}
			switch u[2:] {
			case "08", "0c", "0a", "0d", "09":
				return 0 // written as \b, \f, \n, \r, \t
			}
			return 6
		}
	}
	return 0
}

// canonicalTime is the length of the JSON string that b begins with, and whether it is a time
// as time.Time's MarshalJSON writes the time its UnmarshalJSON reads.
func canonicalTime(b []byte) (int, bool) {
	end := bytes.IndexByte(b[min(1, len(b)):], '"') + 2
	if end < 2 || b[0] != '"' {
		return 0, false
	}
	var t time.Time
	if err := t.UnmarshalJSON(b[:end]); err != nil || t.Year() < 0 || t.Year() > 9999 {
		return 0, false
	}
	var buf [48]byte
	again := append(t.AppendFormat(append(buf[:0], '"'), time.RFC3339Nano), '"')
	return end, bytes.Equal(again, b[:end])
}

// canonicalFloat is the length of the number b begins with, and whether it is a float64 other
// than zero as encoding/json writes it.
func canonicalFloat(b []byte) (int, bool) {
	end := 0
	for end < len(b) && bytes.IndexByte([]byte("0123456789+-.eE"), b[end]) >= 0 {
		end++
	}
	f, err := strconv.ParseFloat(string(b[:end]), 64)
	if err != nil || f == 0 {
		return 0, false
	}
	var buf [32]byte
	return end, bytes.Equal(appendFloat(buf[:0], f), b[:end])
}

// appendFloat writes a finite float64 as encoding/json does.
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1] // e-09 is written e-9
		dst = dst[:n-1]
	}
	return dst
}
