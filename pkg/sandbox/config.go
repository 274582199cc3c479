package sandbox

import (
	"fmt"
	"golang.org/x/sys/unix"
	"strconv"
	"strings"
)

// Mode selects how commands are isolated.
type Mode string

// The modes.
const (
	// ModeBwrap runs every command in a bubblewrap sandbox (the default).
	ModeBwrap Mode = "bwrap"
	// ModeNone runs commands without isolation. It must be chosen
	// explicitly, and results should say so.
	ModeNone Mode = "none"
)

// Default limits (see Limits).
const (
	DefaultCPUSeconds  = 600
	DefaultMemoryBytes = 8 << 30
	DefaultProcesses   = 1024
	DefaultFileBytes   = 1 << 30
	DefaultOpenFiles   = 4096
	DefaultTmpBytes    = 1 << 30
)

// Limits are per-process resource limits (rlimits) applied to a command
// and everything it starts. A zero field takes the default; a negative
// one means unlimited.
type Limits struct {
	// CPUSeconds bounds each process's CPU time (RLIMIT_CPU). Default 600.
	CPUSeconds int `json:"cpuSeconds,omitempty"`
	// MemoryBytes bounds each process's address space (RLIMIT_AS).
	// Default 8 GiB. The race detector reserves far more address space
	// than it uses: set -1 to allow `go test -race`.
	MemoryBytes int64 `json:"memoryBytes,omitempty"`
	// Processes bounds the processes and threads of the user
	// (RLIMIT_NPROC). Default 1024. Not enforced for root.
	Processes int `json:"processes,omitempty"`
	// FileBytes bounds the size of any file written (RLIMIT_FSIZE).
	// Default 1 GiB.
	FileBytes int64 `json:"fileBytes,omitempty"`
	// OpenFiles bounds open file descriptors (RLIMIT_NOFILE). Default 4096.
	OpenFiles int `json:"openFiles,omitempty"`
	// TmpBytes bounds each of the sandbox's in-memory directories (/tmp,
	// /var/tmp, /run, /dev/shm; the rest of its own file system is
	// read-only): what is written there is memory, which no other limit
	// bounds. Default 1 GiB each.
	TmpBytes int64 `json:"tmpBytes,omitempty"`
}

// Config configures a Sandbox.
type Config struct {
	// Mode is ModeBwrap (also when empty) or ModeNone.
	Mode Mode `json:"mode,omitempty"`
	// ReadOnly lists more host paths bound read-only into the sandbox
	// (toolchains outside /usr, for instance a Go installation). Paths
	// that do not exist are skipped.
	ReadOnly []string `json:"readOnly,omitempty"`
	// Limits are the resource limits.
	Limits Limits `json:"limits,omitempty"`
	// Bwrap is the bubblewrap executable. Default "bwrap".
	Bwrap string `json:"-"`
	// Prlimit is util-linux's prlimit executable. Default "prlimit".
	Prlimit string `json:"-"`
}

// Validate reports an invalid mode or relative read-only path.
func (c Config) Validate() error {
	switch c.Mode {
	case "", ModeBwrap, ModeNone:
	default:
		return fmt.Errorf("%w: mode %q (want %q or %q)", ErrInvalid, c.Mode, ModeBwrap, ModeNone)
	}
	for _, p := range c.ReadOnly {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("%w: read-only path %q is not absolute", ErrInvalid, p)
		}
	}
	return nil
}

func (l Limits) withDefaults() Limits {
	if l.CPUSeconds == 0 {
		l.CPUSeconds = DefaultCPUSeconds
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.Processes == 0 {
		l.Processes = DefaultProcesses
	}
	if l.FileBytes == 0 {
		l.FileBytes = DefaultFileBytes
	}
	if l.OpenFiles == 0 {
		l.OpenFiles = DefaultOpenFiles
	}
	if l.TmpBytes == 0 {
		l.TmpBytes = DefaultTmpBytes
	}
	return l
}

// rlimit is one resource limit to set on a command's process.
type rlimit struct {
	name      string // prlimit's option name
	resource  int    // RLIMIT_* constant
	soft, max uint64
}

// rlimits are the limits to set, the unlimited ones left out. The CPU hard
// limit is a few seconds above the soft one, so SIGXCPU (which names the
// cause) comes before SIGKILL.
func (l Limits) rlimits() []rlimit {
	var out []rlimit
	add := func(name string, resource int, soft, hard int64) {
		if soft > 0 {
			out = append(out, rlimit{name: name, resource: resource, soft: uint64(soft), max: uint64(hard)})
		}
	}
	add("cpu", unix.RLIMIT_CPU, int64(l.CPUSeconds), int64(l.CPUSeconds)+5)
	add("as", unix.RLIMIT_AS, l.MemoryBytes, l.MemoryBytes)
	add("nproc", unix.RLIMIT_NPROC, int64(l.Processes), int64(l.Processes))
	add("fsize", unix.RLIMIT_FSIZE, l.FileBytes, l.FileBytes)
	add("nofile", unix.RLIMIT_NOFILE, int64(l.OpenFiles), int64(l.OpenFiles))
	return out
}

// prlimitArgs are prlimit's options for the limits.
func (l Limits) prlimitArgs() []string {
	var args []string
	for _, r := range l.rlimits() {
		args = append(args, "--"+r.name+"="+strconv.FormatUint(r.soft, 10)+":"+strconv.FormatUint(r.max, 10))
	}
	return args
}

// String describes the limits for messages.
func (l Limits) String() string {
	var parts []string
	if l.CPUSeconds > 0 {
		parts = append(parts, fmt.Sprintf("cpu %ds per process", l.CPUSeconds))
	}
	if l.MemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("address space %d MiB", l.MemoryBytes>>20))
	}
	if l.Processes > 0 {
		parts = append(parts, fmt.Sprintf("processes %d", l.Processes))
	}
	if l.FileBytes > 0 {
		parts = append(parts, fmt.Sprintf("file size %d MiB", l.FileBytes>>20))
	}
	if l.OpenFiles > 0 {
		parts = append(parts, fmt.Sprintf("open files %d", l.OpenFiles))
	}
	if l.TmpBytes > 0 {
		parts = append(parts, fmt.Sprintf("in-memory directories %d MiB each", l.TmpBytes>>20))
	}
	return strings.Join(parts, ", ")
}
