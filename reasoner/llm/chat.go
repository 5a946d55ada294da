package llm

// Chat returns the messages of a chat request: the system prompt (left out
// when empty) and the user prompt.
func Chat(system, user string) []Message {
	if system == "" {
		return []Message{{Role: RoleUser, Content: user}}
	}
	return []Message{{Role: RoleSystem, Content: system}, {Role: RoleUser, Content: user}}
}
