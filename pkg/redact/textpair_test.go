package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// textPairCases are name/value pairs in YAML and JSON text; each
// holds the secret "hunter2" (or none when want == in).
var textPairCases = []struct{ name, in, want string }{
	{"kubernetes env yaml", "env:\n- name: DB_PASSWORD\n  value: hunter2\n- name: PORT\n  value: \"8080\"\n",
		"env:\n- name: DB_PASSWORD\n  value: [REDACTED:credential]\n- name: PORT\n  value: \"8080\"\n"},
	{"indented and quoted", "        env:\n          - name: \"API_TOKEN\"\n            value: \"hunter2\"  # prod\n",
		"        env:\n          - name: \"API_TOKEN\"\n            value: \"[REDACTED:credential]\"  # prod\n"},
	{"value first", "  - value: 'hunter2'\r\n    name: dbPass\r\n", "  - value: '[REDACTED:credential]'\r\n    name: dbPass\r\n"},
	{"key and value", "tags:\n  - key: client_secret\n    value: hunter2\n", "tags:\n  - key: client_secret\n    value: [REDACTED:credential]\n"},
	{"block scalar", "- name: DB_PASSWORD\n  value: |-\n    hunter2\n\n    line2\n- name: PORT\n  value: >\n    80\n",
		"- name: DB_PASSWORD\n  value: |-\n    [REDACTED:credential]\n\n    [REDACTED:credential]\n- name: PORT\n  value: >\n    80\n"},
	{"other indentation kept", "- name: DB_PASSWORD\n    value: hunter2\n", "- name: DB_PASSWORD\n    value: hunter2\n"},
	{"next item kept", "- name: DB_PASSWORD\n- value: hunter2\n", "- name: DB_PASSWORD\n- value: hunter2\n"},
	{"ordinary name kept", "- name: LOG_LEVEL\n  value: hunter2\n", "- name: LOG_LEVEL\n  value: hunter2\n"},
	{"valueFrom kept", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}\n",
		"- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}\n"},
	{"json text", `env: [{"name":"DB_PASSWORD","value":"hunter2"},{"name":"PORT","value":"8080"}]`,
		`env: [{"name":"DB_PASSWORD","value":"[REDACTED:credential]"},{"name":"PORT","value":"8080"}]`},
	{"pretty json text", "{\n  \"env\": [\n    {\n      \"name\": \"DB_PASSWORD\",\n      \"value\": \"hunter2\"\n    }\n  ]\n}\n",
		"{\n  \"env\": [\n    {\n      \"name\": \"DB_PASSWORD\",\n      \"value\": \"[REDACTED:credential]\"\n    }\n  ]\n}\n"},
	{"ssm parameter", `{"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": "hunter2", "Version": 3}}`,
		`{"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": "[REDACTED:credential]", "Version": 3}}`},
	{"json value first", `{"Value": "hunter2", "Key": "api_key"}`, `{"Value": "[REDACTED:credential]", "Key": "api_key"}`},
	{"json number", `{"name": "pin_secret", "value": 123456}`, `{"name": "pin_secret", "value": [REDACTED:credential]}`},
	{"json ordinary name kept", `{"name": "max_tokens", "value": "hunter2"}`, `{"name": "max_tokens", "value": "hunter2"}`},
	{"yaml flow mapping", "env: [{name: DB_PASSWORD, value: hunter2}, {name: PORT, value: 80}]\n",
		"env: [{name: DB_PASSWORD, value: [REDACTED:credential]}, {name: PORT, value: 80}]\n"},
	{"python dict", "[{'name': 'DB_PASSWORD', 'value': 'hunter2'}]", "[{'name': 'DB_PASSWORD', 'value': '[REDACTED:credential]'}]"},
	{"flow value first", "- {value: \"hunter2\", key: api_token}", "- {value: \"[REDACTED:credential]\", key: api_token}"},
	{"flow ordinary name kept", "{name: LOG_LEVEL, value: hunter2}", "{name: LOG_LEVEL, value: hunter2}"},
	{"boto3 tags", "[{'Key': 'db_password', 'Value': 'hunter2'}]", "[{'Key': 'db_password', 'Value': '[REDACTED:credential]'}]"},
	{"capitalised flow mapping", "{Name: DB_PASSWORD, Value: hunter2}", "{Name: DB_PASSWORD, Value: [REDACTED:credential]}"},
	{"block scalar under a secret name", "db:\n  password: |-\n    hunter2\n    line2\n  user: app\n",
		"db:\n  password: |-\n    [REDACTED:credential]\n    [REDACTED:credential]\n  user: app\n"},
	{"folded block in a list", "- client_secret: >  # prod\n    hunter2\n- port: 80\n", "- client_secret: >  # prod\n    [REDACTED:credential]\n- port: 80\n"},
	{"nested secret blocks", "password: |\n  hunter2\n  password: |\n    hunter2\n", "password: |\n  [REDACTED:credential]\n  [REDACTED:credential]\n    [REDACTED:credential]\n"},
	{"value after a bar kept as a value", "password: |x-hunter2", "password: [REDACTED:credential]"},
	{"a value starting like an indicator", "PASSWORD=>-hunter2", "PASSWORD=[REDACTED:credential]"},
	{"an empty block kept", "password: >+\nuser: app\n", "password: >+\nuser: app\n"},
	{"escaped json text", `"container_definitions": "[{\"environment\":[{\"name\":\"DB_PASSWORD\",\"value\":\"hunter2\"}]}]"`,
		`"container_definitions": "[{\"environment\":[{\"name\":\"DB_PASSWORD\",\"value\":\"[REDACTED:credential]\"}]}]"`},
	{"escaped json member", `{"msg":"{\"password\":\"hunter2\",\"pin_secret\": 1234,\"user\":\"app\"}"}`,
		`{"msg":"{\"password\":\"[REDACTED:credential]\",\"pin_secret\": [REDACTED:credential],\"user\":\"app\"}"}`},
	{"escaped docker auth", `{\"auths\":{\"ghcr.io\":{\"auth\":\"hunter2\"}}}`, `{\"auths\":{\"ghcr.io\":{\"auth\":\"[REDACTED:credential]\"}}}`},
	{"escaped ordinary pair kept", `{\"name\":\"PORT\",\"value\":\"hunter2\"}`, `{\"name\":\"PORT\",\"value\":\"hunter2\"}`},
	{"json other object kept", `[{"name": "DB_PASSWORD"}, {"value": "hunter2"}]`, `[{"name": "DB_PASSWORD"}, {"value": "hunter2"}]`},
}

func TestTextNameValuePairs(t *testing.T) {
	r := &Redactor{}
	for _, tt := range textPairCases {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if tt.want != tt.in && strings.Contains(r.String(tt.in), "hunter2") {
				t.Errorf("secret kept")
			}
		})
	}
}

// TestEscapedJSONInJSONDocuments: a tool's output holding escaped JSON (a
// Terraform state's container_definitions), as a JSON string value, is
// redacted by JSON too.
func TestEscapedJSONInJSONDocuments(t *testing.T) {
	doc := `{"stdout":"{\"container_definitions\": \"[{\\\"environment\\\":[{\\\"name\\\":\\\"DB_PASSWORD\\\",\\\"value\\\":\\\"hunter2\\\"}]}]\"}"}`
	var v struct{ Stdout string }
	if err := json.Unmarshal([]byte(doc), &v); err != nil || !strings.Contains(v.Stdout, `\"value\":\"hunter2\"`) {
		t.Fatalf("the test document is not what it means to be: %q, %v", v.Stdout, err)
	}
	got, err := (&Redactor{}).JSON([]byte(doc))
	if err != nil || strings.Contains(string(got), "hunter2") {
		t.Fatalf("JSON(%s) = %s, %v", doc, got, err)
	}
}

// TestTextPairsInJSONStrings: a tool's output holding a pair, as a JSON
// string value, is redacted by JSON too.
func TestTextPairsInJSONStrings(t *testing.T) {
	r := &Redactor{}
	for _, doc := range []string{
		`{"stdout":"env:\n- name: DB_PASSWORD\n  value: hunter2\n"}`,
		`{"stdout":"{\"name\": \"DB_PASSWORD\", \"value\": \"hunter2\"}"}`,
	} {
		got, err := r.JSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), "hunter2") {
			t.Errorf("JSON(%s) = %s", doc, got)
		}
		checkSameAsReference(t, r, []byte(doc))
	}
}

// TestKubernetesSecretData: the data and stringData maps of a Secret in
// kubectl's YAML and JSON output lose their values, whatever the keys;
// a ConfigMap alone keeps its data.
func TestKubernetesSecretData(t *testing.T) {
	r := &Redactor{}
	yamlSecret := "apiVersion: v1\ndata:\n  DATABASE_URL: cG9zdGdyZXM6Ly91OnBAaC9k\n  config.json: \"eyJhIjoiYiJ9\"\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  settings.yaml: |\n    user: app\n    url: postgres://x\n  plain: s3cr3tvalue\ntype: Opaque\n"
	want := "apiVersion: v1\ndata:\n  DATABASE_URL: [REDACTED:secret]\n  config.json: \"[REDACTED:secret]\"\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  settings.yaml: |\n    [REDACTED:secret]\n    [REDACTED:secret]\n  plain: [REDACTED:secret]\ntype: Opaque\n"
	if got := r.String(yamlSecret); got != want {
		t.Errorf("YAML Secret:\n got %q\nwant %q", got, want)
	}
	list := "items:\n- apiVersion: v1\n  data:\n    token: dG9r\n    ca.crt: Y2E=\n  kind: Secret\n"
	if got := r.String(list); strings.Contains(got, "Y2E=") || strings.Contains(got, "dG9r") {
		t.Errorf("Secret in a list kept its data: %q", got)
	}
	jsonSecret := "{\n  \"apiVersion\": \"v1\",\n  \"data\": {\n    \"DATABASE_URL\": \"cG9zdGdyZXM6Ly91OnBAaC9k\",\n    \"tls.crt\": \"Y2VydA==\"\n  },\n  \"kind\": \"Secret\",\n  \"metadata\": {\"name\": \"db\"}\n}\n"
	got := r.String(jsonSecret)
	if strings.Contains(got, "cG9zdGdyZXM6Ly91OnBAaC9k") || strings.Contains(got, "Y2VydA==") || !strings.Contains(got, `"name": "db"`) {
		t.Errorf("JSON Secret: %q", got)
	}
	for _, in := range []string{
		"apiVersion: v1\ndata:\n  LOG_LEVEL: debug\nkind: ConfigMap\nmetadata:\n  name: secret-config\n",
		`{"kind": "ConfigMap", "data": {"LOG_LEVEL": "debug"}, "metadata": {"name": "secret-config"}}`,
	} {
		if got := r.String(in); got != in {
			t.Errorf("ConfigMap changed: %q", got)
		}
	}
}

// TestContainsFold: the prefilter finds sub whatever the case of any of
// its bytes, the first included.
func TestContainsFold(t *testing.T) {
	for _, tt := range []struct {
		s, sub string
		want   bool
	}{
		{"x Value: y", "value", true}, {"VALUE", "value", true}, {"vALUE", "value", true},
		{"valu", "value", false}, {"VVVV", "value", false}, {`"Value"`, `"value"`, true},
		{"Kind: Secret", "kind", true}, {"", "kind", false},
	} {
		if got := containsFold(tt.s, tt.sub); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tt.s, tt.sub, got, tt.want)
		}
	}
}

// TestKubernetesSecretNestedDataObjects: data objects opened inside
// another's members are read once, with it (the spans never overlap, so
// hostile text full of "data": { costs linear time), and their values are
// still redacted.
func TestKubernetesSecretNestedDataObjects(t *testing.T) {
	s := `{"kind":"Secret",` + strings.Repeat(`"data":{"k":"hunter2",`, 50) + `"x":"hunter2"}`
	segs := jsonDataSegments(s)
	total := 0
	for i, seg := range segs {
		if i > 0 && seg[0] < segs[i-1][1] {
			t.Fatalf("segments %v and %v overlap", segs[i-1], seg)
		}
		total += seg[1] - seg[0]
	}
	if total > len(s) || len(segs) != 1 {
		t.Fatalf("%d segments of %d bytes in all for a text of %d", len(segs), total, len(s))
	}
	if got := (&Redactor{}).String(s); strings.Contains(got, "hunter2") {
		t.Fatalf("nested data kept a value: %q", got)
	}
}

// TestHasBlockIndicator: the block rule's prefilter finds ": |" and ":>"
// and nothing else.
func TestHasBlockIndicator(t *testing.T) {
	for s, want := range map[string]bool{
		"password: |": true, "a:\t>-": true, "x:|": true, "a: b: |": true,
		"password: x | y": false, "a > b": false, "": false, "a:": false, "::": false,
	} {
		if got := hasBlockIndicator(s); got != want {
			t.Errorf("hasBlockIndicator(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestKubernetesSecretNestedYAMLBlocks: data blocks nested in another
// (each under a kind: Secret of its column) are read once, with it: the
// blocks never overlap, so such text costs linear time, and every value
// is still redacted.
func TestKubernetesSecretNestedYAMLBlocks(t *testing.T) {
	var b strings.Builder
	cols := map[int]bool{}
	for i := range 30 {
		ind := strings.Repeat(" ", i)
		b.WriteString(ind + "kind: Secret\n" + ind + "data:\n" + ind + " k" + ind + ": hunter2\n")
		cols[i] = true
	}
	s := b.String()
	_, blocks := yamlDataBlocks(s, cols)
	for i := 1; i < len(blocks); i++ {
		if blocks[i][0] < blocks[i-1][1] {
			t.Fatalf("blocks %v and %v overlap", blocks[i-1], blocks[i])
		}
	}
	if got := (&Redactor{}).String(s); strings.Contains(got, "hunter2") {
		t.Fatalf("a nested data value kept: %q", got)
	}
}
