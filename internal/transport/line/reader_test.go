package line

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcec/mcec/internal/rawcmd"
)

func TestLineReader(t *testing.T) {
	var replies []byte
	r := &lineReader{reply: func(b []byte) { replies = append(replies, b...) }}
	var lines []string
	feed := func(s string) {
		for _, ev := range r.feed([]byte(s)) {
			if ev.tooLong {
				lines = append(lines, "TOOLONG:"+ev.line)
			} else {
				lines = append(lines, ev.line)
			}
		}
	}
	feed("\xff\xfd\x01\xff\xfb\x03cha")                    // IAC DO ECHO, IAC WILL SGA, then data
	feed("rs:a\r\nmcec:")                                  // CRLF
	feed("ver\x00\xff")                                    // NUL; an IAC split from its verb
	feed("\xfd")                                           // … DO
	feed("\x18key:x\xff\xfa\x18\x01\xff\xf0\xff\xffy\n\n") // option 24; SB … SE; escaped 255
	feed("chars:" + strings.Repeat("ж", rawcmd.MaxLine) + "\rpause:1\r")
	want := []string{"chars:a", "mcec:ver", "key:x\xffy", "TOOLONG:chars:", "pause:1"}
	if !slices.Equal(lines, want) {
		t.Errorf("lines %q, want %q", lines, want)
	}
	if wantR := "\xff\xfc\x01\xff\xfe\x03\xff\xfc\x18"; string(replies) != wantR {
		t.Errorf("telnet replies %q, want %q", replies, wantR)
	}
}
