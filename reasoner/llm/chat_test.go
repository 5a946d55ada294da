package llm

import (
	"slices"
	"testing"
)

func TestChat(t *testing.T) {
	tests := []struct {
		system, user string
		want         []Message
	}{
		{"be brief", "hi", []Message{{RoleSystem, "be brief"}, {RoleUser, "hi"}}},
		{"", "hi", []Message{{RoleUser, "hi"}}},
	}
	for _, tt := range tests {
		if got := Chat(tt.system, tt.user); !slices.Equal(got, tt.want) {
			t.Errorf("Chat(%q, %q) = %+v, want %+v", tt.system, tt.user, got, tt.want)
		}
	}
}
