package redact

import "iter"

// Name/value pairs: lists such as Kubernetes' env,
// [{"name": "DB_PASSWORD", "value": "hunter2"}], AWS tags
// ({"Key": …, "Value": …}) and SSM parameters name a secret in one member
// and hold it in another. In JSON, Value and the text rules, an object's
// "value" member is redacted as if under a secret key when a "name" or
// "key" member of the same object (ignoring case and separators, in any
// order) is a string for which IsSecretKey holds.
//
// A Kubernetes Secret is the same kind of object: its "data" and
// "stringData" members hold secrets under free keys (DATABASE_URL,
// tls.key) when its "kind" member is "Secret", as in an event holding
// kubectl's JSON output.
//
// That makes the redaction of a "value", "data" or "stringData" member
// depend on its siblings: [PairedMembers] tells when it does, for code
// that redacts an object's members one at a time.

// pairRole is what a member's key makes it in a name/value pair.
type pairRole uint8

const (
	pairNone       pairRole = iota
	pairName                // "name" or "key": its string value may name a secret
	pairValue               // "value": redacted when a sibling names a secret
	pairKind                // "kind": "Secret" makes the data members secret
	pairData                // "data" or "stringData": redacted in a Secret
	pairCommand             // "command" or "cmd": names the command of args
	pairArgs                // "args", "arguments" or "argv": a command's arguments
	pairEntrypoint          // "entrypoint": names the command of a Compose "command"
)

// siblings is what an object's members make of its value and data
// members.
type siblings struct {
	secretName bool // a name or key member names a secret
	secretKind bool // a kind member is "Secret"
	// command is the valid JSON value of the last command member, a
	// string or an array, or "" (see command_split.go).
	command string
	// entrypoint is the same for the last entrypoint member: a Compose
	// service's program, whose arguments are its "command" member.
	entrypoint string
}

// argsWords returns the words of the command whose arguments a member of
// this role holds: an args member's after the command member, a Compose
// command member's after the entrypoint member (see command_split.go);
// nil for any other member or when its sibling is missing.
func (s siblings) argsWords(role pairRole) []string {
	switch role {
	case pairArgs:
		return commandWords(s.command)
	case pairCommand:
		return commandWords(s.entrypoint)
	}
	return nil
}

// noteCommand records the valid JSON value of a member naming a command:
// a command or an entrypoint member.
func (s *siblings) noteCommand(role pairRole, raw string) {
	switch role {
	case pairCommand:
		s.command = raw
	case pairEntrypoint:
		s.entrypoint = raw
	}
}

// note records a member's role and valid JSON value.
func (s *siblings) note(role pairRole, raw []byte) {
	switch role {
	case pairName:
		s.secretName = s.secretName || namesSecret(raw)
	case pairKind:
		s.secretKind = s.secretKind || isSecretKind(raw)
	}
}

// redacts reports whether a member of this role is redacted as a whole.
func (s siblings) redacts(role pairRole) bool {
	return role == pairValue && s.secretName || role == pairData && s.secretKind
}

// isSecretKind reports whether raw, a valid JSON value, is the string
// "Secret".
func isSecretKind(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '"' {
		return false
	}
	var buf [16]byte
	text, _ := decodeJSONString(buf[:0], raw, 1)
	return string(text) == "Secret"
}

// roleOf returns the pair role of an object key, compared as IsSecretKey
// compares keys (case and separators ignored).
func roleOf[T string | []byte](key T) pairRole {
	var buf [10]byte
	n := 0
	for i := 0; i < len(key); i++ {
		c, ok := keyByte(key[i])
		if !ok {
			continue
		}
		if n == len(buf) {
			return pairNone
		}
		buf[n] = c
		n++
	}
	switch string(buf[:n]) {
	case "name", "key":
		return pairName
	case "value":
		return pairValue
	case "kind":
		return pairKind
	case "data", "stringdata":
		return pairData
	case "command", "cmd":
		return pairCommand
	case "args", "arguments", "argv":
		return pairArgs
	case "entrypoint":
		// Only spelled so (any case): JSON tests a document for the word
		// before it reads its objects (see jsonScanner.argsPrefix).
		if len(key) == len("entrypoint") {
			return pairEntrypoint
		}
	}
	return pairNone
}

// namesSecret reports whether raw, the valid JSON value of a pairName
// member, is a string naming a secret.
func namesSecret(raw []byte) bool {
	if len(raw) == 0 || raw[0] != '"' {
		return false
	}
	var buf [64]byte
	text, _ := decodeJSONString(buf[:0], raw, 1)
	return isSecretKey(text)
}

// PairedMembers reports whether the redaction of an object with these
// members (each key and its valid JSON value) depends on its members
// together: the object has a "value" member and a "name" or "key" member
// naming a secret, or a "data" or "stringData" member and a "kind" member
// that is "Secret", so JSON redacts that member although it would keep
// it alone under its key, or an "args" member whose passwords redact
// otherwise after the words of a "command" or "cmd" member (see
// command_split.go), or a Compose "command" member whose passwords redact
// otherwise after the words of an "entrypoint" member. Otherwise each member redacts inside the object
// exactly as alone in an object under its key.
func PairedMembers(members iter.Seq2[string, []byte]) bool {
	var sib siblings
	hasValue, hasData := false, false
	var command, entrypoint []byte
	var args, commands [][]byte
	for key, raw := range members {
		role := roleOf(key)
		sib.note(role, raw)
		hasValue = hasValue || role == pairValue
		hasData = hasData || role == pairData
		if hasValue && sib.redacts(pairValue) || hasData && sib.redacts(pairData) {
			return true
		}
		switch {
		case role == pairEntrypoint && len(raw) > 0 && (raw[0] == '"' || raw[0] == '['):
			entrypoint = raw
		case role == pairArgs:
			args = append(args, raw)
		}
		if role == pairCommand && len(raw) > 0 && (raw[0] == '"' || raw[0] == '[') {
			command = raw
			commands = append(commands, raw)
		}
	}
	for _, a := range args {
		if splitCommandPaired(command, a) {
			return true
		}
	}
	for _, c := range commands {
		if splitCommandPaired(entrypoint, c) {
			return true
		}
	}
	return false
}
