package redact

// SecretLabel is the marker label of values redacted because of their key:
// "[REDACTED:secret]".
const SecretLabel = "secret"

// IsSecretKey reports whether a JSON object key or map key names a secret.
// Keys are compared ignoring case and the separators "-", "_", "." and
// spaces; a key names a secret if it is one of password, passwd, pwd, pass,
// passphrase, secret, token, apikey, authorization, proxyauthorization,
// auth, credential(s), cookie, setcookie, privatekey, accesskey, secretkey,
// bearer, or ends in password, passwd, pwd, passphrase, secret, token,
// apikey, privatekey, accesskey, secretkey, secretkeybase or credential(s)
// (the names whose values the text rules redact in NAME=value). So
// "db_password", "MYSQL_PWD", "GITHUB_TOKEN" and "X-Api-Key" are secret,
// while "max_tokens" and "token_count" are not.
func IsSecretKey(key string) bool {
	return isSecretKey(key)
}

// keyTailLen is how much of a normalized key isSecretKey reads: more than
// the longest name (proxyauthorization) and the longest suffix
// (secretkeybase).
const keyTailLen = 20

// isSecretKey is IsSecretKey for a string or a byte slice, without
// allocating: it normalizes only the key's last keyTailLen bytes, which
// decide every match (a key whose normalized form is longer equals none of
// the names, and the suffixes are shorter).
func isSecretKey[T string | []byte](key T) bool {
	var buf [keyTailLen]byte
	n := 0
	for i := len(key) - 1; i >= 0 && n < len(buf); i-- {
		c, ok := keyByte(key[i])
		if !ok {
			continue
		}
		n++
		buf[len(buf)-n] = c
	}
	k := buf[len(buf)-n:]
	switch string(k) {
	case "password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "apikey",
		"authorization", "proxyauthorization", "auth", "credential", "credentials", "cookie", "setcookie",
		"privatekey", "accesskey", "secretkey", "bearer":
		return true
	}
	for _, suffix := range [...]string{"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey",
		"privatekey", "accesskey", "secretkey", "secretkeybase", "credential", "credentials"} {
		if len(k) >= len(suffix) && string(k[len(k)-len(suffix):]) == suffix {
			return true
		}
	}
	return false
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
