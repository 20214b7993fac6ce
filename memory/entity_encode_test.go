package memory

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The entities are written by hand byte for byte as encoding/json writes them. Every field of a
// tally row is drawn by reflection, so a field added to AgentTally and not to its encoder fails.
func TestEntitiesEncodeAsEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := &Entities{
			Conversation: rapid.SliceOfN(rapid.Custom(func(t *rapid.T) ConversationEntity {
				return ConversationEntity{Key: drawText(t, "key"), Value: drawValue(t), InsertedAt: rapid.Float64().Draw(t, "in"), UpdatedAt: rapid.Float64().Draw(t, "up")}
			}), -1, 3).Draw(t, "conversation"),
			Stats: EntityStats{Merges: rapid.Int64().Draw(t, "merges"), Held: rapid.MapOfN(rapid.String(), rapid.Int64(), -1, 2).Draw(t, "held")},
		}
		if rapid.Bool().Draw(t, "nil conversation") {
			e.Conversation = nil
		}
		if rapid.Bool().Draw(t, "derived") {
			e.Derived = map[string][]DerivedEntity{drawText(t, "agent"): {{Key: "k", Value: drawValue(t), AgentName: "a", SourceTool: "t"}}}
		}
		e.Tallies = rapid.SliceOfN(rapid.Custom(drawTally), -1, 4).Draw(t, "tallies")
		if rapid.Bool().Draw(t, "nil tallies") {
			e.Tallies = nil
		}
		got, gotErr := e.EncodeJSON()
		want, wantErr := json.Marshal(e)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("by hand: %v; encoding/json: %v", gotErr, wantErr)
		}
		if gotErr == nil && !bytes.Equal(got, want) {
			t.Fatalf("by hand:\n%s\nencoding/json:\n%s", got, want)
		}
	})
}

// drawTally sets every field of a row by its kind.
func drawTally(t *rapid.T) AgentTally {
	var row AgentTally
	v := reflect.ValueOf(&row).Elem()
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch f.Interface().(type) {
		case int64:
			f.SetInt(rapid.Int64().Draw(t, name))
		case string:
			f.SetString(drawText(t, name))
		case time.Time:
			f.Set(reflect.ValueOf(drawTime(t, name)))
		case []int64:
			if n := rapid.IntRange(-1, 3).Draw(t, name+" length"); n >= 0 {
				f.Set(reflect.ValueOf(rapid.SliceOfN(rapid.Int64(), n, n).Draw(t, name)))
			}
		default:
			t.Fatalf("AgentTally.%s is of a kind the test does not draw: add it here and to appendJSON", name)
		}
	}
	return row
}

// drawText is any text, with what encoding/json escapes and invalid UTF-8 among it.
func drawText(t *rapid.T, label string) string {
	return rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{"Patient", "<b>&amp;</b>", "a\u2028b\u2029", "\x00\x1f\"\\", "\xff\xfe"}),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) })).Draw(t, label)
}

// drawTime is a time in any year and zone, some of which time.Time's MarshalJSON refuses.
func drawTime(t *rapid.T, label string) time.Time {
	at := time.Unix(rapid.Int64Range(-70e9, 300e9).Draw(t, label), rapid.Int64Range(0, 999_999_999).Draw(t, label+" ns"))
	zone := time.FixedZone("", rapid.IntRange(-25*3600, 25*3600).Draw(t, label+" offset"))
	return rapid.SampledFrom([]time.Time{at.UTC(), at.In(zone), {}}).Draw(t, label+" zone")
}

func drawValue(t *rapid.T) any {
	return rapid.OneOf(rapid.Just[any](nil), rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.String(), func(s string) any { return s }), rapid.Just[any](map[string]any{"a": 1.5, "b": []any{"x", true}})).Draw(t, "value")
}
