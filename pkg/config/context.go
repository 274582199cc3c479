package config

// Context configures the Cognitive Protocol's scope directories (protocol
// v0.3 §5). The builder reads the repository's own .context/ (project
// scope) before each tool call; user and global scope directories, when
// set, fill in only what the project lacks.
type Context struct {
	// UserDir is a user-scope .context directory (for example
	// ~/.context/<user>). Relative to the config file. Empty: none.
	UserDir string `json:"userDir,omitempty"`
	// GlobalDir is a global-scope .context directory (for example
	// ~/.context/global). Relative to the config file. Empty: none.
	GlobalDir string `json:"globalDir,omitempty"`
}
