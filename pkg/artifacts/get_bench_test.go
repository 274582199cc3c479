package artifacts_test

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkGet reads back a 3 KB record (a model exchange's size, one
// chunk) and a 300 KB diff (three chunks).
func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	_, s := openProvisioned(b)
	for _, size := range []struct {
		name string
		n    int
	}{{"3KB", 3 << 10}, {"300KB", 300 << 10}} {
		data := bytes.Repeat([]byte("x"), size.n)
		ref, err := s.Put(ctx, "bench", data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(size.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Get(ctx, ref); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
