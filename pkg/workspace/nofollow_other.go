//go:build !unix

package workspace

// noFollow is 0 where open has no O_NOFOLLOW: callers lstat first.
const noFollow = 0

// nonBlock is 0 where open has no O_NONBLOCK (and there are no fifos).
const nonBlock = 0
