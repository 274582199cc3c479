// Package redact removes secrets from text and JSON before it is logged,
// recorded in the RAO history or shown to a user.
//
// A [Redactor] replaces each secret it recognises with a marker naming its
// kind, such as "[REDACTED:aws-key]". The built-in rules cover AWS access
// key ids and secret keys, PEM private key blocks, Authorization header
// values and Bearer tokens, JWTs, OpenAI-style "sk-" keys, GitHub tokens,
// passwords in URL userinfo and credential query parameters, passwords
// in command lines whose flag names no secret (mysql -pSECRET, docker
// login -p SECRET), .pgpass lines, values after secret-like names
// (DB_PASSWORD=…, api_key: …, "token": "…", a YAML value on the lines
// after its name or in a flow mapping, {password: …}, a quoted value
// continued on later lines, the values in a JSON array or object under a
// quoted one: {"secrets": ["…"]}) and the values of name/value pairs whose name is
// secret-like (Kubernetes env lists), a .netrc entry's password, a
// token given as a URL's whole userinfo (https://<token>@host) and an
// HTML form field's value under a secret-like name or of type password
// (<input name="password" value="…">); [New] adds rules from
// configuration. [Redactor.JSON] and [Redactor.Value] also redact every
// value stored under a key that names a secret ("password", "api_key",
// "authorization", ..., see [IsSecretKey]), the "value" member of an
// object whose "name" or "key" names one and the "data" and "stringData"
// members of a Kubernetes Secret (see [PairedMembers]), and the password
// in an argv array (see [JointElements]) or in an "args" array after its
// sibling "command" or "cmd" member, or in a "command" member after its
// sibling "entrypoint" (also in text: a Kubernetes container's command
// and args and a Compose service's entrypoint and command in YAML, and
// in JSON text, compact or not, escaped in a JSON string, or a Python
// dict), and a value after a flag naming a secret (as IsSecretKey reads
// its name: --password, --api-key, --auth, --pass) in an argv array or a
// quoted list (["psql", "--password", "…"], the two items on one
// line or on two) or a YAML flow list ([psql, --password, …]); a flow
// list written over several lines and a block list are read as an argv
// (command: [mysql, /   -p…], args: / - --password / - *pw). A YAML alias under a secret-like name
// (password: *pw) is redacted, and so is the value its anchor sets,
// whatever its form (x: &pw hunter2, a block scalar x: &pw |, a scalar
// in a flow collection [&pw hunter2], over several lines) and wherever
// the alias stands where the rules redact a value.
// Every rule also reads the text with its JSON string escapes decoded
// (\" \n \uXXXX …, up to three strings deep), so pretty JSON escaped in
// a log line's string, logfmt's msg="{\"token\":…}" and keys spelled
// with \u escapes ("pass\u0077ord") are redacted in the escaped text.
// They also read the text with its percent-encodings (%3D, below %80)
// and HTML character references (&#61;, &quot;, …) decoded, once, so
// curl -d 'password%3D…' and password&#61;… are redacted.
// They also read lines joined: a shell command continued with a
// trailing "\" (or PowerShell's backtick, cmd's ^), a YAML scalar folded
// over lines (plain, or a folded block >) and a YAML complex key
// (? password / : …) read as one line.
// Object keys are never redacted.
//
// Redaction is best effort: it reduces accidental exposure but cannot
// recognise every secret. Known not to be read: a flag's value starting
// with "--", complex keys over lines or in flow mappings, a name spelled
// with percent-encodings or character references, text encoded twice and
// escapes more than three strings deep (see docs/policy.md).
package redact
