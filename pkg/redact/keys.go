package redact

import "strings"

// SecretLabel is the marker label of values redacted because of their key:
// "[REDACTED:secret]".
const SecretLabel = "secret"

// IsSecretKey reports whether a JSON object key or map key names a secret.
// Keys are compared ignoring case and the separators "-", "_", "." and
// spaces; a key names a secret if it is one of password, passwd, pwd, pass,
// passphrase, secret, token, apikey, authorization, auth, credential(s),
// cookie, setcookie, privatekey, accesskey, secretkey, bearer, or ends in
// password, passphrase, secret, token, apikey, privatekey, accesskey,
// secretkey or credential(s). So "db_password", "GITHUB_TOKEN" and
// "X-Api-Key" are secret, while "max_tokens" and "token_count" are not.
func IsSecretKey(key string) bool {
	k := normalizeKey(key)
	switch k {
	case "password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "apikey",
		"authorization", "auth", "credential", "credentials", "cookie", "setcookie",
		"privatekey", "accesskey", "secretkey", "bearer":
		return true
	}
	for _, suffix := range []string{"password", "passphrase", "secret", "token", "apikey",
		"privatekey", "accesskey", "secretkey", "credential", "credentials"} {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	return false
}

// normalizeKey lower-cases key and drops separators.
func normalizeKey(key string) string {
	var b strings.Builder
	b.Grow(len(key))
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ':
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
