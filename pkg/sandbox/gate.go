package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// limitGate holds a bubblewrap sandbox before its command starts: bwrap
// writes the sandboxed process's pid to the info pipe (--info-fd) and that
// process waits on the block pipe (--block-fd) before it runs the command.
// release sets the limits on it, then lets it go. If release fails or is
// never called, closing the block pipe without a byte lets the process go
// too, so the caller kills the group first.
type limitGate struct {
	infoR, infoW   *os.File
	blockR, blockW *os.File
}

// newLimitGate makes the pipes.
func newLimitGate() (*limitGate, error) {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	blockR, blockW, err := os.Pipe()
	if err != nil {
		_, _ = infoR.Close(), infoW.Close()
		return nil, err
	}
	return &limitGate{infoR: infoR, infoW: infoW, blockR: blockR, blockW: blockW}, nil
}

// childFiles are the ends bwrap gets: info (fd 3) and block (fd 4).
func (g *limitGate) childFiles() []*os.File { return []*os.File{g.infoW, g.blockR} }

// bwrapInfo is what bwrap writes to its info fd.
type bwrapInfo struct {
	ChildPid int `json:"child-pid"`
}

// errNoSandbox is bwrap ending before it made the sandboxed process (the
// caller then reports bwrap's own exit and output).
var errNoSandbox = errors.New("bubblewrap ended before starting the command")

// release reads the sandboxed process's pid, sets rl on it and unblocks
// it. It must be called after cmd.Start. bwrap exiting before it made the
// process (no namespaces here) is not an error: the caller sees its exit.
func (g *limitGate) release(ctx context.Context, rl []rlimit) error {
	// The parent's copies of the child ends: closed, so bwrap's exit is an
	// end of file here.
	_, _ = g.infoW.Close(), g.blockR.Close()
	type read struct {
		info bwrapInfo
		err  error
	}
	got := make(chan read, 1)
	go func() {
		var r read
		r.err = json.NewDecoder(g.infoR).Decode(&r.info)
		got <- r
	}()
	var r read
	select {
	case r = <-got:
	case <-ctx.Done():
		_ = g.infoR.Close()
		return fmt.Errorf("waiting for the sandbox to start: %w", ctx.Err())
	}
	switch {
	case errors.Is(r.err, io.EOF):
		return nil // bwrap failed first; its exit status says why
	case r.err != nil:
		return fmt.Errorf("reading the sandbox's pid: %w", r.err)
	case r.info.ChildPid <= 0:
		return fmt.Errorf("reading the sandbox's pid: %w", errNoSandbox)
	}
	// The process gone (no such process, nobody left to read the block
	// pipe) ran no command: bwrap failed making the sandbox, and its exit
	// says why.
	if err := setRlimits(r.info.ChildPid, rl); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return err
	}
	if _, err := g.blockW.Write([]byte{1}); err != nil {
		if errors.Is(err, syscall.EPIPE) {
			return nil
		}
		return fmt.Errorf("starting the sandboxed command: %w", err)
	}
	return nil
}

// close releases the parent's ends.
func (g *limitGate) close() {
	for _, f := range []*os.File{g.infoR, g.infoW, g.blockR, g.blockW} {
		_ = f.Close()
	}
}
