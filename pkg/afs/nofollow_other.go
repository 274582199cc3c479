//go:build !unix

package afs

// oNoFollow and oNonBlock are 0 where open has neither: Dir.open checks
// after.
const (
	oNoFollow = 0
	oNonBlock = 0
)
