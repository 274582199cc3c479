package policy

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name        string
		file        string
		wantMax     int
		wantMode    DestructiveMode
		wantTouches int
	}{
		{name: "yaml by extension", file: "policy.yaml", wantMax: 1500, wantMode: DestructiveWarn, wantTouches: 3},
		{name: "json by extension", file: "policy.json", wantMax: 1500, wantMode: DestructiveWarn, wantTouches: 3},
		{name: "sniffed json with default mode", file: "sniffed.policy", wantMax: 10, wantMode: DestructiveBlock, wantTouches: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Load(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if p.MaxChangedLines != tt.wantMax || p.Destructive != tt.wantMode || len(p.NeverTouch) != tt.wantTouches {
				t.Errorf("Load(%s) = %+v", tt.file, p)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		wantErr error
	}{
		{name: "missing file", file: "does-not-exist.yaml", wantErr: fs.ErrNotExist},
		{name: "invalid policy", file: "invalid.yaml", wantErr: ErrInvalidPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(filepath.Join("testdata", tt.file))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Load(%s) error = %v, want %v", tt.file, err, tt.wantErr)
			}
		})
	}
}

func TestParseSameHashAcrossFormats(t *testing.T) {
	yamlPolicy, err := Load(filepath.Join("testdata", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jsonPolicy, err := Load(filepath.Join("testdata", "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	if yamlPolicy.Hash() != jsonPolicy.Hash() {
		t.Errorf("YAML and JSON hashes differ:\n%s\n%s", yamlPolicy.StableJSON(), jsonPolicy.StableJSON())
	}
}

func TestParseKeyOrderIndependence(t *testing.T) {
	docs := []struct {
		name   string
		format Format
		doc    string
	}{
		{name: "json a", format: FormatJSON, doc: `{"never_touch":["a/**"],"max_changed_lines":5,"commands":{"allow":[["go","test"]]}}`},
		{name: "json b", format: FormatJSON, doc: `{"commands":{"allow":[["go","test"]]},"max_changed_lines":5,"never_touch":["a/**"],"destructive":"block"}`},
		{name: "yaml", format: FormatYAML, doc: "max_changed_lines: 5\ncommands: {allow: [[go, test]]}\nnever_touch: [a/**]\n"},
		{name: "auto yaml", format: FormatAuto, doc: "never_touch:\n  - a/**\nmax_changed_lines: 5\ncommands:\n  allow:\n    - - go\n      - test\n"},
		{name: "auto json", format: FormatAuto, doc: "\n {\"max_changed_lines\":5,\"never_touch\":[\"a/**\"],\"commands\":{\"allow\":[[\"go\",\"test\"]]}}"},
	}
	var first string
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			p, err := Parse([]byte(d.doc), d.format)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			h := p.Hash()
			if first == "" {
				first = h
			} else if h != first {
				t.Errorf("hash %s differs from %s; stable JSON %s", h, first, p.StableJSON())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		format   Format
		doc      string
		wantErr  error
		contains string
	}{
		{name: "unsupported format", format: "toml", doc: "x", wantErr: ErrUnsupportedFormat},
		{name: "empty yaml", format: FormatYAML, doc: "", wantErr: ErrInvalidPolicy, contains: "empty document"},
		{name: "comment-only yaml", format: FormatYAML, doc: "# nothing\n", wantErr: ErrInvalidPolicy, contains: "empty document"},
		{name: "empty json", format: FormatJSON, doc: "  \n", wantErr: ErrInvalidPolicy, contains: "empty document"},
		{name: "unknown yaml key", format: FormatYAML, doc: "never_tuch: [a]\n", wantErr: ErrInvalidPolicy, contains: "never_tuch"},
		{name: "unknown nested yaml key", format: FormatYAML, doc: "commands:\n  deny: [[rm]]\n", wantErr: ErrInvalidPolicy, contains: "deny"},
		{name: "duplicate yaml key", format: FormatYAML, doc: "max_changed_lines: 1\nmax_changed_lines: 2\n", wantErr: ErrInvalidPolicy},
		{name: "two yaml documents", format: FormatYAML, doc: "max_changed_lines: 1\n---\nmax_changed_lines: 2\n", wantErr: ErrInvalidPolicy, contains: "more than one"},
		{name: "broken second yaml document", format: FormatYAML, doc: "max_changed_lines: 1\n---\n[\n", wantErr: ErrInvalidPolicy},
		{name: "yaml type error", format: FormatYAML, doc: "max_changed_lines: lots\n", wantErr: ErrInvalidPolicy},
		{name: "unknown json key", format: FormatJSON, doc: `{"never_tuch":["a"]}`, wantErr: ErrInvalidPolicy, contains: `unknown key "never_tuch"`},
		{name: "unknown nested json key", format: FormatJSON, doc: `{"always_allow":{"tool":["x"]}}`, wantErr: ErrInvalidPolicy, contains: `unknown key "always_allow.tool"`},
		{name: "json key case differs", format: FormatJSON, doc: `{"NEVER_TOUCH":["a"]}`, wantErr: ErrInvalidPolicy, contains: "NEVER_TOUCH"},
		{name: "duplicate json key", format: FormatJSON, doc: `{"max_changed_lines":1,"max_changed_lines":2}`, wantErr: ErrInvalidPolicy, contains: "duplicate key"},
		{name: "json trailing content", format: FormatJSON, doc: `{} {}`, wantErr: ErrInvalidPolicy, contains: "trailing"},
		{name: "json syntax error", format: FormatJSON, doc: `{"never_touch": [}`, wantErr: ErrInvalidPolicy},
		{name: "json top-level array", format: FormatJSON, doc: `[]`, wantErr: ErrInvalidPolicy, contains: "document: unexpected ["},
		{name: "json object where list expected", format: FormatJSON, doc: `{"never_touch":{}}`, wantErr: ErrInvalidPolicy, contains: "never_touch: unexpected {"},
		{name: "json type error", format: FormatJSON, doc: `{"max_changed_lines":"5"}`, wantErr: ErrInvalidPolicy},
		{name: "json unknown key after a list", format: FormatJSON, doc: `{"commands":{"allow":[["go"]],"x":1}}`, wantErr: ErrInvalidPolicy, contains: `"commands.x"`},
		{name: "json starts with a closing bracket", format: FormatJSON, doc: `]`, wantErr: ErrInvalidPolicy},
		{name: "json missing key", format: FormatJSON, doc: `{,}`, wantErr: ErrInvalidPolicy},
		{name: "json object inside a prefix list", format: FormatJSON, doc: `{"commands":{"allow":[{}]}}`, wantErr: ErrInvalidPolicy, contains: "commands.allow[0]: unexpected {"},
		{name: "json truncated", format: FormatJSON, doc: `{"never_touch":["a"`, wantErr: ErrInvalidPolicy},
		{name: "invalid after decoding", format: FormatJSON, doc: `{"max_changed_lines":-1}`, wantErr: ErrInvalidPolicy, contains: "max_changed_lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.doc), tt.format)
			if p != nil || !errors.Is(err, tt.wantErr) {
				t.Fatalf("Parse = %v, %v; want nil, %v", p, err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not mention %q", err, tt.contains)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	y := "commands:\n  allow: [[go, test]]\n  flags:\n    go test: [-run, -v]\n"
	j := `{"commands":{"allow":[["go","test"]],"flags":{"go test":["-v","-run"]}}}`
	py, err := Parse([]byte(y), FormatYAML)
	if err != nil {
		t.Fatal(err)
	}
	pj, err := Parse([]byte(j), FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	if py.Hash() != pj.Hash() {
		t.Errorf("YAML and JSON flags hash differently:\n%s\n%s", py.StableJSON(), pj.StableJSON())
	}
	for _, bad := range []string{
		`{"commands":{"flags":{"go test":["-v"],"go test":["-run"]}}}`,
		`{"commands":{"flags":{"go  test":["-v"]}}}`,
		`{"commands":{"flags":{"":["-v"]}}}`,
		`{"commands":{"flags":{"go":["v"]}}}`,
		`{"commands":{"flags":{"go":["-o=x"]}}}`,
	} {
		if _, err := Parse([]byte(bad), FormatJSON); !errors.Is(err, ErrInvalidPolicy) {
			t.Errorf("Parse(%s) = %v, want ErrInvalidPolicy", bad, err)
		}
	}
}
