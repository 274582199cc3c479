package workspace

// Default workspace limits (see Limits).
const (
	DefaultMaxFiles     = 200_000
	DefaultMaxBytes     = 2 << 30
	DefaultMaxFileBytes = 256 << 20
	DefaultMaxDiffBytes = 32 << 20
)

// Limits bound what a workspace holds. A zero field takes its default.
// Exceeding a limit is an error wrapping ErrTooLarge, never a silent cut.
type Limits struct {
	// MaxFiles bounds the entries (files, directories, links) copied from
	// a repository. Default 200,000.
	MaxFiles int
	// MaxBytes bounds the bytes copied from a repository. Default 2 GiB.
	MaxBytes int64
	// MaxFileBytes bounds one copied file. Default 256 MiB.
	MaxFileBytes int64
	// MaxDiffBytes bounds a change's unified diff (and every other git
	// output). Default 32 MiB.
	MaxDiffBytes int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxDiffBytes <= 0 {
		l.MaxDiffBytes = DefaultMaxDiffBytes
	}
	return l
}
