package density

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

type window struct {
	Handle    uint32 `json:"handle"`
	Title     string `json:"title"`
	ProcessID int    `json:"processId"`
}

// CheckIsolation drives every member at once and fails unless each sees only its own: its
// window list holds its own app's window and only windows of its own processes (none titled
// for another member); a clipboard text set on one is read back there and nowhere else; text
// typed with real input into one member's entry lands in that entry only.
func (f *Fleet) CheckIsolation(ctx context.Context) error {
	if err := f.each(func(_ int, m *Member) error { return m.checkWindows(ctx, f.Members) }); err != nil {
		return fmt.Errorf("windows: %w", err)
	}
	clips := make([]string, len(f.Members))
	for i, m := range f.Members {
		clips[i] = "clip " + m.ID + " " + nonce()
	}
	if err := f.each(func(i int, m *Member) error {
		return m.Call(ctx, "clipboard", map[string]any{"action": "set", "text": clips[i]}, nil)
	}); err != nil {
		return fmt.Errorf("clipboard set: %w", err)
	}
	if err := f.each(func(i int, m *Member) error {
		var res struct {
			Text *string `json:"text"`
		}
		if err := m.Call(ctx, "clipboard", map[string]any{"action": "get"}, &res); err != nil {
			return err
		}
		if res.Text == nil || *res.Text != clips[i] {
			got := "<none>"
			if res.Text != nil {
				got = *res.Text
			}
			return fmt.Errorf("%s reads clipboard %q, want its own %q", m.ID, got, clips[i])
		}
		return nil
	}); err != nil {
		return fmt.Errorf("clipboard: %w", err)
	}
	typed := make([]string, len(f.Members))
	for i := range f.Members {
		typed[i] = fmt.Sprintf("typed%d-%s", i, nonce()[:6])
	}
	// Real input (click, select all, type through XTEST) into every member at once.
	if err := f.each(func(i int, m *Member) error {
		return m.Call(ctx, "invoke", map[string]any{"window": m.Title, "element": map[string]any{"name": EntryName},
			"action": "setvalue", "text": typed[i], "via": "input"}, nil)
	}); err != nil {
		return fmt.Errorf("typing: %w", err)
	}
	if err := f.each(func(i int, m *Member) error {
		v, err := m.EntryValue(ctx)
		if err != nil {
			return err
		}
		if v != typed[i] {
			return fmt.Errorf("%s's entry holds %q, want exactly its own %q", m.ID, v, typed[i])
		}
		return nil
	}); err != nil {
		return fmt.Errorf("input: %w", err)
	}
	return nil
}

// EntryValue reads the member's entry text through its accessibility tree.
func (m *Member) EntryValue(ctx context.Context) (string, error) {
	var res struct {
		Found   bool `json:"found"`
		Element struct {
			Value *string `json:"value"`
		} `json:"element"`
	}
	if err := m.Call(ctx, "find", map[string]any{"window": m.Title, "element": map[string]any{"name": EntryName}}, &res); err != nil {
		return "", err
	}
	if !res.Found || res.Element.Value == nil {
		return "", fmt.Errorf("%s: entry not found or without a value", m.ID)
	}
	return *res.Element.Value, nil
}

func (m *Member) checkWindows(ctx context.Context, all []*Member) error {
	var res struct {
		Windows []window `json:"windows"`
	}
	if err := m.Call(ctx, "windows", nil, &res); err != nil {
		return err
	}
	groups := processGroups(m.PID)
	own := false
	for _, w := range res.Windows {
		if w.Title == m.Title {
			own = true
		}
		for _, o := range all {
			if o != m && strings.Contains(w.Title, o.ID) {
				return fmt.Errorf("%s sees %s's window %q", m.ID, o.ID, w.Title)
			}
		}
		if w.ProcessID <= 0 || !slices.Contains(groups, processGroup(w.ProcessID)) {
			return fmt.Errorf("%s sees window %q of pid %d, not one of its own processes", m.ID, w.Title, w.ProcessID)
		}
	}
	if !own {
		return fmt.Errorf("%s does not see its own window %q among %d", m.ID, m.Title, len(res.Windows))
	}
	return nil
}

func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
