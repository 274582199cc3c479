package afs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// Paths of the canonical files, relative to .context/.
const (
	PathState         = "scratchpad/state.json"
	PathStateMD       = "scratchpad/state.md"
	PathMetacognition = "scratchpad/metacognition.json"
	PathGoals         = "scratchpad/goals.json"
	PathEmotions      = "scratchpad/emotions.json"
	PathEpistemic     = "scratchpad/epistemic.json"
	PathHazards       = "memory/fears.json"
	DirHistory        = "history"
	DirHivemind       = "hivemind"
)

// Files is the content of a .context/ directory. A nil file is absent.
type Files struct {
	State         *StateFile
	Metacognition *Metacognition
	Goals         *GoalsFile
	Emotions      *Emotions
	Epistemic     *Epistemic
	// Triggers is scratchpad/analysis-triggers.json.
	Triggers *TriggersFile
	// Hazards is memory/fears.json.
	Hazards *HazardFile
	// Hivemind maps a file name under hivemind/ (e.g. "fears.json") to
	// its JSON, passed through unchanged.
	Hivemind map[string]json.RawMessage
	// History holds the entries of history/*.jsonl in file then line order.
	History []Entry
	// Snapshot, when set, is the cognitive export rendered into state.md.
	Snapshot *Snapshot
}

// Render returns the content of every file, keyed by its path relative to
// .context/. It is deterministic: JSON is indented by two spaces, and
// history entries go into history/<UTC day>.jsonl in order.
func Render(f Files) (map[string][]byte, error) {
	out := map[string][]byte{}
	put := func(p string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("render %s: %w", p, err)
		}
		out[p] = append(b, '\n')
		return nil
	}
	var errs []error
	if f.State != nil {
		errs = append(errs, put(PathState, f.State))
		out[PathStateMD] = []byte(RenderStateMD(*f.State, f.Snapshot))
	}
	if f.Metacognition != nil {
		errs = append(errs, put(PathMetacognition, f.Metacognition))
	}
	if f.Goals != nil {
		errs = append(errs, put(PathGoals, f.Goals))
	}
	if f.Emotions != nil {
		errs = append(errs, put(PathEmotions, f.Emotions))
	}
	if f.Epistemic != nil {
		errs = append(errs, put(PathEpistemic, f.Epistemic))
	}
	if f.Triggers != nil {
		errs = append(errs, put(PathTriggers, f.Triggers))
	}
	if f.Hazards != nil {
		errs = append(errs, put(PathHazards, f.Hazards))
	}
	for name, raw := range f.Hivemind {
		out[path.Join(DirHivemind, name)] = append(append([]byte{}, raw...), '\n')
	}
	for _, e := range f.History {
		line, err := e.MarshalLine()
		if err != nil {
			errs = append(errs, fmt.Errorf("render history entry %s: %w", e.ID, err))
			continue
		}
		p := HistoryPath(e)
		out[p] = append(append(out[p], line...), '\n')
	}
	return out, errors.Join(errs...)
}

// HistoryPath is the history file of an entry, relative to .context/.
func HistoryPath(e Entry) string { return path.Join(DirHistory, e.Date()+".jsonl") }

// Write materialises f into dir (the .context directory itself), creating
// directories as needed and replacing the files it renders; other files
// are left alone. It is Dir{Path: dir}.Write.
func Write(dir string, f Files) error { return Dir{Path: dir}.Write(f) }

// Write materialises f into the directory, creating directories as needed
// and replacing the files it renders; other files are left alone.
func (d Dir) Write(f Files) error {
	files, err := Render(f)
	if err != nil {
		return err
	}
	paths := sortedKeys(files)
	if err := d.links(paths...); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	for _, p := range paths {
		if err := d.writeFile(p, files[p]); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile replaces the file at p (slash-separated, relative to the
// directory) with data, creating its directory when it is missing.
func (d Dir) WriteFile(p string, data []byte) error {
	if err := d.links(p); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return d.writeFile(p, data)
}

func (d Dir) writeFile(p string, data []byte) error {
	if err := d.writeCreating(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, data); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// AppendHistory appends entries to their history files under dir (the
// .context directory): the system-append path of history/. It is
// Dir{Path: dir}.AppendHistory.
func AppendHistory(dir string, entries ...Entry) error {
	return Dir{Path: dir}.AppendHistory(entries...)
}

// AppendHistory appends entries to their history files: the
// system-append path of history/. Every entry is encoded before anything
// is written, and each file is opened once with all of its lines, in the
// entries' order.
func (d Dir) AppendHistory(entries ...Entry) error {
	var paths []string
	lines := map[string][]byte{}
	for _, e := range entries {
		line, err := e.MarshalLine()
		if err != nil {
			return fmt.Errorf("history entry %s: %w", e.ID, err)
		}
		p := HistoryPath(e)
		if _, ok := lines[p]; !ok {
			paths = append(paths, p)
		}
		lines[p] = append(append(lines[p], line...), '\n')
	}
	if len(paths) == 0 {
		return nil
	}
	if err := d.links(paths...); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	for _, p := range paths {
		if err := d.writeCreating(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, lines[p]); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	return nil
}

// ReadDir reads a .context directory. Missing files stay nil; a file that
// does not decode is an error wrapping ErrRead naming it. Keys may be
// snake_case or camelCase. state.md is a view and is not read. It is
// Dir{Path: dir}.Read.
func ReadDir(dir string) (Files, error) { return Dir{Path: dir}.Read() }

// Read reads the directory as ReadDir does. With NoLinks, a link where
// the directory or one of its subdirectories is reads nothing (an error
// wrapping ErrLink), and a file that is a link is not read (an error
// wrapping ErrRead and ErrLink).
func (d Dir) Read() (Files, error) {
	var f Files
	if err := d.links(PathState, PathHazards, DirHivemind+"/", DirHistory+"/"); err != nil {
		return f, fmt.Errorf("%w: %w", ErrRead, err)
	}
	var errs []error
	left := int64(MaxReadBytes)
	read := func(p string, v any, idMaps map[string]bool) bool {
		data, err := d.readFile(p, &left)
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		if err == nil {
			if u, ok := v.(json.Unmarshaler); ok {
				err = u.UnmarshalJSON(data)
			} else {
				err = decodeLoose(data, v, idMaps)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrRead, p, err))
			return false
		}
		return true
	}
	var st StateFile
	if read(PathState, &st, nil) {
		f.State = &st
	}
	var mc Metacognition
	if read(PathMetacognition, &mc, nil) {
		f.Metacognition = &mc
	}
	var g GoalsFile
	if read(PathGoals, &g, nil) {
		f.Goals = &g
	}
	var em Emotions
	if read(PathEmotions, &em, nil) {
		f.Emotions = &em
	}
	var ep Epistemic
	if read(PathEpistemic, &ep, nil) {
		f.Epistemic = &ep
	}
	var tr TriggersFile
	if read(PathTriggers, &tr, nil) {
		f.Triggers = &tr
	}
	if data, err := d.readFile(PathHazards, &left); err == nil {
		hs, herr := ParseHazards(data)
		var hf HazardFile
		_ = decodeLoose(data, &hf.Meta, nil) // a bare array has no metadata
		hf.Playbooks = hs
		if herr != nil {
			errs = append(errs, herr)
		} else {
			f.Hazards = &hf
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("%w: %s: %w", ErrRead, PathHazards, err))
	}
	if names, err := d.jsonNames(DirHivemind, ".json"); err != nil && names == nil {
		errs = append(errs, err)
	} else {
		if err != nil {
			errs = append(errs, err)
		}
		for _, n := range names {
			data, err := d.readFile(DirHivemind+"/"+n, &left)
			if err == nil && !json.Valid(data) {
				err = errors.New("not JSON")
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%w: %s/%s: %w", ErrRead, DirHivemind, n, err))
				continue
			}
			if f.Hivemind == nil {
				f.Hivemind = map[string]json.RawMessage{}
			}
			f.Hivemind[n] = json.RawMessage(strings.TrimSpace(string(data)))
		}
	}
	hist, err := d.readHistory(&left)
	if err != nil {
		errs = append(errs, err)
	}
	f.History = hist
	return f, errors.Join(errs...)
}

func (d Dir) readHistory(left *int64) ([]Entry, error) {
	names, err := d.jsonNames(DirHistory, ".jsonl")
	if err != nil && names == nil {
		return nil, err
	}
	var out []Entry
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, n := range names {
		data, err := d.readFile(DirHistory+"/"+n, left)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: history/%s: %w", ErrRead, n, err))
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			e, err := ParseLine([]byte(line))
			if err != nil {
				errs = append(errs, fmt.Errorf("history/%s line %d: %w", n, i+1, err))
				continue
			}
			out = append(out, e)
		}
	}
	return out, errors.Join(errs...)
}

// jsonNames lists the regular files with the suffix in dir, sorted; a
// missing dir has none.
// jsonNames lists the regular files of dir (relative to Path) whose
// names end in suffix, sorted; with NoLinks at most MaxDirFiles of them,
// the first in name order, with an error wrapping ErrTooLarge beside
// them when there are more.
func (d Dir) jsonNames(dir, suffix string) ([]string, error) {
	ents, err := os.ReadDir(d.full(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRead, err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), suffix) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	if d.NoLinks && len(out) > MaxDirFiles {
		return out[:MaxDirFiles], fmt.Errorf("%w: %s holds %d files; the first %d are read", ErrTooLarge, dir, len(out), MaxDirFiles)
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Producer describes who wrote the state file ("name version instance"),
// or "" when there is none.
func (f Files) Producer() string {
	if f.State == nil {
		return ""
	}
	p := f.State.Producer
	return strings.TrimSpace(strings.Join([]string{p.Name, p.Version, p.InstanceID}, " "))
}
