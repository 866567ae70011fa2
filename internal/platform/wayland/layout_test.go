package wayland

import (
	"bufio"
	"strings"
	"testing"
)

func TestParseKxkbrc(t *testing.T) {
	for in, want := range map[string]string{
		"":                                       "us",
		"[Layout]\nUse=true\nLayoutList=de,us\n": "de",
		"[Layout]\nLayoutList=fr\nVariantList=oss\nUse=true": "fr(oss)",
		"[Layout]\nUse=false\nLayoutList=de\n":               "us",
		"[Other]\nLayoutList=de\n[Layout]\nUse=true\n":       "us",
		"[Layout]\nUse=true\nLayoutList=us\nVariantList=,\n": "us",
	} {
		if got := parseKxkbrc(bufio.NewScanner(strings.NewReader(in))); got != want {
			t.Errorf("parseKxkbrc(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLayoutDependent(t *testing.T) {
	for sym, want := range map[uint32]bool{'a': true, 'Z': true, '1': true, ';': true, ' ': false, 0xff0d: false, 0xffe1: false, 0xff51: false} {
		if layoutDependent(sym) != want {
			t.Errorf("layoutDependent(%#x) = %v", sym, !want)
		}
	}
}
