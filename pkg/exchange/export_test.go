package exchange

import "regexp"

// DurationPattern and MayHaveDuration expose the duration matching to the
// package's tests.
func DurationPattern() *regexp.Regexp { return durations }

// MayHaveDuration is mayHaveDuration.
func MayHaveDuration(s string) bool { return mayHaveDuration(s) }
