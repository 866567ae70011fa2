package daemon

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var updateLayout = flag.Bool("update", false, "rewrite README.md's layout block from the package tree")

const readme = "../../README.md"

// layoutEntry is one line of README.md's layout block: a package directory and what it owns.
type layoutEntry struct{ dir, desc string }

// readLayout finds the fenced block under "## Layout" and parses it; before and after are the
// README around the block's lines.
func readLayout(t *testing.T) (entries []layoutEntry, before, after string) {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	h := strings.Index(s, "\n## Layout\n")
	if h < 0 {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	open := strings.Index(s[h:], "```\n")
	if open < 0 {
		t.Fatal("README.md's layout section has no fenced block")
	}
	start := h + open + len("```\n")
	end := strings.Index(s[start:], "```")
	if end < 0 {
		t.Fatal("README.md's layout block is not closed")
	}
	for _, line := range strings.Split(strings.TrimRight(s[start:start+end], "\n"), "\n") {
		dir, desc, _ := strings.Cut(line, " ")
		entries = append(entries, layoutEntry{dir: dir, desc: strings.TrimSpace(desc)})
	}
	return entries, s[:start], s[start+end:]
}

// packageDocs maps every package directory of the module ("internal/tools/") to its doc
// comment's first sentence ("" for a package with test files only).
func packageDocs(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{len .GoFiles}}|{{.Doc}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	docs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 3)
		dir := strings.TrimPrefix(f[0], module) + "/"
		if f[1] != "0" && f[2] == "" {
			t.Errorf("%s has no package doc comment: say what the package owns", dir)
		}
		docs[dir] = f[2]
	}
	return docs
}

// describe shortens a package synopsis for the layout block: without "Package x is", up to the
// first colon.
func describe(doc string) string {
	words := strings.Fields(doc)
	if len(words) > 2 && (words[0] == "Package" || words[0] == "Command") {
		words = words[2:]
		if words[0] == "is" {
			words = words[1:]
		}
	}
	s := strings.Join(words, " ")
	if i := strings.Index(s, ": "); i > 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}

// TestReadmeLayout keeps README.md's layout block in step with the tree: it lists every package
// directory once, in path order, each with what it owns. With -update it is rewritten: lines
// of packages that remain keep their words, new packages get their doc's synopsis, packages
// that went are dropped.
func TestReadmeLayout(t *testing.T) {
	docs := packageDocs(t)
	entries, before, after := readLayout(t)
	var want []string
	for dir := range docs {
		want = append(want, dir)
	}
	// Path order: a directory before its children and before its longer-named siblings
	// (cmd/mcec/ before cmd/mcec-bench/).
	slices.SortFunc(want, func(a, b string) int {
		return strings.Compare(strings.ReplaceAll(a, "/", "\x00"), strings.ReplaceAll(b, "/", "\x00"))
	})
	var have []string
	old := map[string]string{}
	for _, e := range entries {
		have = append(have, e.dir)
		old[e.dir] = e.desc
	}
	if !*updateLayout {
		if !slices.Equal(have, want) {
			for _, d := range want {
				if !slices.Contains(have, d) {
					t.Errorf("README.md's layout lacks %s", d)
				}
			}
			for _, d := range have {
				if _, ok := docs[d]; !ok {
					t.Errorf("README.md's layout lists %s, which is not a package", d)
				}
			}
			t.Errorf("README.md's layout is not the package tree in path order; run go test ./internal/daemon -run TestReadmeLayout -update")
		}
		return
	}
	width := 0
	for _, d := range want {
		width = max(width, len(d))
	}
	var b strings.Builder
	b.WriteString(before)
	for _, d := range want {
		desc := old[d]
		if desc == "" {
			desc = describe(docs[d])
		}
		fmt.Fprintf(&b, "%-*s  %s\n", width, d, desc)
	}
	b.WriteString(after)
	if err := os.WriteFile(readme, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
