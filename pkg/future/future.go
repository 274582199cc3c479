// Package future runs independent work of a handler at once: a request
// whose answer is needed only later (a bucket read, a write to another
// key) starts now and is waited for where its result is used, so its
// round trip overlaps the handler's other work instead of adding to it.
package future

// Future is the result of a function running in its own goroutine.
type Future[T any] struct {
	done chan struct{}
	v    T
	err  error
	// panicked is what f panicked with, raised again by Wait.
	panicked any
}

// Go starts f in a goroutine of its own. Whatever it uses must be safe to
// use concurrently with the caller until Wait returns.
func Go[T any](f func() (T, error)) *Future[T] {
	fu := &Future[T]{done: make(chan struct{})}
	go func() {
		defer close(fu.done)
		defer func() {
			if p := recover(); p != nil {
				fu.panicked = p
			}
		}()
		fu.v, fu.err = f()
	}()
	return fu
}

// Wait waits for f and returns its results. A panic in f is raised again
// by Wait, in the waiting goroutine (where a handler's panic guard
// recovers it), every time Wait is called.
func (fu *Future[T]) Wait() (T, error) {
	<-fu.done
	if fu.panicked != nil {
		panic(fu.panicked)
	}
	return fu.v, fu.err
}
