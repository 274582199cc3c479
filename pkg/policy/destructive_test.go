package policy

import (
	"slices"
	"testing"
)

func TestDestructiveOps(t *testing.T) {
	tests := []struct {
		name string
		call ToolCall
		want []string
	}{
		{name: "delete_file", call: ToolCall{Tool: ToolDeleteFile, Paths: []string{"a"}}, want: []string{"delete_file"}},
		{name: "delete_file with Deletes flag counted once", call: ToolCall{Tool: ToolDeleteFile, Deletes: true}, want: []string{"delete_file"}},
		{name: "Deletes flag on another tool", call: ToolCall{Tool: "apply_patch", Deletes: true}, want: []string{"apply_patch deletes files"}},
		{name: "write is not destructive", call: ToolCall{Tool: ToolWriteFile, Writes: true}},
		{name: "command fields ignored for other tools", call: ToolCall{Tool: ToolReadFile, Command: []string{"rm", "-rf", "."}}},
	}
	cmd := func(argv ...string) ToolCall { return ToolCall{Tool: ToolRunCommand, Command: argv} }
	commands := []struct {
		name string
		call ToolCall
		want []string
	}{
		{name: "rm", call: cmd("rm", "a.go"), want: []string{"rm"}},
		{name: "rm -r", call: cmd("rm", "-r", "dir"), want: []string{"rm -r"}},
		{name: "rm -rf", call: cmd("rm", "-rf", "dir"), want: []string{"rm -r"}},
		{name: "rm -fR", call: cmd("rm", "-fR", "dir"), want: []string{"rm -r"}},
		{name: "rm --recursive", call: cmd("rm", "--recursive", "dir"), want: []string{"rm -r"}},
		{name: "rm -- -r is a file", call: cmd("rm", "--", "-r"), want: []string{"rm"}},
		{name: "rm by path", call: cmd("/bin/rm", "-rf", "x"), want: []string{"rm -r"}},
		{name: "rmdir", call: cmd("rmdir", "d"), want: []string{"rmdir"}},
		{name: "unlink", call: cmd("unlink", "f"), want: []string{"unlink"}},
		{name: "shred", call: cmd("shred", "f"), want: []string{"shred"}},
		{name: "truncate", call: cmd("truncate", "-s", "0", "f"), want: []string{"truncate"}},
		{name: "wipefs", call: cmd("wipefs", "-a", "x"), want: []string{"wipefs"}},
		{name: "mkfs", call: cmd("mkfs.ext4", "x"), want: []string{"mkfs"}},
		{name: "dd of=", call: cmd("dd", "if=/dev/zero", "of=f"), want: []string{"dd of="}},
		{name: "dd without of", call: cmd("dd", "if=f")},
		{name: "cp /dev/null", call: cmd("cp", "/dev/null", "f"), want: []string{"cp /dev/null (truncate)"}},
		{name: "plain cp", call: cmd("cp", "a", "b")},
		{name: "find -delete", call: cmd("find", ".", "-name", "*.o", "-delete"), want: []string{"find -delete"}},
		{name: "plain find", call: cmd("find", ".", "-name", "*.go")},
		{name: "git reset --hard", call: cmd("git", "reset", "--hard", "HEAD~1"), want: []string{"git reset --hard"}},
		{name: "git reset soft", call: cmd("git", "reset", "HEAD~1")},
		{name: "git -C dir reset --hard", call: cmd("git", "-C", "sub", "reset", "--hard"), want: []string{"git reset --hard"}},
		{name: "git --no-pager clean", call: cmd("git", "--no-pager", "clean", "-fd"), want: []string{"git clean"}},
		{name: "git clean", call: cmd("git", "clean", "-fdx"), want: []string{"git clean"}},
		{name: "git clean dry run", call: cmd("git", "clean", "-n")},
		{name: "git push --force", call: cmd("git", "push", "--force", "origin", "main"), want: []string{"git push --force"}},
		{name: "git push -f", call: cmd("git", "push", "-f"), want: []string{"git push --force"}},
		{name: "git push -uf cluster", call: cmd("git", "push", "-uf", "origin"), want: []string{"git push --force"}},
		{name: "git push --force-with-lease=", call: cmd("git", "push", "--force-with-lease=main"), want: []string{"git push --force"}},
		{name: "git push +refspec", call: cmd("git", "push", "origin", "+main"), want: []string{"git push --force"}},
		{name: "git push --delete", call: cmd("git", "push", "origin", "--delete", "b"), want: []string{"git push --delete"}},
		{name: "git push :ref", call: cmd("git", "push", "origin", ":b"), want: []string{"git push --delete"}},
		{name: "git push --mirror", call: cmd("git", "push", "--mirror"), want: []string{"git push --mirror"}},
		{name: "git push plain", call: cmd("git", "push", "origin", "main")},
		{name: "git push --follow-tags", call: cmd("git", "push", "--follow-tags")},
		{name: "git checkout --force", call: cmd("git", "checkout", "-f", "main"), want: []string{"git checkout --force/--"}},
		{name: "git checkout -- path", call: cmd("git", "checkout", "--", "a.go"), want: []string{"git checkout --force/--"}},
		{name: "git checkout branch", call: cmd("git", "checkout", "main")},
		{name: "git switch --discard-changes", call: cmd("git", "switch", "--discard-changes", "x"), want: []string{"git switch --discard-changes"}},
		{name: "git restore", call: cmd("git", "restore", "a.go"), want: []string{"git restore"}},
		{name: "git restore --staged", call: cmd("git", "restore", "--staged", "a.go")},
		{name: "git restore --staged --worktree", call: cmd("git", "restore", "-S", "-W", "a.go"), want: []string{"git restore"}},
		{name: "git branch -D", call: cmd("git", "branch", "-D", "x"), want: []string{"git branch -D"}},
		{name: "git branch --delete --force", call: cmd("git", "branch", "--delete", "--force", "x"), want: []string{"git branch -D"}},
		{name: "git branch -d", call: cmd("git", "branch", "-d", "x")},
		{name: "git stash drop", call: cmd("git", "stash", "drop"), want: []string{"git stash drop"}},
		{name: "git stash clear", call: cmd("git", "stash", "clear"), want: []string{"git stash clear"}},
		{name: "git stash push", call: cmd("git", "stash")},
		{name: "git rm", call: cmd("git", "rm", "a.go"), want: []string{"git rm"}},
		{name: "git rm --cached", call: cmd("git", "rm", "--cached", "a.go")},
		{name: "git filter-branch", call: cmd("git", "filter-branch", "--tree-filter", "x"), want: []string{"git filter-branch"}},
		{name: "git reflog expire", call: cmd("git", "reflog", "expire", "--all"), want: []string{"git reflog expire"}},
		{name: "git update-ref -d", call: cmd("git", "update-ref", "-d", "refs/heads/x"), want: []string{"git update-ref -d"}},
		{name: "git status", call: cmd("git", "status")},
		{name: "git alone", call: cmd("git")},
		{name: "env wrapper", call: cmd("env", "A=1", "-i", "rm", "-rf", "x"), want: []string{"rm -r"}},
		{name: "sudo -u wrapper", call: cmd("sudo", "-u", "root", "rm", "x"), want: []string{"rm"}},
		{name: "timeout wrapper", call: cmd("timeout", "-s", "KILL", "10s", "git", "clean", "-f"), want: []string{"git clean"}},
		{name: "nested wrappers", call: cmd("nice", "-n", "5", "nohup", "xargs", "-I", "{}", "rm", "{}"), want: []string{"rm"}},
		{name: "wrapper with --", call: cmd("env", "--", "rm", "x"), want: []string{"rm"}},
		{name: "busybox", call: cmd("busybox", "rm", "-r", "x"), want: []string{"rm -r"}},
		{name: "wrapper without command", call: cmd("env", "A=1")},
		{name: "doas -u", call: cmd("doas", "-u", "root", "rm", "x"), want: []string{"rm"}},
		{name: "stdbuf -o", call: cmd("stdbuf", "-o", "L", "git", "clean", "-f"), want: []string{"git clean"}},
		{name: "env -u and -S", call: cmd("env", "-u", "HOME", "rm", "x"), want: []string{"rm"}},
		{name: "watch -n", call: cmd("watch", "-n", "1", "rm", "x"), want: []string{"rm"}},
		{name: "strace -o", call: cmd("strace", "-o", "trace", "rm", "x"), want: []string{"rm"}},
		{name: "ionice -c", call: cmd("ionice", "-c", "3", "rm", "x"), want: []string{"rm"}},
		{name: "flock file operand", call: cmd("flock", "lockfile", "rm", "x"), want: []string{"rm"}},
		{name: "wrapper flag with inline value", call: cmd("sudo", "--user=root", "rm", "x"), want: []string{"rm"}},
		{name: "time without value flags", call: cmd("time", "-p", "rm", "x"), want: []string{"rm"}},
		{name: "sh -c rm", call: cmd("sh", "-c", "rm -rf /"), want: []string{"rm -r"}},
		{name: "bash -ec cluster", call: cmd("bash", "-ec", "go test; git reset --hard"), want: []string{"git reset --hard"}},
		{name: "sh -c chain", call: cmd("sh", "-c", "make && rm x || git clean -f | cat"), want: []string{"git clean", "rm"}},
		{name: "sh -c quoted words", call: cmd("sh", "-c", `'rm' "-rf" 'a b'`), want: []string{"rm -r"}},
		{name: "sh -c command substitution", call: cmd("sh", "-c", "echo $(rm -r x)"), want: []string{"rm -r"}},
		{name: "sh -c backticks", call: cmd("sh", "-c", "echo `git clean -f`"), want: []string{"git clean"}},
		{name: "sh -c truncate by redirection", call: cmd("sh", "-c", ": > go.sum"), want: []string{"truncate via redirection"}},
		{name: "sh -c bare redirection", call: cmd("sh", "-c", ">go.sum"), want: []string{"truncate via redirection"}},
		{name: "sh -c append is not truncation", call: cmd("sh", "-c", ": >> log")},
		{name: "sh -c output redirect of a command", call: cmd("sh", "-c", "go test ./... > out.txt 2>&1")},
		{name: "sh -c redirection target not a command", call: cmd("sh", "-c", "echo x >rm")},
		{name: "sh -c word before redirection is not a descriptor", call: cmd("sh", "-c", "echo a>out; echo $HOME")},
		{name: "sh -c variable then rm", call: cmd("sh", "-c", "cd $DIR; rm -r x"), want: []string{"rm -r"}},
		{name: "sh -c nested sh", call: cmd("sh", "-c", `bash -c "rm -r x"`), want: []string{"rm -r"}},
		{name: "sh -c harmless", call: cmd("sh", "-c", "go test ./... && go vet ./...")},
		{name: "sh without -c", call: cmd("sh", "script.sh")},
		{name: "cmd /c", call: cmd("cmd", "/c", "rm x"), want: []string{"rm"}},
		{name: "go test", call: cmd("go", "test", "./...")},
	}
	tests = append(tests, commands...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := destructiveOps(tt.call)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("destructiveOps(%+v) = %q, want %q", tt.call, got, tt.want)
			}
		})
	}
}

func TestDestructiveDepthFailsClosed(t *testing.T) {
	nest := func(levels int) []string {
		argv := []string{"ls"}
		for range levels {
			argv = append([]string{"env"}, argv...)
		}
		return argv
	}
	if got := commandOps(nest(maxCommandDepth), 0, nil); len(got) != 0 {
		t.Errorf("wrappers within the limit: %q, want none", got)
	}
	if got := commandOps(nest(maxCommandDepth+1), 0, nil); !slices.Equal(got, []string{opTooDeep}) {
		t.Errorf("wrappers beyond the limit: %q, want %q", got, opTooDeep)
	}
	// Each "sh -c" level recurses with depth+1.
	if got := commandOps([]string{"ls"}, maxCommandDepth+1, nil); !slices.Equal(got, []string{opTooDeep}) {
		t.Errorf("scripts beyond the limit: %q, want %q", got, opTooDeep)
	}
	if got := commandOps([]string{"ls"}, maxCommandDepth, nil); len(got) != 0 {
		t.Errorf("scripts at the limit: %q, want none", got)
	}
}
