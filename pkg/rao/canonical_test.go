package rao

import (
	"errors"
	"testing"
)

func TestCanonicalizeJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "sorted keys and no whitespace", in: ` { "b" : 1 , "a" : [ 1 , 2 ] } `, want: `{"a":[1,2],"b":1}`},
		{name: "nested objects sorted", in: `{"z":{"y":1,"x":{"b":0,"a":0}},"a":null}`, want: `{"a":null,"z":{"x":{"a":0,"b":0},"y":1}}`},
		{name: "numbers kept verbatim", in: `[1.0, 1e5, -0, 12345678901234567890123, 0.1000, 1E-7]`, want: `[1.0,1e5,-0,12345678901234567890123,0.1000,1E-7]`},
		{name: "no HTML escaping", in: `{"h":"<a href=\"x\">&</a>"}`, want: `{"h":"<a href=\"x\">&</a>"}`},
		{name: "escapes decoded and re-escaped minimally", in: `"\u0041\n\t\r\u0001\\\"\/é\u00e9"`, want: `"A\n\t\r\u0001\\\"/éé"`},
		{name: "byte-wise key order", in: `{"é":1,"z":2,"Z":3,"":4}`, want: `{"":4,"Z":3,"z":2,"é":1}`},
		{name: "duplicate key keeps last", in: `{"a":1,"a":2}`, want: `{"a":2}`},
		{name: "scalars", in: ` true `, want: `true`},
		{name: "empty containers", in: `{"a":{},"b":[]}`, want: `{"a":{},"b":[]}`},
		{name: "line separators left as is", in: `"\u2028"`, want: "\"\u2028\""},
		{name: "DEL and high control kept", in: `"\u007f"`, want: "\"\x7f\""},
		{name: "unpaired surrogate replaced", in: `"\ud800"`, want: "\"\ufffd\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CanonicalizeJSON([]byte(tc.in))
			if err != nil {
				t.Fatalf("CanonicalizeJSON: %v", err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
			again, err := CanonicalizeJSON(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("not idempotent: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalizeJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{name: "empty", in: ``},
		{name: "truncated", in: `{"a":`},
		{name: "trailing value", in: `{} {}`},
		{name: "trailing garbage", in: `[1] x`},
		{name: "not JSON", in: `hello`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CanonicalizeJSON([]byte(tc.in)); !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("got %v, want ErrInvalidJSON", err)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	type inner struct {
		B string `json:"b"`
		A int    `json:"a"`
	}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "struct fields sorted", in: inner{B: "<x>", A: 1}, want: `{"a":1,"b":"<x>"}`},
		{name: "map", in: map[string]any{"y": []int{3, 1}, "x": true}, want: `{"x":true,"y":[3,1]}`},
		{name: "raw message", in: []byte(`not used`), want: `"bm90IHVzZWQ="`},
		{name: "nil", in: nil, want: `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.in)
			if err != nil {
				t.Fatalf("Canonical: %v", err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	t.Run("unmarshalable value", func(t *testing.T) {
		if _, err := Canonical(make(chan int)); !errors.Is(err, ErrInvalidJSON) {
			t.Fatalf("got %v, want ErrInvalidJSON", err)
		}
	})
}
