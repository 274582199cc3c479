package cognition

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestActDraftDecode(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want ActDraft
	}{
		{name: "with args", doc: `{"act":"read_file","args":{"path":"a.go"}}`, want: ActDraft{Act: "read_file", Args: json.RawMessage(`{"path":"a.go"}`)}},
		{name: "args are compacted", doc: `{"act":"x","args": { "a" : [ 1, 2 ] } }`, want: ActDraft{Act: "x", Args: json.RawMessage(`{"a":[1,2]}`)}},
		{name: "args are HTML-escaped", doc: `{"act":"x","args":{"t":"<a> & b"}}`, want: ActDraft{Act: "x", Args: json.RawMessage(`{"t":"\u003ca\u003e \u0026 b"}`)}},
		{name: "without args", doc: `{"act":"noop"}`, want: ActDraft{Act: "noop"}},
		{name: "null args", doc: `{"act":"noop","args":null}`, want: ActDraft{Act: "noop"}},
		{name: "empty args", doc: `{"act":"noop","args":{}}`, want: ActDraft{Act: "noop", Args: json.RawMessage(`{}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got ActDraft
			if err := json.Unmarshal([]byte(tt.doc), &got); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			if got.Act != tt.want.Act || string(got.Args) != string(tt.want.Args) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestActDraftEncode(t *testing.T) {
	tests := []struct {
		name string
		d    ActDraft
		want string
	}{
		{name: "with args", d: ActDraft{Act: "a", Args: json.RawMessage(`{"k":1}`)}, want: `{"act":"a","args":{"k":1}}`},
		{name: "nil args are omitted", d: ActDraft{Act: "a"}, want: `{"act":"a"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustJSON(t, tt.d); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestActDraftErrors(t *testing.T) {
	decodeTests := []struct {
		name    string
		doc     string
		wantErr error
	}{
		{name: "not an object", doc: `[]`, wantErr: ErrInvalidField},
		{name: "missing act", doc: `{"args":{}}`, wantErr: ErrMissingField},
		{name: "empty act", doc: `{"act":""}`, wantErr: ErrMissingField},
		{name: "numeric act", doc: `{"act":3}`, wantErr: ErrInvalidField},
		{name: "args is a list", doc: `{"act":"a","args":[1]}`, wantErr: ErrInvalidField},
		{name: "args is a string", doc: `{"act":"a","args":"x"}`, wantErr: ErrInvalidField},
		{name: "unknown field", doc: `{"act":"a","reason":"x"}`, wantErr: ErrUnknownField},
	}
	for _, tt := range decodeTests {
		t.Run("decode "+tt.name, func(t *testing.T) {
			var d ActDraft
			err := json.Unmarshal([]byte(tt.doc), &d)
			if !errors.Is(err, ErrInvalidActDraft) || !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want ErrInvalidActDraft and %v", err, tt.wantErr)
			}
		})
	}
	encodeTests := []struct {
		name    string
		d       ActDraft
		wantErr error
	}{
		{name: "empty act", d: ActDraft{}, wantErr: ErrMissingField},
		{name: "args not an object", d: ActDraft{Act: "a", Args: json.RawMessage(`[1]`)}, wantErr: ErrInvalidField},
		{name: "args not JSON", d: ActDraft{Act: "a", Args: json.RawMessage(`{`)}, wantErr: ErrInvalidField},
		{name: "args only whitespace", d: ActDraft{Act: "a", Args: json.RawMessage(`  `)}, wantErr: ErrInvalidField},
	}
	for _, tt := range encodeTests {
		t.Run("encode "+tt.name, func(t *testing.T) {
			_, err := json.Marshal(tt.d)
			if !errors.Is(err, ErrInvalidActDraft) || !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v, want ErrInvalidActDraft and %v", err, tt.wantErr)
			}
		})
	}
}
