package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Format names a policy file syntax.
type Format string

// The policy file formats.
const (
	// FormatAuto sniffs the content: a document whose first non-space
	// byte is "{" is JSON, anything else YAML.
	FormatAuto Format = ""
	// FormatJSON is JSON.
	FormatJSON Format = "json"
	// FormatYAML is YAML.
	FormatYAML Format = "yaml"
)

// Load reads a policy file and parses it with [Parse]. The format comes from
// the extension (".json", ".yaml", ".yml"); other extensions are sniffed.
// It returns the wrapped os error if the file cannot be read, and otherwise
// whatever Parse returns.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("could not read policy file: %w", err)
	}
	format := FormatAuto
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		format = FormatJSON
	case ".yaml", ".yml":
		format = FormatYAML
	}
	p, err := Parse(data, format)
	if err != nil {
		return nil, fmt.Errorf("could not load policy %s: %w", filepath.Base(path), err)
	}
	return p, nil
}

// Parse decodes a policy document and validates it. Keys are matched
// exactly; unknown and duplicate keys are errors, as are an empty document
// and trailing content after it. An omitted "destructive" becomes
// [DestructiveBlock]; every other omitted field keeps its zero value.
//
// It returns an error wrapping [ErrUnsupportedFormat] for an unknown
// format, and an error wrapping [ErrInvalidPolicy] for a document that
// does not decode or does not pass [Policy.Validate].
func Parse(data []byte, format Format) (*Policy, error) {
	if format == FormatAuto {
		format = sniff(data)
	}
	var (
		p   Policy
		err error
	)
	switch format {
	case FormatJSON:
		err = decodeJSON(data, &p)
	case FormatYAML:
		err = decodeYAML(data, &p)
	default:
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedFormat, format)
	}
	if err != nil {
		return nil, fmt.Errorf("could not decode %s policy: %w: %w", format, ErrInvalidPolicy, err)
	}
	if p.Destructive == "" {
		p.Destructive = DestructiveBlock
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("could not validate policy: %w", err)
	}
	return &p, nil
}

// sniff guesses the format from the first non-space byte.
func sniff(data []byte) Format {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return FormatJSON
	}
	return FormatYAML
}

var errEmptyDocument = errors.New("empty document")

func decodeYAML(data []byte, p *Policy) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(p); err != nil {
		if errors.Is(err, io.EOF) {
			return errEmptyDocument
		}
		return err
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return err
	default:
		return errors.New("more than one YAML document")
	}
}

func decodeJSON(data []byte, p *Policy) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errEmptyDocument
	}
	if err := checkJSONKeys(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing content after the JSON document")
	}
	return nil
}
