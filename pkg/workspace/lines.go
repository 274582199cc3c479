package workspace

import "bytes"

// maxLine bounds one emitted line; longer lines are emitted in pieces.
const maxLine = 4096

// lineWriter splits written bytes into lines and emits each complete one
// (without its newline). It is used from one goroutine at a time.
type lineWriter struct {
	emit    func(string)
	pending []byte
}

func (l *lineWriter) write(p []byte) {
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
}

// flush emits a last line without a newline.
func (l *lineWriter) flush() {
	if len(l.pending) > 0 {
		l.emit(string(l.pending))
		l.pending = nil
	}
}
