package safety

import (
	"context"
	"slices"
	"testing"

	"github.com/mcec/mcec/internal/dispatch"
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
	if p.Allow(context.Background(), "launch") != nil || p.AllowRaw(context.Background(), lookup("term")) != nil ||
		p.AllowRaw(context.Background(), &rawcmd.Entry{Name: "F5", Kind: rawcmd.EntryKeysym, Enabled: true}) != nil {
		t.Error("a granted name is still refused")
	}
	if p.Allow(context.Background(), "click") == nil || p.AllowRaw(context.Background(), lookup("ctrl-c")) == nil {
		t.Error("a grant overrode enabled = false")
	}
	if p.AllowRaw(context.Background(), lookup("ctrl-a")) == nil {
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

// Grants for one session: "session" opens a name to the asking session's calls only, until it
// ends; "once" to its next call that needs it. Neither shows in what every session may do, and
// both are listed and revocable until used or ended.
func TestScopedGrants(t *testing.T) {
	on := true
	tools := []string{"windows", "launch"}
	entries := append(rawcmd.Builtins(tools).Entries(),
		&rawcmd.Entry{Name: "term", Kind: rawcmd.EntryProgram, Enabled: true, Program: []string{"xterm"}})
	term := entries[len(entries)-1]
	f5 := &rawcmd.Entry{Name: "F5", Kind: rawcmd.EntryKeysym, Enabled: true}
	p := NewPolicy(Settings{Agent: &on}, false, nil)
	live := map[string]bool{"s-a": true, "s-b": true}
	p.SetLiveSessions(func(id string) bool { return live[id] })
	a, b := dispatch.WithSessionID(context.Background(), "s-a"), dispatch.WithSessionID(context.Background(), "s-b")

	p.GrantFor(ScopeSession, "s-a", []string{"launch", "keysym"})
	p.GrantFor(ScopeOnce, "s-b", []string{"launch", "term"})
	for range 2 {
		if p.Allow(a, "launch") != nil || p.AllowRaw(a, f5) != nil {
			t.Error("a session grant does not open the name to its session's every call")
		}
	}
	if p.AllowRaw(a, term) == nil {
		t.Error("session a got what was granted to b")
	}
	if p.Allow(context.Background(), "launch") == nil || p.AllowRaw(context.Background(), f5) == nil {
		t.Error("a grant for one session opened the name outside any session")
	}
	if acc := p.Access(tools, entries); slices.Contains(acc.EnabledTools, "launch") {
		t.Errorf("commandAccess shows a grant for one session as everyone's: %+v", acc)
	}
	if p.State("launch", tools, entries) != StateGated {
		t.Error("State consumed or counted a grant for one session")
	}
	want := []ScopedGrant{{"keysym", ScopeSession, "s-a"}, {"launch", ScopeSession, "s-a"}, {"launch", ScopeOnce, "s-b"}, {"term", ScopeOnce, "s-b"}}
	if got := p.ScopedGrants(); !slices.Equal(got, want) {
		t.Errorf("ScopedGrants = %v, want %v", got, want)
	}

	// Once: the next call uses it up; the one after is refused.
	if p.Allow(b, "launch") != nil {
		t.Error("a grant for one call refused that call")
	}
	if p.Allow(b, "launch") == nil {
		t.Error("a grant for one call opened a second")
	}
	if !p.RevokeFor(ScopeOnce, "s-b", "term") || p.AllowRaw(b, term) == nil {
		t.Error("a revoked grant for one call still opens it")
	}

	// A session that ended takes its grants with it.
	delete(live, "s-a")
	if got := p.ScopedGrants(); len(got) != 0 {
		t.Errorf("ScopedGrants after the sessions ended or used them = %v", got)
	}
}
