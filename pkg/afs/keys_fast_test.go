package afs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// looseTargets are fresh values of the types decodeLoose decodes into.
func looseTargets() []func() any {
	return []func() any{
		func() any { return new(StateFile) }, func() any { return new(Metacognition) }, func() any { return new(GoalsFile) },
		func() any { return new(Epistemic) }, func() any { return new(TriggersFile) }, func() any { return new(Meta) },
		func() any { return new(Hazard) }, func() any { return new([]Hazard) }, func() any { return new(HivemindFile) },
		func() any { return new(Provenance) }, func() any { return new(EntryMetadata) },
	}
}

// sameAsNormalised checks that decodeLoose gives what decoding the
// normalised copy gives, value and error, for every target type.
func sameAsNormalised(t *testing.T, data []byte) {
	t.Helper()
	for _, target := range looseTargets() {
		fast, slow := target(), target()
		ferr, serr := decodeLoose(data, fast, nil), decodeNormalised(data, slow, nil)
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("%T from %q: error %v, normalised %v", fast, data, ferr, serr)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%T from %q:\n direct     %+v\n normalised %+v", fast, data, fast, slow)
		}
	}
}

// decodeLoose's direct path decodes exactly what the normalised copy
// decodes: the golden files (camelCase), their rendering (snake_case),
// and inputs made to tell the paths apart.
func TestDecodeLooseDirectIsNormalised(t *testing.T) {
	golden := filepath.Join("testdata", "golden")
	var inputs [][]byte
	for _, p := range []string{PathState, PathMetacognition, PathGoals, PathEmotions, PathEpistemic, PathTriggers, PathHazards} {
		data, err := os.ReadFile(filepath.Join(golden, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	f, err := ReadDir(golden)
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := Render(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sortedKeys(rendered) {
		if strings.HasSuffix(p, ".json") {
			inputs = append(inputs, rendered[p])
		}
	}
	for _, s := range []string{
		`{"progress_status":"a","progress_status":"b"}`,
		`{"spin_detection":{"recent_actions":["x"]},"spin_detection":{"similar_action_count":2}}`,
		`{"entries":[{"key":"k","value":"v"}],"entries":[{"key":"j"}]}`,
		`{"progressStatus":"camel","progress_status":"snake"}`,
		`{"progress_status":"snake","progressStatus":"camel"}`,
		`{"progress\u005fstatus":"escaped key"}`, `{"Progress_status":"upper"}`, `{"progréss":"x"}`,
		`{"progress_status":"a"} trailing`, `{"progress_status":"a"}{}`, `{"progress_status":}`, `{"a":"unterminated}`,
		`[{"id":"h","trigger":"t"}]`, `{"playbooks":[{"id":"h","mitigation":"m"}]}`, `"just a string"`, `null`, `{}`, `[]`, ``,
		`{"tags":["a",{"x":1}],"files_touched":["b"]}`, `{"a":[}`, `{"a":{]}`, `}{`, `{"agent_id":"x\"y","model_id":"\u00e9"}`,
		`{"confidence_level":1e400}`, `{"revision":-1}`, `{"goals":[{"id":"g","weight":1.5}]}`,
	} {
		inputs = append(inputs, []byte(s))
	}
	for _, in := range inputs {
		sameAsNormalised(t, in)
	}
}

// FuzzDecodeLoose looks for JSON on which the direct path and the
// normalised copy disagree.
func FuzzDecodeLoose(f *testing.F) {
	for _, s := range []string{`{"progress_status":"a","spin_detection":{"recent_actions":["x"]}}`, `{"entries":[{"key":"k"}]}`,
		`{"a":{"b":1},"a":{"c":2}}`, `[{"id":"h"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsNormalised(t, data) })
}
