package activity

import (
	"bytes"
	"context"
	"io"
)

// maxLine bounds one emitted line; longer lines are emitted in pieces.
const maxLine = 4096

// lineWriter splits written bytes into lines and emits each complete one
// (without its newline). It is used from one goroutine at a time.
type lineWriter struct {
	emit    func(string)
	pending []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	for {
		i := bytes.IndexByte(l.pending, '\n')
		if i < 0 {
			break
		}
		l.emit(string(bytes.TrimSuffix(l.pending[:i], []byte("\r"))))
		l.pending = l.pending[i+1:]
	}
	for len(l.pending) > maxLine {
		l.emit(string(l.pending[:maxLine]))
		l.pending = l.pending[maxLine:]
	}
	return len(p), nil
}

// flush emits a last line without a newline.
func (l *lineWriter) flush() {
	if len(l.pending) > 0 {
		l.emit(string(l.pending))
		l.pending = nil
	}
}

// Lines returns a writer that reports what is written to it as Output of
// the current activity, line by line, and a flush for a last line without
// a newline. Without observers it returns io.Discard and a no-op. The
// writer is for one goroutine at a time.
func Lines(ctx context.Context) (io.Writer, func()) {
	if !Enabled(ctx) {
		return io.Discard, func() {}
	}
	l := &lineWriter{emit: func(line string) { Output(ctx, line) }}
	return l, l.flush
}
