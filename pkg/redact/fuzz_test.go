package redact

import (
	"strings"
	"testing"
)

// secretOf turns fuzz bytes into n characters of alphabet.
func secretOf(seed []byte, n int, alphabet string) string {
	var b strings.Builder
	for i := range n {
		c := byte(i * 7)
		if len(seed) > 0 {
			c += seed[i%len(seed)] + byte(i/len(seed))
		}
		b.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return b.String()
}

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

// FuzzRedact embeds secrets of every known format, built from fuzz bytes,
// in fuzzed text: the redactor never panics and its output never contains
// the secret.
func FuzzRedact(f *testing.F) {
	f.Add("before", "after", []byte("seed"), uint8(0))
	f.Add("Authorization: ", "\n-----END", []byte{0, 1, 2}, uint8(3))
	f.Add("DB_", "&x=1", []byte("xyz"), uint8(9))
	f.Add(`["`, "0", []byte("seed"), uint8(39)) // a quote never closed before a flow list over lines
	f.Add("x: [a, '", "", []byte("q"), uint8(40))
	f.Add("\"['", "x'", []byte("s"), uint8(39)) // closed far on
	f.Fuzz(func(t *testing.T, prefix, suffix string, seed []byte, kind uint8) {
		formats := []func() (text, secret string){
			func() (string, string) { s := "ghp_" + secretOf(seed, 36, alnum); return s, s },
			func() (string, string) { s := "AKIA" + secretOf(seed, 16, upperN); return s, s },
			func() (string, string) { s := "sk_live_" + secretOf(seed, 24, alnum); return s, s },
			func() (string, string) { s := "xoxb-" + secretOf(seed, 20, alnum); return s, s },
			func() (string, string) { s := "glpat-" + secretOf(seed, 20, alnum); return s, s },
			func() (string, string) { s := "npm_" + secretOf(seed, 36, alnum); return s, s },
			func() (string, string) { s := "SU" + secretOf(seed, 56, base32); return s, s },
			func() (string, string) { s := "AIza" + secretOf(seed, 35, alnum); return s, s },
			func() (string, string) { v := secretOf(seed, 12, alnum); return "DB_PASSWORD=" + v, v },
			func() (string, string) { v := secretOf(seed, 12, alnum); return "GITHUB_TOKEN=" + v, v },
			func() (string, string) { v := secretOf(seed, 12, alnum); return "\n  password: " + v + "\n", v },
			func() (string, string) { v := secretOf(seed, 12, alnum); return "curl -u user:" + v + " x", v },
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\n  - name: DB_PASSWORD\n    value: " + v, v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return `{"name": "api_token", "value": "` + v + `"}`, v
			},
			func() (string, string) { v := secretOf(seed, 12, alnum); return "DB_PASS=" + v, v },
			func() (string, string) {
				v := secretOf(seed, 16, alnum)
				return "\napiVersion: v1\ndata:\n  config.json: " + v + "\nkind: Secret\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\n- name: api_token\n  value: |\n    " + v + "\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 40, alnum)
				return "-----BEGIN RSA PRIVATE KEY-----\n" + v, v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "[{'Key': 'db_password', 'Value': '" + v + "'}]", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\n  client_secret: |-\n    " + v + "\n", v
			},
			func() (string, string) { v := secretOf(seed, 12, alnum); return `"SecretString": "` + v + `"`, v },
			func() (string, string) { v := secretOf(seed, 12, alnum); return "mysqldump -uroot -p" + v, v },
			func() (string, string) { v := secretOf(seed, 12, alnum); return "docker login -u me -p " + v, v },
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "db.example.com:5432:app:alice:" + v, v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\napi_key:\n  # rotated\n  " + v + "\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\n" + `{"cmd":"docker","args":["login","-p","` + v + `"]}` + "\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\ncommand: [\"mysql\"]\nargs: [\"-uroot\", \"-p" + v + "\"]\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\nargs:\n- login\n- -p\n- " + v + "\ncommand: docker\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\ndb: {password: " + v + ", user: app}\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\npassword: \"abc\n  " + v + "\"\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\n    entrypoint: [\"mysql\"]\n    command: [\"-uroot\", \"-p" + v + "\"]\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\n    command: -uroot -p" + v + "\n    entrypoint: mysql\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\necho 'db:5432:app:alice:" + v[:6] + "'\"'\"'" + v[6:] + "' >> ~/.pgpass", v[6:]
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\nbase: &pw " + v + "\npassword: *pw\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\nbase: &pw |-\n  " + v[:6] + "\n\n  " + v[6:] + "\npassword: *pw\n", v[6:]
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\ncreds: [a, {b: &pw " + v + "}]\ndb: {token: *pw}\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return `{"entrypoint":["mysql"],"command":["-uroot","-p` + v + `"]}`, v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return `{"msg":"{\"command\":[\"psql\"],\"args\":[\"--password\",\"` + v + `\"]}"}`, v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\n" + `api_requests_total{token=~"` + v + `",job="api"} 5`, v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\ncommand: [mysql,\n  -uroot,\n  -p" + v + "]\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\nargs: [--password,\n  " + v + "]\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return `{"log":"{\n  \"password\": \"` + v + `\"\n}"}`, v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return `msg="{\"token\":\"` + v + `\"}"`, v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\n? password\n: " + v + "\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\npw: &p " + v + "\nargs:\n  - --password\n  - *p\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return `{"pass\u0077ord":"` + v + `"}`, v
			},
			func() (string, string) { v := secretOf(seed, 12, alnum); return "tool --password -" + v, v },
			func() (string, string) { v := secretOf(seed, 12, alnum); return "tool --auth " + v, v },
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\nmysql -uroot \\\n  -p" + v + "\n", v
			},
			func() (string, string) { v := secretOf(seed, 12, alnum); return "export AUTH=" + v, v },
			func() (string, string) {
				v := secretOf(seed, 12, alnum) + "9Z" // looks like a secret
				return "\n  auth: " + v + "\n", v
			},
			func() (string, string) {
				v := secretOf(seed, 16, alnum) + "7x" // a digit before a letter
				return "git clone https://" + v + "@github.com/x/y.git", v
			},
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return "\nmachine api.x.com\n  login me\n  password " + v + "\n", v
			},
			func() (string, string) { v := secretOf(seed, 12, alnum); return "curl -d 'password%3D" + v + "'", v },
			func() (string, string) { v := secretOf(seed, 12, alnum); return "password&#61;" + v, v },
			func() (string, string) {
				v := secretOf(seed, 12, alnum)
				return `<input name="password" value="` + v + `">`, v
			},
		}
		text, secret := formats[int(kind)%len(formats)]()
		if strings.Contains(prefix, secret) || strings.Contains(suffix, secret) {
			return
		}
		in := prefix + " " + text + " " + suffix
		out := (&Redactor{}).String(in)
		if strings.Contains(out, secret) {
			t.Fatalf("secret %q survives in %q", secret, out)
		}
		if b := (&Redactor{}).Bytes([]byte(in)); strings.Contains(string(b), secret) {
			t.Fatalf("secret %q survives Bytes: %q", secret, b)
		}
	})
}
