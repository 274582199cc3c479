//go:build !unix

package workspace

// noFollow is 0 where open has no O_NOFOLLOW: callers lstat first.
const noFollow = 0
