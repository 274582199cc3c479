package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// splitCommandDocs are objects giving a command's name in one member and
// its arguments in another (a Kubernetes container's command and args, a
// tool call's cmd and args), and their redaction.
var splitCommandDocs = []struct{ in, want string }{
	{`{"command":"mysql","args":["-uroot","-pSECRET"]}`, `{"command":"mysql","args":["-uroot","-p[REDACTED:password]"]}`},
	{`{"args":["-uroot","-pSECRET"],"command":["mysql"]}`, `{"args":["-uroot","-p[REDACTED:password]"],"command":["mysql"]}`},
	{`{"cmd":"docker","args":["login","-p","SECRET"]}`, `{"cmd":"docker","args":["login","-p","[REDACTED:password]"]}`},
	{`{"command":["docker","login"],"args":["-p","SECRET","r"]}`, `{"command":["docker","login"],"args":["-p","[REDACTED:password]","r"]}`},
	{`{"Command":"/usr/bin/mysql -uroot","Args":["-pSECRET"]}`, `{"Command":"/usr/bin/mysql -uroot","Args":["-p[REDACTED:password]"]}`},
	{`{"command":"mysql","args":["-p3306"],"x":{"cmd":"ls","args":["-pSECRET"]}}`, `{"command":"mysql","args":["-p[REDACTED:password]"],"x":{"cmd":"ls","args":["-pSECRET"]}}`},
	{`{"command":"docker","args":["run","-p","8080:80"]}`, `{"command":"docker","args":["run","-p","8080:80"]}`},
	{`{"command":"mysql","args":["-pSECRET",1]}`, `{"command":"mysql","args":["-pSECRET",1]}`},
	{`{"command":1,"args":["-pSECRET"]}`, `{"command":1,"args":["-pSECRET"]}`},
	{`{"cmd":"mysql","args":"-uroot -pSECRET db"}`, `{"cmd":"mysql","args":"-uroot -p[REDACTED:password] db"}`},
	{`{"args":"login -p SECRET key AKIAIOSFODNN7EXAMPLE","cmd":["docker"]}`, `{"args":"login -p [REDACTED:password] key [REDACTED:aws-key]","cmd":["docker"]}`},
	{`{"cmd":"docker","args":"run -p 8080:80"}`, `{"cmd":"docker","args":"run -p 8080:80"}`},
}

// TestCommandInSiblingField: a command named in one member and its
// arguments in another have the password redacted, by JSON (both paths)
// and Value, and PairedMembers reports such an object.
func TestCommandInSiblingField(t *testing.T) {
	r := &Redactor{}
	for _, c := range splitCommandDocs {
		checkJSONAndValue(t, r, c.in, c.want)
	}
	m := map[string]any{"cmd": "docker", "args": []string{"login", "-p", "SECRET"}}
	if got := r.Value(m).(map[string]any)["args"].([]string); got[2] != "[REDACTED:password]" {
		t.Errorf("Value(%v) args = %q", m, got)
	}
}

// TestPairedMembersSplitCommand: an object whose args redact only with
// its command is reported, so the state encoder never splits it.
func TestPairedMembersSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"command":"mysql","args":["-uroot","-pSECRET"]}`, true},
		{`{"args":["login","-p","X"],"cmd":"docker"}`, true},
		{`{"command":["mysql"],"args":["-uroot"]}`, false},
		{`{"command":"ls","args":["-pX"]}`, false},
		{`{"command":"mysql"}`, false},
		{`{"cmd":"mysql","args":"-uroot -pX"}`, true},
		{`{"cmd":"mysql","args":"-uroot"}`, false},
	} {
		var keys []string
		var raws [][]byte
		dec := json.NewDecoder(strings.NewReader(tc.doc))
		var m map[string]json.RawMessage
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			keys, raws = append(keys, k), append(raws, v)
		}
		got := PairedMembers(func(yield func(string, []byte) bool) {
			for i := range keys {
				if !yield(keys[i], raws[i]) {
					return
				}
			}
		})
		if got != tc.want {
			t.Errorf("PairedMembers(%s) = %v, want %v", tc.doc, got, tc.want)
		}
	}
}

// checkJSONAndValue checks that JSON (both its paths) and Value redact
// the document in to want.
func checkJSONAndValue(t *testing.T, r *Redactor, in, want string) {
	t.Helper()
	got, err := r.JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("JSON(%s)\n got %s\nwant %s", in, got, want)
	}
	checkSameAsReference(t, r, []byte(in))
	var v any
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	viaValue, _ := json.Marshal(r.Value(v))
	var wantV any
	_ = json.Unmarshal([]byte(want), &wantV)
	wantValue, _ := json.Marshal(wantV)
	if string(viaValue) != string(wantValue) {
		t.Errorf("Value(%s)\n got %s\nwant %s", in, viaValue, wantValue)
	}
}
