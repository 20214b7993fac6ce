package action

import "testing"

// BenchmarkParseActions parses the five-part compound message, which every turn's parse resembles.
func BenchmarkParseActions(b *testing.B) {
	const text = "applying oxygen via non-rebreather at 15L/min, checking vitals… What medications? Any allergies? When did this start?"
	b.ReportAllocs()
	for b.Loop() {
		Parse(text)
	}
}
