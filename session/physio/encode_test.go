package physio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
	"pgregory.net/rapid"
)

// The hand encoding of a snapshot is json.Marshal's, byte for byte, for any snapshot: every
// exported field drawn (a field added to a record and not to encode.go fails here), strings with
// what encoding/json escapes, floats at the edges of its notations and -0, nil slices beside
// empty ones; and a state encoding/json refuses gets its own error.
func TestHandEncodingIsEncodingJSONs(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, edge := range []Snapshot{ // what a random draw seldom meets: -0 in what omitempty or omitzero leave out
		{LastGlucose: negZero, Beat: negZero, Actions: []ActionRecord{{Action: action.Action{Target: [2]float64{negZero, 0}, DoseMg: negZero}}}},
		{Actions: []ActionRecord{{Action: action.Action{Target: [2]float64{0, negZero}}}}, Alerts: []AlertRecord{{Acknowledged: &negZero}}},
	} {
		checkHandEncoding(t, &Engine{s: edge}, fmt.Sprintf("%+v", edge))
	}
	rapid.Check(t, handEncodesAsEncodingJSON)
}

// FuzzHandEncoding is TestHandEncodingIsEncodingJSONs's property driven by the fuzzer.
func FuzzHandEncoding(f *testing.F) { f.Fuzz(rapid.MakeFuzz(handEncodesAsEncodingJSON)) }

var snapshots = rapid.MakeCustom[Snapshot](rapid.MakeConfig{Types: map[reflect.Type]*rapid.Generator[any]{
	reflect.TypeFor[sc.Vital](): rapid.Map(rapid.IntRange(0, int(sc.NumVitals)-1), func(v int) any { return sc.Vital(v) }), // its name is its index
}, Kinds: map[reflect.Kind]*rapid.Generator[any]{
	reflect.String:  rapid.OneOf(rapid.String(), rapid.SampledFrom([]string{"", "ok", "a<b>&c", "\"q\"\\", "\n\t\x00\x1f\x7f", "\u2028\u2029", "\xff\xfe", "é→ü"})).AsAny(),
	reflect.Float64: rapid.OneOf(rapid.Float64(), rapid.Float64Range(-1000, 1000), rapid.Map(rapid.Uint64(), math.Float64frombits), rapid.SampledFrom(edgeFloats)).AsAny(),
}})

func handEncodesAsEncodingJSON(t *rapid.T) {
	snap := snapshots.Draw(t, "snapshot")
	nilSomeEmpty(t, reflect.ValueOf(&snap).Elem())
	checkHandEncoding(t, &Engine{s: snap}, fmt.Sprintf("%+v", snap))
}

// Every built-in case, played along each path of its review (untreated, treated well,
// mistreated) minute by minute, encodes by hand as json.Marshal encodes it, halfway and at the end.
func TestHandEncodingOfEveryReviewPath(t *testing.T) {
	for _, s := range library(t).List() {
		data, err := os.ReadFile(reviewFile(s.ID))
		if err != nil {
			t.Fatal(err)
		}
		paths, errs := ParseReview(string(data))
		if len(errs) > 0 || len(paths) == 0 {
			t.Fatalf("%s's review: %d paths, %v", s.ID, len(paths), errs)
		}
		for _, p := range paths {
			for _, rows := range [][]ReviewRow{p.Rows[:len(p.Rows)/2], p.Rows} {
				_, e := PlayPath(s, ReviewPath{Name: p.Name, Rows: rows}, true)
				checkHandEncoding(t, e, fmt.Sprintf("%s, %s, %d rows", s.ID, p.Name, len(rows)))
			}
		}
	}
}

var edgeFloats = []float64{0, math.Copysign(0, -1), 1e-6, -1e-6, 9.999999e-7, 1e-7, 1e21, 9.99999e20, -1e21, 1e-300,
	math.MaxFloat64, math.SmallestNonzeroFloat64, 36.6, 0.1, 1e20, math.NaN(), math.Inf(1), math.Inf(-1)}

func checkHandEncoding(t interface{ Fatalf(string, ...any) }, e *Engine, what string) {
	want, wantErr := json.Marshal(&e.s)
	got, err := e.EncodeJSON()
	if fmt.Sprint(err) != fmt.Sprint(wantErr) || !bytes.Equal(got, want) {
		t.Fatalf("%s: by hand\n%s\n(%v)\nencoding/json\n%s\n(%v)", what, got, err, want, wantErr)
	}
}

// nilSomeEmpty makes some of the empty slices in v nil: encoding/json writes the one as [] and the
// other as null, and rapid draws only the first.
func nilSomeEmpty(t *rapid.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			nilSomeEmpty(t, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				nilSomeEmpty(t, v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Len() == 0 && rapid.Bool().Draw(t, "nil") {
			v.Set(reflect.Zero(v.Type()))
		}
		for i := range v.Len() {
			nilSomeEmpty(t, v.Index(i))
		}
	}
}

// BenchmarkEncodeJSON is one engine's encoding late in a long shift: a monitored patient's
// three hours, with the actions of a review's treated path.
func BenchmarkEncodeJSON(b *testing.B) {
	e, _ := play(b, "asthma-exacerbation", 3*3600, step{30, "attach monitor, oxygen 15L NRB, site a cannula, check vitals"}, step{400, "salbutamol 5 mg nebulised"})
	for _, how := range []struct {
		name   string
		encode func() ([]byte, error)
	}{{"hand", e.EncodeJSON}, {"encoding-json", func() ([]byte, error) { return json.Marshal(&e.s) }}} {
		b.Run(how.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := how.encode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
