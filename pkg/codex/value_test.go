package codex

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestValue(t *testing.T) {
	tests := []struct {
		name    string
		v       Value
		unknown bool
		str     string
		i       int64
		iok     bool
		f       float64
		fok     bool
	}{
		{name: "integer", v: "42", str: "42", i: 42, iok: true, f: 42, fok: true},
		{name: "signed fraction", v: "-0.41", str: "-0.41", f: -0.41, fok: true},
		{name: "plus sign", v: "+3", str: "+3", i: 3, iok: true, f: 3, fok: true},
		{name: "word", v: "strict", str: "strict"},
		{name: "exponent rejected", v: "1e3", str: "1e3"},
		{name: "NaN rejected", v: "NaN", str: "NaN"},
		{name: "trailing dot", v: "1.", str: "1."},
		{name: "bare sign", v: "-", str: "-"},
		{name: "int overflow", v: "99999999999999999999", str: "99999999999999999999", f: 1e20, fok: true},
		{name: "unknown", v: Unknown, unknown: true, str: "UNKNOWN"},
		{name: "empty is unknown", v: "", unknown: true, str: "UNKNOWN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.v.IsUnknown() != tc.unknown || tc.v.String() != tc.str {
				t.Errorf("IsUnknown %v String %q", tc.v.IsUnknown(), tc.v.String())
			}
			if i, ok := tc.v.Int(); ok != tc.iok || i != tc.i {
				t.Errorf("Int = %d %v", i, ok)
			}
			if f, ok := tc.v.Float(); ok != tc.fok || f != tc.f {
				t.Errorf("Float = %v %v", f, ok)
			}
			b, err := json.Marshal(tc.v)
			if err != nil || string(b) != `"`+tc.str+`"` {
				t.Errorf("JSON %s %v", b, err)
			}
		})
	}
}

func TestListJSON(t *testing.T) {
	tests := []struct {
		name string
		list List[string]
		json string
	}{
		{"unknown", nil, `"UNKNOWN"`},
		{"known empty", List[string]{}, `[]`},
		{"items", List[string]{"a", "b"}, `["a","b"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.list)
			if err != nil || string(b) != tc.json {
				t.Fatalf("Marshal = %s, %v", b, err)
			}
			var back List[string]
			if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, tc.list) || back.Known() != tc.list.Known() {
				t.Errorf("Unmarshal = %#v, %v", back, err)
			}
		})
	}
}

func TestListUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, in string
		known    bool
		wantErr  bool
	}{
		{"null is unknown", `null`, false, false},
		{"other string", `"maybe"`, false, true},
		{"object", `{"a":1}`, false, true},
		{"wrong item type", `[1]`, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l List[string]
			err := l.UnmarshalJSON([]byte(tc.in))
			if (err != nil) != tc.wantErr || l.Known() != tc.known {
				t.Errorf("err %v known %v", err, l.Known())
			}
		})
	}
}

func TestParseIntegrity(t *testing.T) {
	tests := []struct {
		in   string
		want Integrity
		ok   bool
	}{
		{"green", IntegrityGreen, true}, {"AMBER", IntegrityAmber, true}, {"Red", IntegrityRed, true},
		{"unknown", IntegrityUnknown, false}, {"", IntegrityUnknown, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got, ok := parseIntegrity(tc.in); got != tc.want || ok != tc.ok {
				t.Errorf("got %q %v", got, ok)
			}
		})
	}
}
