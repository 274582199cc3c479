package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// commandCases are command lines giving a password in a flag, in model
// text, a command's output and shell history, and their redaction.
var commandCases = []struct{ name, in, want string }{
	{"mysql attached", "mysql -u root -phunter2 db", "mysql -u root -p[REDACTED:password] db"},
	{"mysql alone", "mysql -pSECRET", "mysql -p[REDACTED:password]"},
	{"mysqldump", "mysqldump -u root -pSECRET mydb > dump.sql", "mysqldump -u root -p[REDACTED:password] mydb > dump.sql"},
	{"mysql path and tabs", "/usr/bin/mysql\t-uroot\t-pS3cr3t!\r\n", "/usr/bin/mysql\t-uroot\t-p[REDACTED:password]\r\n"},
	{"mariadb quoted with space", `mariadb -p"my secret" app`, `mariadb -p"[REDACTED:password]" app`},
	{"mysql single quoted", `mysqladmin -uroot -p'pa ss' status`, `mysqladmin -uroot -p'[REDACTED:password]' status`},
	{"mysql in docker exec", "docker exec db mysql -uroot -pSECRET -e 'select 1'", "docker exec db mysql -uroot -p[REDACTED:password] -e 'select 1'"},
	{"mysql in backticks", "Run `mysql -uroot -pSECRET app` first.", "Run `mysql -uroot -p[REDACTED:password] app` first."},
	{"mysql in a json string", `{"cmd": "mysql -uroot -pSECRET app"}`, `{"cmd": "mysql -uroot -p[REDACTED:password] app"}`},
	{"mysql argv in text", `["mysql","-uroot","-pSECRET","app"]`, `["mysql","-uroot","-p[REDACTED:password]","app"]`},
	{"mysql argv escaped", `[\"mysql\",\"-pSECRET\"]`, `[\"mysql\",\"-p[REDACTED:password]\"]`},
	{"mysql go slice", `[mysql -uroot -pSECRET app]`, `[mysql -uroot -p[REDACTED:password] app]`},
	{"docker login separate", "docker login -p SECRET registry.example.com", "docker login -p [REDACTED:password] registry.example.com"},
	{"docker login user first", "docker login -u user -p SECRET ghcr.io", "docker login -u user -p [REDACTED:password] ghcr.io"},
	{"docker login password last", "docker login ghcr.io -u user -p SECRET", "docker login ghcr.io -u user -p [REDACTED:password]"},
	{"docker login attached", "docker login -pSECRET ghcr.io", "docker login -p[REDACTED:password] ghcr.io"},
	{"docker login long", "docker login --username u --password SECRET ghcr.io", "docker login --username u --password [REDACTED:password] ghcr.io"},
	{"docker login long equals", "docker login --password=SECRET", "docker login --password=[REDACTED:credential]"},
	{"docker login quoted", `docker login -p "sec ret" ghcr.io`, `docker login -p "[REDACTED:password]" ghcr.io`},
	{"podman login", "podman login -u u -p SECRET quay.io", "podman login -u u -p [REDACTED:password] quay.io"},
	{"docker global flag before login", "docker --config /tmp/c login -u u -p SECRET", "docker --config /tmp/c login -u u -p [REDACTED:password]"},
	{"helm registry login", "helm registry login ghcr.io -u u -p SECRET", "helm registry login ghcr.io -u u -p [REDACTED:password]"},
	{"sshpass", "sshpass -p SECRET ssh deploy@host", "sshpass -p [REDACTED:password] ssh deploy@host"},
	{"sshpass attached", "sshpass -pSECRET ssh deploy@host", "sshpass -p[REDACTED:password] ssh deploy@host"},
	{"redis-cli", "redis-cli -h cache -a SECRET ping", "redis-cli -h cache -a [REDACTED:password] ping"},
	{"escaped quote inside", `mysql -uroot -p"SE\"CRET" db`, `mysql -uroot -p"[REDACTED:password]" db`},
	{"pipe glued to the password", "mysql -uroot -pSECRET|grep x", "mysql -uroot -p[REDACTED:password]|grep x"},
	{"semicolon glued to the password", "mysql -uroot -pSECRET;ls", "mysql -uroot -p[REDACTED:password];ls"},
	{"quoted parts glued", `mysql -uroot -p'SEC'"RET" db`, `mysql -uroot -p'[REDACTED:password] db`},
	{"upper-case windows command", `C:\mysql\bin\MYSQL.EXE -uroot -pSECRET`, `C:\mysql\bin\MYSQL.EXE -uroot -p[REDACTED:password]`},
	{"two commands", "mysql -pONE db; docker login -p TWO r", "mysql -p[REDACTED:password] db; docker login -p [REDACTED:password] r"},
	{"compact json", `{"command":"mysql -uroot -pSECRET db","x":"y"}`, `{"command":"mysql -uroot -p[REDACTED:password] db","x":"y"}`},
	{"compact json escaped quotes", `{"command":"mysql -uroot -p\"SEC RET\" db"}`, `{"command":"mysql -uroot -p\"[REDACTED:password]\" db"}`},
	{"json text in json text", `{\"cmd\":\"mysql -uroot -pSECRET\"}`, `{\"cmd\":\"mysql -uroot -p[REDACTED:password]\"}`},
	{"bash -c escaped quotes", `bash -c "mysql -uroot -p\"SEC RET\" db"`, `bash -c "mysql -uroot -p\"[REDACTED:password]\" db"`},
	{"assigned", `CMD="mysql -uroot -pSECRET"`, `CMD="mysql -uroot -p[REDACTED:password]"`},
	{"in a call", `subprocess.run("mysql -uroot -pSECRET db")`, `subprocess.run("mysql -uroot -p[REDACTED:password] db")`},
	{"command substitution", "x=$(mysql -uroot -pSECRET -e 'x') y=`mysql -pTWO`", "x=$(mysql -uroot -p[REDACTED:password] -e 'x') y=`mysql -p[REDACTED:password]`"},
	{"quote glued after", `mysql -uroot -p"SECRET"&& ls`, `mysql -uroot -p"[REDACTED:password]"&& ls`},
	{"quoted part inside", `mysql -uroot -pSE'C RET' db`, `mysql -uroot -p[REDACTED:password] db`},
	{"ansi-c quoted", `mysql -uroot -p$'SEC RET' db`, `mysql -uroot -p[REDACTED:password] db`},
	{"escaped space", `mysql -uroot -pSEC\ RET db`, `mysql -uroot -p[REDACTED:password] db`},
	{"sshpass's command keeps its options", "sshpass -p SECRET ssh -p 2222 deploy@host", "sshpass -p [REDACTED:password] ssh -p 2222 deploy@host"},
	{"sshpass prompt option", "sshpass -P assword -p SECRET scp -p f h:", "sshpass -P assword -p [REDACTED:password] scp -p f h:"},
	{"name after a naming flag", "sudo -u mysql mysql -uroot -pSECRET", "sudo -u mysql mysql -uroot -p[REDACTED:password]"},
	{"echo piped into a login", "echo SECRET | docker login -u me --password-stdin ghcr.io", "echo [REDACTED:password] | docker login -u me --password-stdin ghcr.io"},
	{"echo -n quoted piped", `Run: echo -n "SEC RET" | podman login quay.io -u me --password-stdin`, `Run: echo -n "[REDACTED:password]" | podman login quay.io -u me --password-stdin`},
	{"printf piped", "printf '%s' SECRET | helm registry login r --password-stdin", "printf '%s' [REDACTED:password] | helm registry login r --password-stdin"},
	{"piped in compact json", `{"cmd":"echo SECRET | docker login --password-stdin"}`, `{"cmd":"echo [REDACTED:password] | docker login --password-stdin"}`},
	{"here-string", "docker login -u me --password-stdin <<< SECRET", "docker login -u me --password-stdin <<< [REDACTED:password]"},
	{"here-string glued", `docker login --password-stdin <<<"SEC RET"`, `docker login --password-stdin <<<"[REDACTED:password]"`},
	{"prose before", "Find the users: mysql -uroot -pSECRET -e 'select 1'", "Find the users: mysql -uroot -p[REDACTED:password] -e 'select 1'"},
}

func TestCommandLinePasswords(t *testing.T) {
	r := &Redactor{}
	for _, tt := range commandCases {
		t.Run(tt.name, func(t *testing.T) {
			if again := r.String(tt.want); again != tt.want {
				t.Errorf("String is not idempotent: %q -> %q", tt.want, again)
			}
			if got := r.String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestCommandLinesLeftAlone: -p and -a mean other things elsewhere (a
// port, a prompt for the password), and a command name in prose does not
// make a flag after it secret.
func TestCommandLinesLeftAlone(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		"mysql -p app",                   // -p alone prompts; app is the database
		"mysql -h db -P 3306 -u root -p", // -P is the port
		"docker run -p 8080:80 nginx",
		"docker compose up -d && docker ps -a",
		"mysql --help | grep -p",
		"sshpass -V",
		"redis-cli -h cache ping",
		"docker login ghcr.io",
		"echo done; grep -pattern file",
		"The mysql client reads ~/.my.cnf; git -p log pages.",
		"go test -p 4 ./...",
		"find /var/lib/mysql -type f -perm 600 -print", // a data directory, not the command
		"find . -name mysql -prune -o -print",
		"docker run -d --name mysql -p3306:3306 mysql:8",
		"docker run -v /srv/mysql:/var/lib/mysql -p3306:3306 mysql:8",
		"sshpass -f pwfile ssh -p 22 host",
		"docker run -d -e DB_HOST=mysql -p8080:8080 app", // a host named mysql
		"echo hello | grep h",
		"echo hi; docker login --password-stdin ghcr.io",
		"cat pw.txt | docker login --password-stdin ghcr.io",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestCommandArgvInJSON: tool arguments give a command as an argv array,
// each argument its own JSON string; the password is redacted there too,
// by JSON and by Value, and such an array is never split (JointElements).
func TestCommandArgvInJSON(t *testing.T) {
	r := &Redactor{}
	cases := []struct{ in, want string }{
		{`{"command":["mysql","-uroot","-pSECRET","app"]}`, `{"command":["mysql","-uroot","-p[REDACTED:password]","app"]}`},
		{`{"command":["docker","login","-u","me","-p","SECRET","ghcr.io"]}`, `{"command":["docker","login","-u","me","-p","[REDACTED:password]","ghcr.io"]}`},
		{`{"command":["docker","login","--password","SECRET"]}`, `{"command":["docker","login","--password","[REDACTED:password]"]}`},
		{`["sshpass","-p","SECRET","ssh","h"]`, `["sshpass","-p","[REDACTED:password]","ssh","h"]`},
		{`["my\u0073ql","-pSECRET"]`, `["mysql","-p[REDACTED:password]"]`},
		{`["mysql","-p",1,"SECRET"]`, `["mysql","-p",1,"SECRET"]`},
		{`["docker","run","-p","8080:80"]`, `["docker","run","-p","8080:80"]`},
		{`["mysql","-p","app"]`, `["mysql","-p","app"]`},
		{`["MySQL","-pSECRET"]`, `["MySQL","-p[REDACTED:password]"]`},
		{`["sshpass","-p","SECRET","ssh","-p","2222","h"]`, `["sshpass","-p","[REDACTED:password]","ssh","-p","2222","h"]`},
		{`["docker","run","--name","mysql","-p3306:3306","mysql:8"]`, `["docker","run","--name","mysql","-p3306:3306","mysql:8"]`},
	}
	for _, c := range cases {
		got, err := r.JSON([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("JSON(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
		checkSameAsReference(t, r, []byte(c.in))
	}
	argv := []string{"docker", "login", "-p", "SECRET", "r"}
	if got := r.Value(argv).([]string); strings.Join(got, " ") != "docker login -p [REDACTED:password] r" {
		t.Errorf("Value(%q) = %q", argv, got)
	}
	anyArgv := []any{"mysql", "-pSECRET"}
	if got := r.Value(anyArgv).([]any); got[1] != "-p[REDACTED:password]" {
		t.Errorf("Value(%q) = %q", anyArgv, got)
	}
	if argv[3] != "SECRET" || anyArgv[1] != "-pSECRET" {
		t.Error("Value modified its argument")
	}
	elems := func(doc string) func(func([]byte) bool) {
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(doc), &raw); err != nil {
			t.Fatal(err)
		}
		return func(yield func([]byte) bool) {
			for _, e := range raw {
				if !yield(e) {
					return
				}
			}
		}
	}
	if !JointElements(elems(`["mysql","-pSECRET"]`)) {
		t.Error("JointElements is false for a mysql argv")
	}
	for _, doc := range []string{`["go","test","./..."]`, `["mysql","--version"]`, `[1,"mysql"]`, `[]`} {
		if JointElements(elems(doc)) {
			t.Errorf("JointElements is true for %s", doc)
		}
	}
}
