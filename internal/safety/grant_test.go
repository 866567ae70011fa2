package safety

import (
	"context"
	"slices"
	"testing"

	"github.com/mcec/mcec/internal/rawcmd"
)

// Consent grants: State sorts names for request-command-access, and Grant opens exactly the
// gated names — never the agent switch or an explicit enabled = false.
func TestGrantAndState(t *testing.T) {
	on, off := true, false
	tools := []string{"windows", "launch", "click"}
	entries := append(rawcmd.Builtins(tools).Entries(),
		&rawcmd.Entry{Name: "term", Kind: rawcmd.EntryProgram, Enabled: true, Program: []string{"xterm"}},
		&rawcmd.Entry{Name: "old", Kind: rawcmd.EntryProgram, Enabled: false, Program: []string{"xterm"}})
	lookup := func(name string) *rawcmd.Entry {
		for _, e := range entries {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no entry %s", name)
		return nil
	}
	p := NewPolicy(Settings{Agent: &on, Tools: map[string]bool{"click": false}, RawCommands: map[string]bool{"ctrl-c": false}}, false, nil)
	for _, tc := range []struct {
		name string
		want GrantState
	}{
		{"windows", StateEnabled}, {"mcec:ver", StateEnabled}, {"pause:", StateEnabled},
		{"launch", StateGated}, {"keysym", StateGated}, {"ctrl-a", StateGated}, {"chars:", StateGated}, {"term", StateGated},
		{"click", StateFixed}, {"ctrl-c", StateFixed}, {"old", StateFixed},
		{"nosuch", StateUnknown},
	} {
		if got := p.State(tc.name, tools, entries); got != tc.want {
			t.Errorf("State(%s) = %d, want %d", tc.name, got, tc.want)
		}
	}

	p.Grant([]string{"launch", "keysym", "term", "click", "ctrl-c"})
	if p.Allow(context.Background(), "launch") != nil || p.AllowRaw(lookup("term")) != nil ||
		p.AllowRaw(&rawcmd.Entry{Name: "F5", Kind: rawcmd.EntryKeysym, Enabled: true}) != nil {
		t.Error("a granted name is still refused")
	}
	if p.Allow(context.Background(), "click") == nil || p.AllowRaw(lookup("ctrl-c")) == nil {
		t.Error("a grant overrode enabled = false")
	}
	if p.AllowRaw(lookup("ctrl-a")) == nil {
		t.Error("an ungranted chord was opened")
	}
	if a := p.Access(tools, entries); !slices.Contains(a.EnabledTools, "launch") || !slices.Contains(a.EnabledRawCommands, "term") {
		t.Errorf("commandAccess does not show the grants: %+v", a)
	}
	if got := p.Granted(); !slices.Equal(got, []string{"click", "ctrl-c", "keysym", "launch", "term"}) {
		t.Errorf("Granted() = %v", got)
	}
	if !p.Revoke("launch") || p.Revoke("launch") {
		t.Error("Revoke reports what it took back, once")
	}
	if p.Allow(context.Background(), "launch") == nil || p.State("launch", tools, entries) != StateGated {
		t.Error("a revoked grant still opens launch")
	}

	// The agent switch is not the operator's to grant through consent.
	q := NewPolicy(Settings{Agent: &off}, false, nil)
	q.Grant([]string{"launch", "windows"})
	if q.State("launch", tools, entries) != StateFixed || q.Allow(context.Background(), "windows") == nil {
		t.Error("a grant opened a switched-off agent surface")
	}
}
