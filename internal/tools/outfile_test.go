package tools_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
)

// capture's and record's file arguments write only inside the session's artifact directory and
// never over an existing file unless asked (issue 17 row 8).
func TestOutFileArguments(t *testing.T) {
	h := newHarness(t)
	region := map[string]int{"x": 0, "y": 0, "width": 32, "height": 24}
	var status struct {
		SessionID   string `json:"sessionId"`
		ArtifactDir string `json:"artifactDir"`
	}
	h.ok("session-start", map[string]any{}, &status)
	if status.ArtifactDir == "" {
		t.Fatal("no artifact directory")
	}
	capture := func(extra map[string]any) contract.Envelope {
		args := map[string]any{"region": region, "pathOnly": true, "sessionId": status.SessionID}
		for k, v := range extra {
			args[k] = v
		}
		return h.call("capture", args)
	}

	// An unrelated file elsewhere is refused and stays as it was.
	outside := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(outside, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{outside, filepath.Join(filepath.Dir(outside), "new.png"), "../escape.png", filepath.Join(status.ArtifactDir, "..", "up.png")} {
		for _, overwrite := range []bool{false, true} {
			contracttest.Fail(t, capture(map[string]any{"file": file, "overwrite": overwrite}), contract.InvalidArgument, contract.CodePathNotAllowed)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep me" {
		t.Fatalf("the unrelated file now holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(outside), "new.png")); err == nil {
		t.Fatal("a PNG was written outside the artifact directory")
	}

	// A link inside the artifact directory cannot lead the write out.
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(status.ArtifactDir, "out")); err != nil {
		t.Fatal(err)
	}
	contracttest.Fail(t, capture(map[string]any{"file": "out/notes.txt", "overwrite": true}), contract.InvalidArgument, contract.CodePathNotAllowed)

	// The session's own evidence is not the agent's to replace.
	for _, name := range []string{"tool-calls.jsonl", "session.json", "frame-000001-after.jpg"} {
		contracttest.Fail(t, capture(map[string]any{"file": name, "overwrite": true}), contract.InvalidArgument, contract.CodePathNotAllowed)
	}

	// A plain name lands in the artifact directory; a second write needs overwrite.
	var res struct {
		File      string `json:"file"`
		FileError string `json:"fileError"`
	}
	env := capture(map[string]any{"file": "shot.png"})
	if err := env.DecodeResult(&res); err != nil || res.FileError != "" {
		t.Fatalf("capture file shot.png: %+v %v %q", env.Err(), err, res.FileError)
	}
	want := filepath.Join(status.ArtifactDir, "shot.png")
	if got, _ := filepath.EvalSymlinks(res.File); got != mustEval(t, want) {
		t.Fatalf("file %q, want %q", res.File, want)
	}
	first, err := os.ReadFile(want)
	if err != nil || !bytes.HasPrefix(first, []byte("\x89PNG")) {
		t.Fatalf("shot.png: %v", err)
	}
	contracttest.Fail(t, capture(map[string]any{"file": "shot.png"}), contract.InvalidArgument, contract.CodeFileExists)
	if env := capture(map[string]any{"file": want, "overwrite": true}); !env.OK() {
		t.Fatalf("overwrite: %+v", env.Err())
	}

	// record: the same rules, checked before anything is recorded.
	rec := func(file string) contract.Envelope {
		return h.call("record", map[string]any{"region": region, "durationMs": 200, "file": file, "sessionId": status.SessionID})
	}
	contracttest.Fail(t, rec(outside), contract.InvalidArgument, contract.CodePathNotAllowed)
	contracttest.Fail(t, rec("shot.png"), contract.InvalidArgument, contract.CodeFileExists)
	if b, _ := os.ReadFile(outside); string(b) != "keep me" {
		t.Fatalf("record changed the unrelated file: %q", b)
	}
	if env := rec("clip.gif"); !env.OK() {
		t.Fatalf("record clip.gif: %+v", env.Err())
	}
	if _, err := os.Stat(filepath.Join(status.ArtifactDir, "clip.gif")); err != nil {
		t.Fatal(err)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
