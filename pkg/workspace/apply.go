package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// Apply applies a unified diff produced by Change to the workspace. It
// returns an error wrapping ErrApply when the diff does not apply cleanly.
func (w *Workspace) Apply(ctx context.Context, diff string) error {
	_, err := w.apply(ctx, diff, false)
	return err
}

// ApplyChange applies diff as Apply does and returns the change as it was
// applied: the union of the files the patch touched as git itself reads
// it (`git apply --numstat`, or the same from applyText) and the change
// the work tree then shows
// (Change), with the larger line counts, and the work tree's patch as git
// writes it (a link is a link there, however the diff spelled it, so the
// gate can judge its target). The work tree is read too because git names only a patch's new path in its numstat:
// a patch whose old path differs (a rename, or "--- a/<old>" under
// another file's header) removes a file numstat never names. For the
// paths only numstat names, whether a file was added, modified or deleted
// is what the work tree shows: there before (tracked by the baseline) and
// after (not a directory). It must be called on a freshly prepared
// workspace.
func (w *Workspace) ApplyChange(ctx context.Context, diff string) (events.Change, error) {
	ch, err := w.apply(ctx, diff, w.tracked != nil)
	if err != nil {
		return events.Change{}, err
	}
	for i, f := range ch.Files {
		_, before := w.tracked[f.Path]
		// A directory where the file was is the file deleted.
		info, statErr := os.Lstat(filepath.Join(w.Dir, filepath.FromSlash(f.Path)))
		after := statErr == nil && !info.IsDir()
		switch {
		case before && !after:
			ch.Files[i].Op = "delete"
		case !before && after:
			ch.Files[i].Op = "add"
		default:
			ch.Files[i].Op = "modify"
		}
	}
	real, err := w.Change(ctx)
	if err != nil {
		return events.Change{}, fmt.Errorf("could not read the applied change: %w", err)
	}
	return unionChange(real, ch), nil
}

// unionChange is every file of real and read (real's op wins: it is what
// the work tree shows), the larger line counts, and real's patch.
func unionChange(real, read events.Change) events.Change {
	out := events.Change{Files: real.Files, Added: max(real.Added, read.Added), Removed: max(real.Removed, read.Removed), Diff: real.Diff, DiffRef: real.DiffRef}
	seen := make(map[string]bool, len(real.Files))
	for _, f := range real.Files {
		seen[f.Path] = true
	}
	for _, f := range read.Files {
		if !seen[f.Path] {
			seen[f.Path] = true
			out.Files = append(out.Files, f)
		}
	}
	return out
}

// apply applies diff, in this process when it is a plain text patch (see
// applyText) and by git apply otherwise; with numstat it also returns the
// files and line counts git reads from the patch (ops left empty).
func (w *Workspace) apply(ctx context.Context, diff string, numstat bool) (events.Change, error) {
	if strings.TrimSpace(diff) == "" {
		return events.Change{}, nil
	}
	if w.byGit {
		return w.applyGit(ctx, diff, numstat)
	}
	defer func() { w.patched = true }()
	if ch, ok, err := w.applyText(diff); ok {
		if err != nil || !numstat {
			return events.Change{}, err
		}
		return ch, nil
	}
	return w.applyGit(ctx, diff, numstat)
}

// applyGit is apply by git.
func (w *Workspace) applyGit(ctx context.Context, diff string, numstat bool) (events.Change, error) {
	patch := filepath.Join(filepath.Dir(w.Dir), filepath.Base(w.Dir)+".patch")
	if err := os.WriteFile(patch, []byte(diff), 0o600); err != nil {
		return events.Change{}, fmt.Errorf("could not write patch: %w", err)
	}
	defer func() { _ = os.Remove(patch) }()
	args := []string{"apply", "--whitespace=nowarn", "--binary"}
	if numstat {
		// --numstat alone only reads the patch; --apply after it applies
		// it too, in the same process.
		args = append(args, "--numstat", "-z", "--apply")
	}
	out, err := w.runGit(ctx, w.Dir, w.gitDir, max(64<<10, w.lim.MaxDiffBytes), append(args, patch)...)
	switch {
	case errors.Is(err, ErrTooLarge):
		return events.Change{}, err
	case err != nil:
		return events.Change{}, fmt.Errorf("%w: %w", ErrApply, err)
	}
	if !numstat {
		return events.Change{}, nil
	}
	ch, err := parseApplyNumstat(out)
	if err != nil {
		return events.Change{}, fmt.Errorf("%w: %w", ErrGit, err)
	}
	return ch, nil
}

// parseApplyNumstat reads `git apply --numstat -z`: per file
// "<added>\t<removed>\t<path>\0", "-" counting a binary file as 0 lines.
// git names only a patch's new path, also for a rename or copy (the old
// path's removal is seen in the work tree, see ApplyChange); the ops are
// set by the caller.
func parseApplyNumstat(out string) (events.Change, error) {
	var ch events.Change
	for rest := out; rest != ""; {
		i := strings.IndexByte(rest, 0)
		if i < 0 {
			return events.Change{}, fmt.Errorf("%w: a numstat record without its end", errDiffFormat)
		}
		rec := rest[:i]
		rest = rest[i+1:]
		n := strings.SplitN(rec, "\t", 3)
		if len(n) != 3 || n[2] == "" {
			return events.Change{}, fmt.Errorf("%w: numstat record %q", errDiffFormat, rec)
		}
		added, aerr := lineCount(n[0])
		removed, rerr := lineCount(n[1])
		if aerr != nil || rerr != nil {
			return events.Change{}, fmt.Errorf("%w: numstat counts %q", errDiffFormat, n[0]+" "+n[1])
		}
		ch.Added += added
		ch.Removed += removed
		ch.Files = append(ch.Files, events.FileChange{Path: n[2]})
	}
	return ch, nil
}

// lineCount reads a numstat count: a number, or "-" for a binary file.
func lineCount(s string) (int, error) {
	if s == "-" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad count %q", s)
	}
	return n, nil
}
