package jsonappend

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Every string, valid UTF-8 or not, is quoted as encoding/json quotes it.
func TestStringIsEncodingJSONs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.SampledFrom([]rune("aZ <>&\"\\\n\t\b\f\x00\x1f\x7f\u2028\u2029é\ufffd"))),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) })).Draw(t, "s")
		checkString(t, s)
	})
}

// Every float64, drawn from its bits, is written as encoding/json writes it, or refused as it is.
func TestFloatIsEncodingJSONs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.OneOf(rapid.Map(rapid.Uint64(), math.Float64frombits), rapid.Float64(),
			rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e-6, 1e-7, 9.99e-7, 1e21, 1e20, 123456789e15, -1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64})).Draw(t, "f")
		checkFloat(t, f)
	})
}

func TestTimeIsEncodingJSONs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		at := time.Unix(rapid.Int64Range(-70e9, 300e9).Draw(t, "sec"), rapid.Int64Range(0, 999999999).Draw(t, "nsec"))
		at = at.In(time.FixedZone("z", rapid.IntRange(-30*3600, 30*3600).Draw(t, "offset")))
		want, wantErr := at.MarshalJSON()
		got, err := Time([]byte("x"), at)
		if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("Time(%v) = %s, %v; encoding/json: %s, %v", at, got, err, want, wantErr)
		}
	})
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "patient_1", "a<b>&c", "\u2028", "\xff\xfe", "\"\\\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkString(t, s) })
}

func FuzzFloat(f *testing.F) {
	for _, v := range []float64{0, -1.5, 1e-7, 1e21, 37.25} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) { checkFloat(t, math.Float64frombits(bits)) })
}

func checkString(t interface{ Fatalf(string, ...any) }, s string) {
	want, _ := json.Marshal(s)
	if got := String([]byte("x"), s); !bytes.Equal(got, append([]byte("x"), want...)) {
		t.Fatalf("String(%q) = %s, encoding/json writes %s", s, got[1:], want)
	}
}

func checkFloat(t interface{ Fatalf(string, ...any) }, f float64) {
	want, err := json.Marshal(f)
	got, ok := Float([]byte("x"), f)
	if ok != (err == nil) || ok && !bytes.Equal(got, append([]byte("x"), want...)) || !ok && string(got) != "x" {
		t.Fatalf("Float(%v) = %s, %v; encoding/json: %s, %v", f, got, ok, want, err)
	}
}
