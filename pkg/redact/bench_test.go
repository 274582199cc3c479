package redact

import (
	"strings"
	"testing"
)

func BenchmarkString(b *testing.B) {
	r, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	clean := strings.Repeat("func (s *Server) Handle(ctx context.Context, req *Request) error { return s.next(ctx, req) }\n", 40)
	prose := strings.Repeat("Rotate the token before the release; the password policy and API key handling are documented.\n", 40)
	oneLine := strings.Repeat(`{"step":"build","message":"token budget ok, password policy unchanged, key rotated"},`, 45)
	dirty := clean + "Authorization: Bearer abcdef0123456789abcdef\n" + awsKeyID + " nats://u:p@h:4222 " + ghToken + "\n" + clean
	cases := []struct {
		name string
		in   string
	}{
		{name: "clean_code_3.6KB", in: clean},
		{name: "prose_with_hint_words_3.8KB", in: prose},
		{name: "single_line_with_hint_words_3.8KB", in: oneLine},
		{name: "with_secrets_7.4KB", in: dirty},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				r.String(c.in)
			}
		})
	}
}

func BenchmarkJSON(b *testing.B) {
	r, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(`{"run":"r1","tool":"run_command","command":["go","test","./..."],"env":{"GITHUB_TOKEN":"` + ghToken +
		`","PATH":"/usr/bin"},"output":"ok  \tgithub.com/x/y\t0.01s\n","usage":{"prompt_tokens":1200,"max_tokens":4096}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := r.JSON(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// stateDoc is a recorded run state of about 2 KB that takes JSON's
// token-by-token path: "input_tokens" holds the hint "token", and the code
// strings hold escapes.
var stateDoc = []byte(`{"run":"run-7f3a","phase":"builder","step":12,"usage":{"input_tokens":18234,"output_tokens":912,` +
	`"cache_read_input_tokens":12000,"cost_usd":0.0412},"model":"claude-sonnet","files":[{"path":"pkg/server/handler.go",` +
	`"content":"package server\n\nimport (\n\t\"context\"\n\t\"errors\"\n)\n\n// Handle serves one request.\nfunc (s *Server) Handle(ctx context.Context, req *Request) error {\n\tif req == nil {\n\t\treturn errors.New(\"nil request\")\n\t}\n\treturn s.next(ctx, req)\n}\n",` +
	`"sha256":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},{"path":"pkg/server/handler_test.go",` +
	`"content":"package server\n\nimport \"testing\"\n\nfunc TestHandle(t *testing.T) {\n\ts := &Server{next: func(context.Context, *Request) error { return nil }}\n\tif err := s.Handle(t.Context(), &Request{ID: \"r1\"}); err != nil {\n\t\tt.Fatalf(\"Handle: %v\", err)\n\t}\n}\n"}],` +
	`"commands":[{"argv":["go","test","-count=1","./pkg/server/..."],"exit":0,"output":"ok  \tgithub.com/acme/app/pkg/server\t0.012s\n",` +
	`"duration_ms":1843}],"notes":["the handler\u2019s nil check is tested","budget: max_tokens 4096, token_count 812 \u2014 within limits"],` +
	`"critic":{"verdict":"approve","score":0.92,"remarks":"Tests cover the nil request; \"errors.New\" is idiomatic here.","open":null,"blocking":false}}`)

// BenchmarkJSONState redacts a realistic recorded state that takes the
// token-by-token path (see stateDoc).
func BenchmarkJSONState(b *testing.B) {
	r, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	if !r.jsonMayNeedRedaction(stateDoc) {
		b.Fatal("stateDoc takes the fast path")
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(stateDoc)))
	for b.Loop() {
		if _, err := r.JSON(stateDoc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONDeepPairs redacts a document of name/value pairs nested
// 5000 deep, each name after its value: the pairs are found in one pass,
// not once per level.
func BenchmarkJSONDeepPairs(b *testing.B) {
	const depth = 5000
	doc := []byte(strings.Repeat(`{"value":`, depth) + `"hunter2"` + strings.Repeat(`,"name":"DB_PASSWORD"}`, depth))
	r := &Redactor{}
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := r.JSON(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStringHostile: text made to cost the rules the most, which
// must stay linear: Kubernetes Secret data objects and blocks nested in
// one another, a long line of secret-like names before an "=", of
// .pgpass-like fields and of a command's password flags, and a command
// split over command and args members in mappings nested deeper and
// deeper, with many args lists, YAML flow mappings packed with secret
// members, nested or unclosed, and quoted scalars left open over lines
// or in flow lists (each searched to the text's end once, not once per
// line).
func BenchmarkStringHostile(b *testing.B) {
	var nested strings.Builder
	for i := range 200 {
		ind := strings.Repeat(" ", i)
		nested.WriteString(ind + "kind: Secret\n" + ind + "data:\n")
	}
	var splitNested strings.Builder // command/args mappings, each deeper
	for i := range 1000 {
		ind := strings.Repeat(" ", i)
		splitNested.WriteString(ind + "command: mysql\n" + ind + "args: [-pX]\n" + ind + "x:\n")
	}
	var nestedAnchors strings.Builder // anchored mappings, each deeper
	for i := range 2000 {
		nestedAnchors.WriteString(strings.Repeat(" ", i) + "k: &m\n")
	}
	nestedAnchors.WriteString("password: *m\n")
	cases := []struct {
		name string
		in   string
	}{
		{name: "secret_json_data_objects_32KB", in: `"kind":"Secret",` + strings.Repeat(`"data":{"a":"b",`, 2000)},
		{name: "secret_yaml_data_blocks_43KB", in: nested.String()},
		{name: "secret_names_line_18KB", in: strings.Repeat("password_", 2000) + "=x"},
		{name: "pgpass_fields_line_88KB", in: strings.Repeat("x h:1:d:u:p", 8000)},
		{name: "pgpass_quoted_unclosed_line_88KB", in: strings.Repeat(`"h:1:d:u:p'`, 8000)},
		{name: "pgpass_quoted_parts_line_96KB", in: "'h:1:d:u:p" + strings.Repeat(`'"a"`, 24000) + "'"},
		{name: "mysql_flags_line_32KB", in: "mysql " + strings.Repeat("-pX ", 8000)},
		{name: "mysql_quotes_line_40KB", in: "mysql " + strings.Repeat(`-p"a `, 8000)},
		{name: "argv_json_text_48KB", in: `["mysql"` + strings.Repeat(`,"-pX"`, 8000) + `]`},
		{name: "split_command_yaml_nested_1.5MB", in: splitNested.String()},
		{name: "split_command_yaml_args_lists_42KB", in: "command: [mysql]\n" + strings.Repeat("args: [-pX, '-p\"a']\n", 2000)},
		{name: "split_command_yaml_block_list_40KB", in: "cmd: mysql\nargs:\n" + strings.Repeat("- -pX # c\n", 4000)},
		{name: "flow_mapping_members_line_64KB", in: "x: {" + strings.Repeat("password: a b c,", 4000) + "}"},
		{name: "flow_mapping_unclosed_line_40KB", in: strings.Repeat("x: {password: ", 100) + strings.Repeat("a", 40000)},
		{name: "flow_mapping_nested_line_36KB", in: "x: " + strings.Repeat("{token: {", 4000) + "p: 1"},
		{name: "yaml_aliases_anchors_line_60KB", in: "password: *a\npassword: *b\nx: " + strings.Repeat("&a &b ", 10000)},
		{name: "yaml_alias_lines_52KB", in: strings.Repeat("password: *a\n", 4000) + strings.Repeat("&a\n", 1000)},
		{name: "yaml_anchors_flow_line_70KB", in: "c: [" + strings.Repeat("&pw a, ", 10000) + "]\npassword: *pw\n"},
		{name: "yaml_anchors_block_headers_line_60KB", in: "x: " + strings.Repeat("&pw | ", 10000) + "\npassword: *pw\n"},
		{name: "yaml_anchored_mappings_nested_2MB", in: nestedAnchors.String()},
		{name: "json_text_objects_deep_200KB", in: strings.Repeat("{", 200000) + `{"command":["mysql"],"args":["-pX"]}`},
		{name: "json_text_args_nested_600KB", in: strings.Repeat(`{"command":["mysql"],"args":[`, 20000)},
		{name: "json_text_escaped_strings_nested_96KB", in: `"` + strings.Repeat(`{\"a\":\"{\\\"b\\\":`, 3000) + "\n mysql args"},
		{name: "json_text_stray_quotes_line_100KB", in: strings.Repeat(`"a"b`, 25000) + ` {"command":["mysql"],"args":["-pX"]}`},
		{name: "json_text_shell_quoted_line_8KB", in: strings.Repeat(`'{"command":["mysql"],"args":["-pX", '"`, 200)},
		{name: "json_text_shell_quoted_line_32KB", in: strings.Repeat(`'{"command":["mysql"],"args":["-pX", '"`, 800)},
		{name: "compose_entrypoint_yaml_nested_1.5MB", in: strings.ReplaceAll(strings.ReplaceAll(splitNested.String(), "command: mysql", "entrypoint: mysql"), "args: [-pX]", "command: [-pX]")},
		{name: "metric_matchers_line_88KB", in: strings.Repeat(`{token!~"a `, 8000)},
		{name: "metric_matchers_unquoted_line_72KB", in: strings.Repeat(`{token=~a `, 8000)},
		{name: "quoted_unclosed_lines_52KB", in: strings.Repeat("password: \"a\n", 4000)},
		{name: "quoted_flag_items_lines_64KB", in: strings.Repeat("\"--password\",\n  \"", 4000)},
		{name: "compact_lists_names_48KB", in: strings.Repeat("passwords: #\n", 4000) + strings.Repeat("\n", 4000) + "- a\n"},
		{name: "quoted_scalar_lines_16KB", in: "password: \"a\n" + strings.Repeat("  b\n", 4000)},
		// Flow lists over lines (flowlist.go): 1x and 4x, to compare.
		{name: "flow_list_items_lines_8KB", in: "args: [mysql,\n" + strings.Repeat("  --password, -pX,\n", 400) + "]"},
		{name: "flow_list_items_lines_32KB", in: "args: [mysql,\n" + strings.Repeat("  --password, -pX,\n", 1600) + "]"},
		{name: "flow_list_unclosed_quotes_8KB", in: strings.Repeat("x: [mysql,\n  'a\n", 800)},
		{name: "flow_list_unclosed_quotes_32KB", in: strings.Repeat("x: [mysql,\n  'a\n", 3200)},
		{name: "flow_list_brackets_line_32KB", in: strings.Repeat("}mysql\t[  mysql", 2000)},
		{name: "flow_list_brackets_line_128KB", in: strings.Repeat("}mysql\t[  mysql", 8000)},
		{name: "flow_list_open_quotes_line_256KB", in: "mysql " + strings.Repeat("[\"", 131072)},
		{name: "flow_list_open_quotes_line_1MB", in: "mysql " + strings.Repeat("[\"", 524288)},
		{name: "flow_list_unclosed_quote_paragraphs_256KB", in: strings.Repeat("x: [mysql,\n  \"-p\n\n", 13107)},
		{name: "flow_list_unclosed_quote_paragraphs_1MB", in: strings.Repeat("x: [mysql,\n  \"-p\n\n", 52429)},
		{name: "flow_list_brackets_8KB", in: strings.Repeat("[\n", 4000)},
		{name: "flow_list_brackets_32KB", in: strings.Repeat("[\n", 16000)},
		// Flow lists on one line (lineWords' commas, the flow flag rules):
		// 1x and 4x, to compare.
		{name: "flow_list_one_line_commas_8KB", in: "command: [mysql" + strings.Repeat(",-uroot,-pX", 800) + "]"},
		{name: "flow_list_one_line_commas_32KB", in: "command: [mysql" + strings.Repeat(",-uroot,-pX", 3200) + "]"},
		{name: "flow_list_one_line_open_quotes_8KB", in: "mysql " + strings.Repeat("[\"a,", 2000)},
		{name: "flow_list_one_line_open_quotes_32KB", in: "mysql " + strings.Repeat("[\"a,", 8000)},
		{name: "flow_list_one_line_quoted_values_8KB", in: "x: [" + strings.Repeat("--password, \"a", 600)},
		{name: "flow_list_one_line_quoted_values_32KB", in: "x: [" + strings.Repeat("--password, \"a", 2400)},
		{name: "flow_list_one_line_spaced_commas_8KB", in: "x: [" + strings.Repeat(" --password , a ,", 500)},
		{name: "flow_list_one_line_spaced_commas_32KB", in: "x: [" + strings.Repeat(" --password , a ,", 2000)},
		// A quote inside an item of a one-line flow list, read both ways
		// (lineWords' literal reading, shellQuoteEnd): 1x and 4x.
		{name: "flow_list_one_line_item_quotes_8KB", in: "command: [it's,mysql" + strings.Repeat(",-pa'b", 1350) + "]"},
		{name: "flow_list_one_line_item_quotes_32KB", in: "command: [it's,mysql" + strings.Repeat(",-pa'b", 5400) + "]"},
		{name: "flow_list_one_line_item_escaped_quotes_8KB", in: "command: [it's,mysql" + strings.Repeat(`,-pa"b\"`, 1000) + "]"},
		{name: "flow_list_one_line_item_escaped_quotes_32KB", in: "command: [it's,mysql" + strings.Repeat(`,-pa"b\"`, 4000) + "]"},
		{name: "flow_list_one_line_item_quotes_spaced_8KB", in: "command: [it's, mysql" + strings.Repeat(` -pa"b\"`, 1000) + "]"},
		{name: "flow_list_one_line_item_quotes_spaced_32KB", in: "command: [it's, mysql" + strings.Repeat(` -pa"b\"`, 4000) + "]"},
		{name: "flow_list_one_line_item_quote_far_8KB", in: "command: [it's,mysql,-pa'b" + strings.Repeat(",-pX'c", 1350) + "]"},
		{name: "flow_list_one_line_item_quote_far_32KB", in: "command: [it's,mysql,-pa'b" + strings.Repeat(",-pX'c", 5400) + "]"},
		// A secret flag and its value as one item of a one-line flow list,
		// unquoted and quoted, the values left unclosed: 1x and 4x.
		{name: "flow_list_one_line_flag_value_items_8KB", in: "x: [" + strings.Repeat("--password a,", 630) + "]"},
		{name: "flow_list_one_line_flag_value_items_32KB", in: "x: [" + strings.Repeat("--password a,", 2520) + "]"},
		{name: "flow_list_one_line_quoted_flag_values_8KB", in: "x: [" + strings.Repeat("\"--password a,", 580)},
		{name: "flow_list_one_line_quoted_flag_values_32KB", in: "x: [" + strings.Repeat("\"--password a,", 2320)},
		{name: "block_list_items_8KB", in: "x: &p a\n" + strings.Repeat("- --password\n- *p\n", 400)},
		{name: "block_list_items_32KB", in: "x: &p a\n" + strings.Repeat("- --password\n- *p\n", 1600)},
		{name: "secret_containers_nested_8KB", in: strings.Repeat(`{"password": [`, 600)},
		{name: "secret_containers_nested_32KB", in: strings.Repeat(`{"password": [`, 2400)},
		// Joined lines (joinview.go): 1x and 4x, to compare.
		{name: "complex_keys_lines_8KB", in: strings.Repeat("? password\n: a\n", 500)},
		{name: "complex_keys_lines_32KB", in: strings.Repeat("? password\n: a\n", 2000)},
		{name: "folded_scalars_lines_8KB", in: strings.Repeat("k: a\n  b --password\n", 400) + strings.Repeat("x: >\n  -p\n", 100)},
		{name: "folded_scalars_lines_32KB", in: strings.Repeat("k: a\n  b --password\n", 1600) + strings.Repeat("x: >\n  -p\n", 400)},
		{name: "continued_lines_8KB", in: "mysql " + strings.Repeat("-pX \\\n", 1000)},
		{name: "continued_lines_32KB", in: "mysql " + strings.Repeat("-pX \\\n", 4000)},
		// Escaped text, decoded (escape.go): 1x and 4x, to compare.
		{name: "escaped_pretty_json_line_8KB", in: strings.Repeat(`{\n  \"password\": \"a\",\n`, 300)},
		{name: "escaped_pretty_json_line_32KB", in: strings.Repeat(`{\n  \"password\": \"a\",\n`, 1200)},
		{name: "unicode_escaped_keys_line_8KB", in: strings.Repeat(`"pass\u0077ord":"\u00e9",`, 300)},
		{name: "unicode_escaped_keys_line_32KB", in: strings.Repeat(`"pass\u0077ord":"\u00e9",`, 1200)},
		{name: "escaped_strings_line_32KB", in: strings.Repeat(`"a\nb",`, 4000)},
		{name: "escaped_strings_line_128KB", in: strings.Repeat(`"a\nb",`, 16000)},
		{name: "backslashes_line_8KB", in: strings.Repeat(`\\\"`, 2700) + "password"},
		{name: "backslashes_line_32KB", in: strings.Repeat(`\\\"`, 10800) + "password"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				(&Redactor{}).String(c.in)
			}
		})
	}
}

// BenchmarkStringPackedNames: one line of 36 KB packed with secret-like
// names (each a candidate for every name rule), against ordinary code of
// the same size.
func BenchmarkStringPackedNames(b *testing.B) {
	clean := strings.Repeat("func (s *Server) Handle(ctx context.Context, req *Request) error { return s.next(ctx, req) }\n", 400)
	cases := []struct {
		name string
		in   string
	}{
		{name: "password_36KB", in: strings.Repeat("password_", 4000)},
		{name: "password_36KB_then_eq", in: strings.Repeat("password_", 4000) + "=x"},
		{name: "password_eq_36KB", in: strings.Repeat("password=", 4000)},
		{name: "token_eq_36KB", in: strings.Repeat("token=", 6000)},
		{name: "secret_colon_36KB", in: strings.Repeat("secret:", 5150)},
		{name: "quoted_password_36KB", in: strings.Repeat(`"password":`, 3300)},
		{name: "clean_code_36KB", in: clean[:36000]},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				(&Redactor{}).String(c.in)
			}
		})
	}
}

// BenchmarkFlowListQuotesHostile runs the flow list and split command
// rules alone on quotes running over lines, never closed or closed lines
// after, 256 KB and 1 MB, to compare: such a quote is read again as
// ending at its line's end, but no quote is searched to its end once per
// line after it.
func BenchmarkFlowListQuotesHostile(b *testing.B) {
	sizes := []struct {
		name string
		n    int
	}{{"256KB", 1 << 18}, {"1MB", 1 << 20}}
	units := []struct {
		name string
		unit string
		find func(string) [][]int
	}{
		{name: "flow_list_open_quotes_line", unit: "[\"", find: findFlowLists},
		{name: "flow_list_quote_lines", unit: "[\"mysql\n", find: findFlowLists},
		{name: "flow_list_single_quote_lines", unit: "x: ['a''\n", find: findFlowLists},
		{name: "flow_list_unclosed_quote_paragraphs", unit: "x: [mysql,\n  \"-p\n\n", find: findFlowLists},
		{name: "flow_list_unclosed_single_quote_paragraphs", unit: "['a\n ['b\n\n", find: findFlowLists},
		{name: "flow_list_lines_after_a_quote", unit: "[mysql,\n", find: findFlowLists},
		{name: "flow_list_quotes_of_both_kinds_lines", unit: "[\"a\n['b\n", find: findFlowLists},
		{name: "split_command_quote_lines", unit: "args: [\"-p\n", find: findSplitCommand},
		{name: "split_command_unclosed_quote_paragraphs", unit: "args: [\"-p\n\n", find: findSplitCommand},
		{name: "split_command_lines_after_a_quote", unit: "args: [-p\n", find: findSplitCommand},
	}
	for _, u := range units {
		for _, size := range sizes {
			in := strings.Repeat(u.unit, size.n/len(u.unit))
			if strings.HasSuffix(u.name, "_after_a_quote") {
				in = "x: [\"" + in
			}
			b.Run(u.name+"_"+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					u.find(in)
				}
			})
		}
	}
}
