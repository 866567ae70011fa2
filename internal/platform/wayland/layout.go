package wayland

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcec/mcec/internal/platform"
)

// KWin's fake input and GNOME Shell's keyboard take evdev codes, which the session reads through
// its own layout: mcec types with a US keyboard's codes (keymap.go), so on another layout a
// character key would type another character ("z" on a German one types "y"). Such keys are
// refused unless the session's layout is plain US; keys that mean the same on every layout
// (Return, Tab, arrows, F-keys, modifiers, space) always go.

// layoutDependent reports whether a keysym's key differs between layouts: the Latin-1
// characters but space.
func layoutDependent(sym uint32) bool { return sym < 0x100 && sym != 0x20 }

// checkLayout fails when syms hold a layout-dependent key and the session's layout is not a
// plain US one.
func (in *input) checkLayout(ctx context.Context, syms []uint32) error {
	sc, ok := in.c.compositor.(*shellComp)
	if !ok || !slices.ContainsFunc(syms, layoutDependent) {
		return nil
	}
	l, err := sc.sh.layout(ctx)
	if err != nil {
		return err
	}
	if l != "us" {
		return fmt.Errorf("%w: the session types through its %q keyboard layout, and mcec sends a US keyboard's keys there; "+
			"switch the session to a plain US layout, or set text with invoke setvalue or the clipboard", platform.ErrCompositorUnsupported, l)
	}
	return nil
}

// kxkbrcLayout is the first layout of the KDE keyboard settings in configHome (the user's
// when ""): kxkbrc's LayoutList, with its variant, "us" when none is set. KWin reads keys
// through it when it offers no org.kde.keyboard (one layout configured).
func kxkbrcLayout(configHome string) string {
	dir := configHome
	if dir == "" {
		var err error
		if dir, err = os.UserConfigDir(); err != nil {
			return "us"
		}
	}
	f, err := os.Open(filepath.Join(dir, "kxkbrc"))
	if err != nil {
		return "us"
	}
	defer f.Close()
	return parseKxkbrc(bufio.NewScanner(f))
}

func parseKxkbrc(sc *bufio.Scanner) string {
	section, use, layouts, variants := "", true, "", ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section != "[Layout]" {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Use":
			use = strings.TrimSpace(v) == "true"
		case "LayoutList":
			layouts = strings.TrimSpace(v)
		case "VariantList":
			variants = strings.TrimSpace(v)
		}
	}
	layout, _, _ := strings.Cut(layouts, ",")
	if !use || layout == "" {
		return "us"
	}
	if variant, _, _ := strings.Cut(variants, ","); variant != "" {
		return layout + "(" + variant + ")"
	}
	return layout
}
