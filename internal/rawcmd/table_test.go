package rawcmd

import (
	"errors"
	"testing"
)

func TestFileErrors(t *testing.T) {
	base := Builtins([]string{"query"})
	tests := []struct {
		name, text string
		line       int
	}{
		{"syntax", "a = 1\nb = = 2\n", 2},
		{"unknown setting", "[commands.x]\nmacro = [\"chars:a\"]\n\n[commands.y]\nkeys = \"a\"\n", 4},
		{"both", "[commands.x]\nmacro = [\"chars:a\"]\nprogram = [\"xterm\"]\n", 1},
		{"bad step", "\n[commands.x]\nmacro = [\"mouse:fly\"]\n", 2},
		{"redefine prefix", "[commands.\"chars:\"]\nmacro = [\"enter\"]\n", 1},
		{"toggle unknown", "[commands.nothing]\nenabled = false\n", 1},
		{"pacing", "pacing_ms = -1\n", 1},
		{"empty program", "[commands.p]\nprogram = []\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFile("c.toml", []byte(tt.text), base)
			var fe *FileError
			if !errors.As(err, &fe) || fe.Line != tt.line {
				t.Errorf("error %v, want one on line %d", err, tt.line)
			}
		})
	}
}
