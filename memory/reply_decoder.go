package memory

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ReplyDecoder decodes the "reply" string of agent output while it is still arriving, so a UI can
// stream the reply's words rather than the JSON around them. Each byte is decoded once: a long
// answer streamed a token at a time costs linear time, not quadratic.
type ReplyDecoder struct {
	raw    strings.Builder
	next   int  // the first byte of the reply's string body not decoded yet; 0 until it begins
	closed bool // the body's closing quote has arrived
}

// Add appends a chunk of output and returns the reply text it completed. begun is false until the
// reply's value has begun. An escape cut off at the end of the chunk waits for the next one.
func (d *ReplyDecoder) Add(chunk string) (text string, begun bool) {
	d.raw.WriteString(chunk)
	raw := d.raw.String()
	if d.next == 0 {
		start, ok := replyBodyStart(raw)
		if !ok {
			return "", false
		}
		d.next = start
	}
	if d.closed {
		return "", true
	}
	end, closed := bodyEnd(raw, d.next)
	text, d.next, d.closed = decodeBody(raw[d.next:end]), end, closed
	return text, true
}

// Raw is the output so far, as it arrived.
func (d *ReplyDecoder) Raw() string { return d.raw.String() }

// replyBodyStart finds where the string value of the first "reply" key begins, after its quote.
func replyBodyStart(raw string) (int, bool) {
	for at := 0; ; {
		i := strings.Index(raw[at:], `"reply"`)
		if i < 0 {
			return 0, false
		}
		at += i + len(`"reply"`)
		rest := strings.TrimLeft(raw[at:], " \t\r\n")
		if !strings.HasPrefix(rest, ":") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t\r\n")
		if strings.HasPrefix(rest, `"`) {
			return len(raw) - len(rest) + 1, true
		}
	}
}

// bodyEnd finds how far the JSON string body in s, decoded up to from, can be decoded now: to its
// closing quote, or to the end of s short of an escape or a UTF-8 character cut in two.
func bodyEnd(s string, from int) (end int, closed bool) {
	for i := from; i < len(s); {
		n := 1
		switch {
		case s[i] == '"':
			return i, true
		case s[i] == '\\':
			n = escapeLen(s[i:])
		case s[i] >= utf8.RuneSelf && utf8.FullRuneInString(s[i:]):
			_, n = utf8.DecodeRuneInString(s[i:])
		case s[i] >= utf8.RuneSelf:
			return i, false
		}
		if i+n > len(s) {
			return i, false
		}
		i += n
	}
	return len(s), false
}

// escapeLen is the length of the escape at the start of s. A UTF-16 surrogate pair is one escape
// of twelve bytes, since its halves decode to one character only together.
func escapeLen(s string) int {
	if len(s) < 2 || s[1] != 'u' {
		return 2
	}
	if len(s) >= 6 {
		if v, err := strconv.ParseUint(s[2:6], 16, 16); err == nil && v >= 0xD800 && v <= 0xDBFF {
			return 12
		}
	}
	return 6
}

// decodeBody decodes a run of a JSON string body that holds whole escapes only.
func decodeBody(body string) string {
	var out string
	if json.Unmarshal([]byte(`"`+body+`"`), &out) == nil {
		return out
	}
	return body // raw control characters inside: keep the text as written
}
