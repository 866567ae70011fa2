package headless

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// authEntry is one X authority entry as xauth writes it.
func authEntry(family uint16, addr, number, name string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, family)
	for _, f := range [][]byte{[]byte(addr), []byte(number), []byte(name), data} {
		binary.Write(&b, binary.BigEndian, uint16(len(f)))
		b.Write(f)
	}
	return b.Bytes()
}

func TestReadCookie(t *testing.T) {
	cookie := bytes.Repeat([]byte{0xAB}, 16)
	file := filepath.Join(t.TempDir(), "auth")
	content := append(authEntry(256, "host", "0", "XDM-AUTHORIZATION-1", []byte("other")),
		authEntry(256, "host", "0", "MIT-MAGIC-COOKIE-1", cookie)...)
	if err := os.WriteFile(file, content, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readCookie(file)
	if err != nil || !bytes.Equal(got, cookie) {
		t.Fatalf("readCookie = %x, %v; want %x", got, err, cookie)
	}
	if err := os.WriteFile(file, content[:len(content)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readCookie(file); err == nil {
		t.Error("a truncated file gave a cookie")
	}
}

// FuzzReadCookie: any file content gives a cookie of 16 bytes or an error, never a panic.
func FuzzReadCookie(f *testing.F) {
	f.Add(authEntry(256, "h", "0", "MIT-MAGIC-COOKIE-1", make([]byte, 16)))
	f.Add([]byte{0xff, 0xff, 0, 1})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content []byte) {
		file := filepath.Join(dir, "auth")
		if err := os.WriteFile(file, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if c, err := readCookie(file); err == nil && len(c) != 16 {
			t.Fatalf("cookie of %d bytes", len(c))
		}
	})
}
