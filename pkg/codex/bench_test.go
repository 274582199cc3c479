package codex

import "testing"

func BenchmarkDecodeReference(b *testing.B) {
	p := referencePayload(b)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Decode(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateReference(b *testing.B) {
	p := referencePayload(b)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if d := Validate(p); len(d) != 0 {
			b.Fatal(d)
		}
	}
}

func BenchmarkEncodeSample(b *testing.B) {
	s := sampleState()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(s); err != nil {
			b.Fatal(err)
		}
	}
}
