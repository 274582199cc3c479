package redact

import "strings"

// SecretLabel is the marker label of values redacted because of their key:
// "[REDACTED:secret]".
const SecretLabel = "secret"

// secretSuffixes are the words a secret name ends in, for IsSecretKey and
// for the text rules (NAME=value, name: value, "name": value, --name
// value): "_" marks where one separator ("-", "_" or ".") may stand in a
// text name; IsSecretKey ignores separators anywhere. Plurals are listed
// one by one: "tokens" alone, "max_tokens" and "input_tokens" count model
// tokens, while "access_tokens" and "refresh_tokens" hold secrets.
var secretSuffixes = []string{
	"password", "passwords", "passwd", "pwd", "passphrase", "passphrases",
	"secret", "secrets", "token",
	"access_tokens", "auth_tokens", "refresh_tokens", "session_tokens", "api_tokens",
	"api_key", "api_keys", "access_key", "access_keys", "secret_key", "secret_keys", "secret_key_base",
	"private_key", "private_keys", "signing_key", "signing_keys", "encryption_key", "encryption_keys",
	"master_key", "master_keys", "credential", "credentials",
	"secret_string", "secret_binary",
	// The variables clients read a password from: sshpass -e, redis-cli.
	"sshpass", "rediscli_auth",
}

// passWord is the one secret word a key must end in as a whole word:
// DB_PASS, db.pass, dbPass and pass are secret, bypass and compass are not
// (see isPassWord).
const passWord = "pass"

// secretNames are the keys that are secret as a whole (once normalized)
// without ending in a secret word; the text rules have rules of their own
// for the headers among them.
var secretNames = []string{"authorization", "proxy_authorization", "auth", "cookie", "cookies", "set_cookie", "bearer"}

// IsSecretKey reports whether a JSON object key or map key names a secret.
// Keys are compared ignoring case and the separators "-", "_", "." and
// spaces; a key names a secret if it ends in one of the secret words the
// text rules use (password(s), passwd, pwd, passphrase(s), secret(s),
// token, access/auth/refresh/session/api_tokens, api_key(s),
// access_key(s), secret_key(s), secret_key_base, private_key(s),
// signing_key(s), encryption_key(s), master_key(s), credential(s),
// secret_string and secret_binary, as AWS Secrets Manager names them, and
// sshpass and rediscli_auth, the variables sshpass -e and redis-cli read
// a password from), ends
// in the word pass (after a separator or as the upper-case start of a
// camel-case word: DB_PASS, dbPass), or is one of authorization,
// proxy_authorization, auth, cookie(s), set_cookie and bearer. So
// "db_password", "MYSQL_PWD", "GITHUB_TOKEN", "refresh_tokens" and
// "X-Api-Key" are secret, while "max_tokens", "input_tokens", "tokens",
// "token_count", "bypass" and "password_policy" are not.
func IsSecretKey(key string) bool {
	return isSecretKey(key)
}

// keyTailLen is how much of a normalized key isSecretKey reads: more than
// the longest name and suffix (checked by TestKeyTailCoversEveryName).
const keyTailLen = 20

// normalizedKey is s without "_", as IsSecretKey compares it.
func normalizedKey(s string) string { return strings.ReplaceAll(s, "_", "") }

// secretKeyTable indexes the normalized secret names and suffixes by their
// last byte, so isSecretKey compares a key with the few that can match.
type secretKeyTable struct {
	names, suffixes [256][]string
}

// keyTable is built once from secretNames and secretSuffixes and never
// changed.
var keyTable = func() *secretKeyTable {
	t := &secretKeyTable{}
	for _, n := range secretNames {
		n = normalizedKey(n)
		t.names[n[len(n)-1]] = append(t.names[n[len(n)-1]], n)
	}
	for _, s := range secretSuffixes {
		s = normalizedKey(s)
		t.suffixes[s[len(s)-1]] = append(t.suffixes[s[len(s)-1]], s)
	}
	return t
}()

// isSecretKey is IsSecretKey for a string or a byte slice, without
// allocating: it normalizes only the key's last keyTailLen bytes, which
// decide every match (a key whose normalized form is longer equals none of
// the names, and the suffixes are shorter).
func isSecretKey[T string | []byte](key T) bool {
	var buf [keyTailLen]byte
	var at [keyTailLen]int // where each byte of buf is in key
	n := 0
	for i := len(key) - 1; i >= 0 && n < len(buf); i-- {
		c, ok := keyByte(key[i])
		if !ok {
			continue
		}
		n++
		buf[len(buf)-n] = c
		at[len(at)-n] = i
	}
	if n == 0 {
		return false
	}
	k := buf[len(buf)-n:]
	last := k[len(k)-1]
	for _, name := range keyTable.names[last] {
		if string(k) == name {
			return true
		}
	}
	for _, suffix := range keyTable.suffixes[last] {
		if len(k) >= len(suffix) && string(k[len(k)-len(suffix):]) == suffix {
			return true
		}
	}
	return len(k) >= len(passWord) && string(k[len(k)-len(passWord):]) == passWord &&
		isPassWord(key, at[len(at)-len(passWord)])
}

// isPassWord reports whether the "pass" that starts at key[i] is a word of
// its own: at the start of the key, after a byte that is not an ASCII
// letter or digit (a separator), or an upper-case P after a lower-case
// letter or digit (camel case). The text rules' passName expression
// accepts the same names.
func isPassWord[T string | []byte](key T, i int) bool {
	if i == 0 || !isAlnum(key[i-1]) {
		return true
	}
	p := key[i-1]
	return key[i] == 'P' && ('a' <= p && p <= 'z' || '0' <= p && p <= '9')
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// keyByte is c as IsSecretKey compares it: ASCII lower-cased; ok is false
// for the separators it ignores ("-", "_", "." and space). The JSON fast
// path's fragment search (fragmentAt) reads keys the same way.
func keyByte(c byte) (byte, bool) {
	switch {
	case c == '-' || c == '_' || c == '.' || c == ' ':
		return 0, false
	case 'A' <= c && c <= 'Z':
		return c + 'a' - 'A', true
	}
	return c, true
}
