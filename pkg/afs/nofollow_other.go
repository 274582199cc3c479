//go:build !unix

package afs

// oNoFollow is 0 where open cannot refuse a link: Dir.open checks after.
const oNoFollow = 0
