package redact

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

type sample struct {
	Name     string `json:"name"`
	Password string `json:"password"`
	Note     string `json:"note"`
}

func TestValue(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want any
	}{
		{name: "nil", in: nil, want: nil},
		{name: "bool", in: true, want: true},
		{name: "int", in: 42, want: 42},
		{name: "float", in: 1.5, want: 1.5},
		{name: "json number", in: json.Number("7"), want: json.Number("7")},
		{name: "string", in: "k " + awsKeyID, want: "k [REDACTED:aws-key]"},
		{name: "bytes", in: []byte("k " + awsKeyID), want: []byte("k [REDACTED:aws-key]")},
		{name: "error", in: errors.New("dial nats://u:pw@h:4222: refused"), want: "dial nats://u:[REDACTED:password]@h:4222: refused"},
		{name: "raw json", in: json.RawMessage(`{"token":"x","a":"b"}`), want: json.RawMessage(`{"token":"[REDACTED:secret]","a":"b"}`)},
		{name: "invalid raw json", in: json.RawMessage(`{"x": "` + awsKeyID), want: json.RawMessage(`{"x": "[REDACTED:aws-key]`)},
		{
			name: "generic map",
			in: map[string]any{
				"user": "ann", "password": "hunter2", "port": 4222, "pin_secret": 1234,
				"nested":      map[string]any{"api_key": "k", "list": []any{"ok", ghToken}},
				"credentials": []any{"a", 1, true, map[string]any{"x": "y"}},
			},
			want: map[string]any{
				"user": "ann", "password": "[REDACTED:secret]", "port": 4222, "pin_secret": "[REDACTED:secret]",
				"nested":      map[string]any{"api_key": "[REDACTED:secret]", "list": []any{"ok", "[REDACTED:github-token]"}},
				"credentials": []any{"[REDACTED:secret]", "[REDACTED:secret]", true, map[string]any{"x": "[REDACTED:secret]"}},
			},
		},
		{
			name: "string map",
			in:   map[string]string{"Authorization": "Basic abc", "Accept": "text/plain"},
			want: map[string]string{"Authorization": "[REDACTED:secret]", "Accept": "text/plain"},
		},
		{name: "string slice", in: []string{"a", awsKeyID}, want: []string{"a", "[REDACTED:aws-key]"}},
		{
			name: "secret bytes, raw json and error",
			in:   map[string]any{"token": []byte("x"), "secret": json.RawMessage(`{"a":1}`), "password": errors.New("e"), "pin_secret": json.Number("1")},
			want: map[string]any{"token": []byte("[REDACTED:secret]"), "secret": json.RawMessage(`"[REDACTED:secret]"`), "password": "[REDACTED:secret]", "pin_secret": "[REDACTED:secret]"},
		},
		{
			name: "struct goes through JSON",
			in:   sample{Name: "a", Password: "p", Note: "sk-abcdefghijklmnopqrstuvwxyz"},
			want: json.RawMessage(`{"name":"a","password":"[REDACTED:secret]","note":"[REDACTED:openai-key]"}`),
		},
		{
			name: "struct under a secret key",
			in:   map[string]any{"auth": &sample{Name: "a"}},
			want: map[string]any{"auth": json.RawMessage(`"[REDACTED:secret]"`)},
		},
		{name: "unencodable", in: make(chan int), want: "[REDACTED:unencodable]"},
		{name: "unencodable inside map", in: map[string]any{"f": func() {}}, want: map[string]any{"f": "[REDACTED:unencodable]"}},
	}
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Value(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Value(%#v)\n got %#v\nwant %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestValueSelfReferenceEnds(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"a": "b"}
	m["self"] = m
	got := r.Value(m)
	for depth := 0; ; depth++ {
		next, ok := got.(map[string]any)
		if !ok {
			if got != "[REDACTED:unencodable]" || depth < maxValueDepth {
				t.Fatalf("walk ended at depth %d with %#v", depth, got)
			}
			return
		}
		got = next["self"]
	}
}

func TestValueDoesNotModifyInput(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"password": "p", "list": []any{awsKeyID}, "s": []string{awsKeyID}, "b": []byte(awsKeyID)}
	r.Value(in)
	if in["password"] != "p" || in["list"].([]any)[0] != awsKeyID || in["s"].([]string)[0] != awsKeyID || string(in["b"].([]byte)) != awsKeyID {
		t.Errorf("Value modified its input: %#v", in)
	}
	out := r.Value([]byte("clean")).([]byte)
	src := []byte("clean")
	out2 := r.Value(src).([]byte)
	out2[0] = 'X'
	if string(src) != "clean" || string(out) != "clean" {
		t.Errorf("Value returned bytes aliasing its input")
	}
}

// panickyMarshal panics in MarshalJSON, as a method on a nil pointer does.
type panickyMarshal struct{ Token string }

func (panickyMarshal) MarshalJSON() ([]byte, error) { panic("MarshalJSON failed") }

// ptrErr is an error whose Error method reads its receiver.
type ptrErr struct{ msg string }

func (e *ptrErr) Error() string { return e.msg }

// TestValueOfPanickingMethods: a value whose MarshalJSON panics becomes
// the unencodable marker and a nil error pointer whose Error panics is
// "<nil>", as fmt prints it, instead of crashing the caller (a service's
// log handler).
func TestValueOfPanickingMethods(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Value(struct{ P panickyMarshal }{panickyMarshal{"hunter2"}}); got != marker(UnencodableLabel) {
		t.Errorf("Value of a panicking MarshalJSON = %v, want the unencodable marker", got)
	}
	var e *ptrErr
	if got := r.Value(error(e)); got != "<nil>" {
		t.Errorf("Value of a nil error pointer = %v, want <nil>", got)
	}
}
