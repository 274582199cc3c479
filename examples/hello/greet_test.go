package hello

import "testing"

func TestGreet(t *testing.T) {
	cases := map[string]string{
		"Ada": "Hello, Ada!",
		"":    "Hello, world!",
	}
	for in, want := range cases {
		if got := Greet(in); got != want {
			t.Errorf("Greet(%q) = %q, want %q", in, got, want)
		}
	}
}
