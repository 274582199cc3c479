package sandbox

import (
	"bytes"
	"fmt"
	"sync"
)

// tailBuffer keeps the last limit bytes written to it (all when limit is
// not positive).
type tailBuffer struct {
	mu      sync.Mutex
	limit   int
	buf     bytes.Buffer
	dropped int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	t.buf.Write(p)
	if t.limit > 0 && t.buf.Len() > 2*t.limit {
		excess := t.buf.Len() - t.limit
		t.dropped += excess
		t.buf.Next(excess)
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf.Bytes()
	dropped := t.dropped
	if t.limit > 0 && len(b) > t.limit {
		dropped += len(b) - t.limit
		b = b[len(b)-t.limit:]
	}
	if dropped > 0 {
		return fmt.Sprintf("[%d bytes elided]\n%s", dropped, b)
	}
	return string(b)
}
