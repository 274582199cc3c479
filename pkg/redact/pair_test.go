package redact

import (
	"encoding/json"
	"maps"
	"testing"
)

// pairCases are name/value pairs in JSON and their redaction.
var pairCases = []struct{ name, in, want string }{
	{"kubernetes env", `{"env":[{"name":"DB_PASSWORD","value":"hunter2"},{"name":"PORT","value":"8080"}]}`,
		`{"env":[{"name":"DB_PASSWORD","value":"[REDACTED:secret]"},{"name":"PORT","value":"8080"}]}`},
	{"value before name", `[{"value":"hunter2","name":"DB_PASS"}]`, `[{"value":"[REDACTED:secret]","name":"DB_PASS"}]`},
	{"key and value", `{"key":"API_TOKEN","value":"t0k"}`, `{"key":"API_TOKEN","value":"[REDACTED:secret]"}`},
	{"capitalised", `{"Name":"/prod/db/password","Type":"SecureString","Value":"hunter2"}`,
		`{"Name":"/prod/db/password","Type":"SecureString","Value":"[REDACTED:secret]"}`},
	{"upper case", `{"NAME":"client_secret","VALUE":12345}`, `{"NAME":"client_secret","VALUE":"[REDACTED:secret]"}`},
	{"escaped name", `{"name":"DB_PASS\u0057ORD","value":"hunter2"}`, `{"name":"DB_PASSWORD","value":"[REDACTED:secret]"}`},
	{"structured value", `{"name":"token","value":{"a":"x","b":[1,true,null]}}`,
		`{"name":"token","value":{"a":"[REDACTED:secret]","b":["[REDACTED:secret]",true,null]}}`},
	{"boolean value kept", `{"name":"secret","value":true}`, `{"name":"secret","value":true}`},
	{"ordinary name", `{"name":"LOG_LEVEL","value":"debug","key":"max_tokens"}`, `{"name":"LOG_LEVEL","value":"debug","key":"max_tokens"}`},
	{"name not a string", `{"name":["password"],"value":"kept"}`, `{"name":["password"],"value":"kept"}`},
	{"valueFrom is a reference", `{"name":"DB_PASSWORD","valueFrom":{"secretKeyRef":{"name":"db","key":"password"}}}`,
		`{"name":"DB_PASSWORD","valueFrom":{"secretKeyRef":{"name":"db","key":"password"}}}`},
	{"only siblings count", `{"name":"DB_PASSWORD","meta":{"value":"kept"},"list":[{"value":"kept"}]}`,
		`{"name":"DB_PASSWORD","meta":{"value":"kept"},"list":[{"value":"kept"}]}`},
	{"nested pair after a long sibling", `{"a":{"value":"hunter2","pad":{"x":["]}",{"y":"\"}"}]},"n":1.5e3,"ok":false,"key":"api_key"}}`,
		`{"a":{"value":"[REDACTED:secret]","pad":{"x":["]}",{"y":"\"}"}]},"n":1.5e3,"ok":false,"key":"api_key"}}`},
	{"kubernetes secret object", `{"kind":"Secret","metadata":{"name":"db"},"type":"Opaque","data":{"url":"cG9z","n":5},"stringData":{"x":"y","ok":true}}`,
		`{"kind":"Secret","metadata":{"name":"db"},"type":"Opaque","data":{"url":"[REDACTED:secret]","n":"[REDACTED:secret]"},"stringData":{"x":"[REDACTED:secret]","ok":true}}`},
	{"kubernetes secret kind last", `{"data":{"tls.key":"LS0t"},"apiVersion":"v1","kind":"Secret"}`,
		`{"data":{"tls.key":"[REDACTED:secret]"},"apiVersion":"v1","kind":"Secret"}`},
	{"kubernetes list", `{"kind":"List","items":[{"kind":"ConfigMap","data":{"a":"b"}},{"kind":"Secret","data":{"a":"b"}}],"data":{"c":"d"}}`,
		`{"kind":"List","items":[{"kind":"ConfigMap","data":{"a":"b"}},{"kind":"Secret","data":{"a":"[REDACTED:secret]"}}],"data":{"c":"d"}}`},
	{"kubernetes secret in an event", `{"run":"r","output":{"object":{"kind":"Secret","data":{"DATABASE_URL":"cG9zdGdyZXM6Ly8="}}}}`,
		`{"run":"r","output":{"object":{"kind":"Secret","data":{"DATABASE_URL":"[REDACTED:secret]"}}}}`},
	{"other kinds keep their data", `{"kind":"ConfigMap","data":{"a":"b"},"Kind":"Secrets"}`, `{"kind":"ConfigMap","data":{"a":"b"},"Kind":"Secrets"}`},
	{"second name names the secret", `{"name":"x","value":"hunter2","key":"password"}`, `{"name":"x","value":"[REDACTED:secret]","key":"password"}`},
}

func TestJSONNameValuePairs(t *testing.T) {
	r := &Redactor{}
	for _, tt := range pairCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.JSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			checkSameAsReference(t, r, []byte(tt.in))
			// Pretty-printed, the same.
			var v any
			if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
				t.Fatal(err)
			}
			pretty, _ := json.MarshalIndent(v, " ", "\t")
			checkSameAsReference(t, r, pretty)
		})
	}
}

func TestValueNameValuePairs(t *testing.T) {
	r := &Redactor{}
	in := []any{
		map[string]any{"name": "DB_PASSWORD", "value": "hunter2"},
		map[string]string{"Key": "api_token", "Value": "hunter2"},
		map[string]any{"name": "PORT", "value": "8080"},
	}
	got := r.Value(in).([]any)
	if v := got[0].(map[string]any)["value"]; v != "[REDACTED:secret]" {
		t.Errorf("env pair value = %v", v)
	}
	if v := got[1].(map[string]string)["Value"]; v != "[REDACTED:secret]" {
		t.Errorf("tag pair value = %v", v)
	}
	if !maps.Equal(got[2].(map[string]any), map[string]any{"name": "PORT", "value": "8080"}) {
		t.Errorf("ordinary pair changed: %v", got[2])
	}
	secret := r.Value(map[string]any{"kind": "Secret", "data": map[string]any{"url": "cG9z"}, "stringData": map[string]string{"x": "y"}}).(map[string]any)
	if v := secret["data"].(map[string]any)["url"]; v != "[REDACTED:secret]" {
		t.Errorf("Secret data value = %v", v)
	}
	if v := secret["stringData"].(map[string]string)["x"]; v != "[REDACTED:secret]" {
		t.Errorf("Secret stringData value = %v", v)
	}
	if in[0].(map[string]any)["value"] != "hunter2" {
		t.Error("Value modified its input")
	}
}

// TestPairedMembers: PairedMembers holds exactly for the objects whose
// members JSON redacts together.
func TestPairedMembers(t *testing.T) {
	members := func(doc string) func(func(string, []byte) bool) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		return func(yield func(string, []byte) bool) {
			for k, v := range m {
				if !yield(k, v) {
					return
				}
			}
		}
	}
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{`{"name":"DB_PASSWORD","value":"x"}`, true},
		{`{"Value":"x","KEY":"token"}`, true},
		{`{"name":"DB_PASS\u0057ORD","value":1}`, true},
		{`{"name":"PORT","value":"x"}`, false},
		{`{"name":"DB_PASSWORD"}`, false},
		{`{"name":"DB_PASSWORD","valueFrom":{}}`, false},
		{`{"name":1,"value":"x"}`, false},
		{`{"names":"password","value":"x"}`, false},
		{`{"kind":"Secret","data":{"a":"b"}}`, true},
		{`{"stringData":{"a":"b"},"kind":"Secret"}`, true},
		{`{"kind":"Secret","type":"Opaque"}`, false},
		{`{"kind":"ConfigMap","data":{"a":"b"}}`, false},
	} {
		if got := PairedMembers(members(tc.doc)); got != tc.want {
			t.Errorf("PairedMembers(%s) = %v, want %v", tc.doc, got, tc.want)
		}
		// A member redacts alone as inside the object unless paired.
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(tc.doc), &m)
		whole, err := (&Redactor{}).JSON([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		var red map[string]json.RawMessage
		_ = json.Unmarshal(whole, &red)
		same := true
		for k, v := range m {
			alone, _ := json.Marshal(map[string]json.RawMessage{k: v})
			out, err := (&Redactor{}).JSON(alone)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(map[string]json.RawMessage{k: red[k]})
			if string(out) != string(want) {
				same = false
			}
		}
		if same == tc.want {
			t.Errorf("%s: members alone redact as inside: %v, PairedMembers %v", tc.doc, same, tc.want)
		}
	}
}
