package rawcmd

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/mcec/mcec/contract"
)

// MaxTree is the most commands one submitted command may expand into (every macro step counts,
// nested macros too). A bigger tree is dropped whole.
const MaxTree = 50

// EntryKind says what a table entry does.
type EntryKind string

// The kinds of entry.
const (
	EntryPrefix  EntryKind = "prefix"  // chars:, key:, shiftdown:, shiftup:, mouse:, pause:
	EntryMeta    EntryKind = "meta"    // mcec:ver, mcec:time, mcec:cmds, mcec:exit
	EntryChord   EntryKind = "chord"   // a named key or chord (enter, VK_RETURN, ctrl-a, close)
	EntryKeysym  EntryKind = "keysym"  // "keysym": any X keysym name as a command (Return, F5 …)
	EntryMacro   EntryKind = "macro"   // a sequence of commands (commands.toml)
	EntryProgram EntryKind = "program" // starts a program (commands.toml)
	EntryTool    EntryKind = "tool"    // an agent tool, called with its JSON arguments
)

// Entry is one command of the table.
type Entry struct {
	Name    string
	Kind    EntryKind
	Enabled bool
	Keys    []string // chord: X keysym names
	Macro   []string // macro: command lines
	Program []string // program: argv
	// Source is "built-in", "tool" or the commands file that defined or changed it.
	Source string
}

// Table is an immutable command table. Names match exactly first, then in any case.
type Table struct {
	entries map[string]*Entry // by name
	folded  map[string]*Entry // by lower-case name
	order   []string
	// Pacing is the pause between two commands the dispatcher runs (commands.toml pacing_ms).
	Pacing time.Duration
}

// Lookup finds an entry by name.
func (t *Table) Lookup(name string) (*Entry, bool) {
	if e, ok := t.entries[name]; ok {
		return e, true
	}
	e, ok := t.folded[strings.ToLower(name)]
	return e, ok
}

// Entries lists the entries in table order (built-ins, tools, then the file's additions).
func (t *Table) Entries() []*Entry {
	out := make([]*Entry, 0, len(t.order))
	for _, n := range t.order {
		out = append(out, t.entries[n])
	}
	return out
}

func (t *Table) add(e *Entry) {
	if _, ok := t.entries[e.Name]; !ok {
		t.order = append(t.order, e.Name)
	}
	t.entries[e.Name] = e
	t.folded[strings.ToLower(e.Name)] = e
}

func (t *Table) clone() *Table {
	c := &Table{entries: map[string]*Entry{}, folded: map[string]*Entry{}, Pacing: t.Pacing}
	for _, n := range t.order {
		e := *t.entries[n]
		c.add(&e)
	}
	return c
}

// Builtins returns the built-in table plus one entry per agent tool.
func Builtins(tools []string) *Table {
	t := &Table{entries: map[string]*Entry{}, folded: map[string]*Entry{}}
	for _, p := range []string{"chars:", "key:", "shiftdown:", "shiftup:", "mouse:", "pause:"} {
		t.add(&Entry{Name: p, Kind: EntryPrefix, Enabled: true, Source: "built-in"})
	}
	for _, m := range []string{"mcec:ver", "mcec:time", "mcec:cmds", "mcec:exit"} {
		t.add(&Entry{Name: m, Kind: EntryMeta, Enabled: true, Source: "built-in"})
	}
	for _, n := range sortedKeys(namedChords) {
		t.add(&Entry{Name: n, Kind: EntryChord, Enabled: true, Keys: namedChords[n], Source: "built-in"})
	}
	for _, n := range sortedKeys(namedKeys) {
		t.add(&Entry{Name: n, Kind: EntryChord, Enabled: true, Keys: []string{namedKeys[n]}, Source: "built-in"})
	}
	for _, n := range sortedKeys(vkKeys) {
		t.add(&Entry{Name: n, Kind: EntryChord, Enabled: true, Keys: []string{vkKeys[n]}, Source: "built-in"})
	}
	t.add(&Entry{Name: "keysym", Kind: EntryKeysym, Enabled: true, Source: "built-in"})
	for _, n := range tools {
		t.add(&Entry{Name: n, Kind: EntryTool, Enabled: true, Source: "tool"})
	}
	return t
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// fileFormat is commands.toml.
type fileFormat struct {
	PacingMS int                  `toml:"pacing_ms"`
	Commands map[string]fileEntry `toml:"commands"`
}

type fileEntry struct {
	Enabled *bool    `toml:"enabled"`
	Macro   []string `toml:"macro"`
	Program []string `toml:"program"`
}

// FileError is a commands file that could not be used; Line is 0 when unknown.
type FileError struct {
	Path string
	Line int
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s line %d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

var entryName = regexp.MustCompile(`^[^\s:]+(:[^\s:]+)?:?$`)

// Load reads a commands file over base. The file's entries override base's: `enabled` alone
// switches an existing entry; `macro` or `program` defines (or replaces) a command. A broken file
// is a *FileError naming the line.
func Load(path string, base *Table) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Msg: err.Error()}
	}
	return parseFile(path, data, base)
}

func parseFile(path string, data []byte, base *Table) (*Table, error) {
	var f fileFormat
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &FileError{Path: path, Line: pe.Position.Line, Msg: pe.Message}
		}
		return nil, &FileError{Path: path, Msg: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		return nil, &FileError{Path: path, Line: headerLine(data, k), Msg: fmt.Sprintf("unknown setting %q (an entry takes enabled, macro or program)", k.String())}
	}
	if f.PacingMS < 0 || time.Duration(f.PacingMS)*time.Millisecond > MaxPause {
		return nil, &FileError{Path: path, Line: keyLine(data, "pacing_ms"), Msg: "pacing_ms must be from 0 to 60000"}
	}
	t := base.clone()
	t.Pacing = time.Duration(f.PacingMS) * time.Millisecond
	for _, name := range sortedKeys(f.Commands) {
		fe := f.Commands[name]
		line := headerLine(data, toml.Key{"commands", name})
		fail := func(format string, args ...any) (*Table, error) {
			return nil, &FileError{Path: path, Line: line, Msg: fmt.Sprintf("[commands.%q]: ", name) + fmt.Sprintf(format, args...)}
		}
		if !entryName.MatchString(name) {
			return fail("a command name has no spaces and at most one colon inside")
		}
		if fe.Macro != nil && fe.Program != nil {
			return fail("give macro or program, not both")
		}
		enabled := fe.Enabled == nil || *fe.Enabled
		old, exists := t.Lookup(name)
		switch {
		case fe.Macro != nil:
			// A macro over MaxTree is accepted here and dropped whole when submitted (and logged).
			if len(fe.Macro) == 0 {
				return fail("a macro needs at least one command")
			}
			for i, step := range fe.Macro {
				if _, err := Parse(step); err != nil {
					return fail("macro step %d: %v", i+1, err)
				}
			}
			if exists && old.Kind == EntryPrefix {
				return fail("%s takes an argument; it can be enabled or disabled, not redefined", old.Name)
			}
			t.add(&Entry{Name: name, Kind: EntryMacro, Enabled: enabled, Macro: fe.Macro, Source: path})
		case fe.Program != nil:
			if len(fe.Program) == 0 || fe.Program[0] == "" {
				return fail("program needs the program and its arguments, e.g. [\"xterm\", \"-e\", \"top\"]")
			}
			if exists && old.Kind == EntryPrefix {
				return fail("%s takes an argument; it can be enabled or disabled, not redefined", old.Name)
			}
			t.add(&Entry{Name: name, Kind: EntryProgram, Enabled: enabled, Program: fe.Program, Source: path})
		default:
			if !exists {
				return fail("no such command to enable or disable; define it with macro or program")
			}
			e := *old
			e.Enabled = enabled
			e.Source = path
			t.add(&e)
		}
	}
	return t, nil
}

// headerLine finds the line of an entry's table header (1-based; 0 when not found), so errors
// found after decoding still point into the file.
func headerLine(data []byte, k toml.Key) int {
	if len(k) < 2 {
		if len(k) == 1 {
			return keyLine(data, k[0])
		}
		return 0
	}
	name := k[1]
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.ReplaceAll(strings.TrimSpace(l), " ", "")
		if !strings.HasPrefix(l, "[") {
			continue
		}
		if strings.HasPrefix(l, "[commands."+name+"]") || strings.HasPrefix(l, "[commands.\""+name+"\"]") ||
			strings.HasPrefix(l, "[commands.'"+name+"']") {
			return i + 1
		}
	}
	return 0
}

func keyLine(data []byte, key string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if k, _, ok := strings.Cut(strings.TrimSpace(l), "="); ok && strings.TrimSpace(k) == key {
			return i + 1
		}
	}
	return 0
}

// Step is one leaf of a resolved command tree.
type Step struct {
	Line  string
	Cmd   Command
	Entry *Entry
	Keys  []string // X keysym names (key:, chords, shiftdown:/shiftup:)
}

// Plan is a resolved command: its leaves in run order.
type Plan struct {
	Line  string
	Steps []Step
	nodes int // commands in the tree (macro steps included)
}

// NeedsInput reports whether a leaf synthesizes input (and so takes the input gate).
func (s *Step) NeedsInput() bool {
	switch s.Cmd.Kind {
	case KindChars, KindKey, KindShiftDown, KindShiftUp, KindMouse:
		return true
	}
	return s.Entry.Kind == EntryChord || s.Entry.Kind == EntryKeysym
}

// ErrTooBig is a tree over MaxTree.
var ErrTooBig = errors.New("tree too big")

// Resolve turns a line into a plan: every name looked up, every macro expanded, every key name
// checked. known says whether a name is an X keysym (nil: any name is).
func (t *Table) Resolve(line string, known func(string) bool) (*Plan, error) {
	p := &Plan{Line: line}
	if err := t.expand(p, line, known, nil); err != nil {
		return nil, err
	}
	return p, nil
}

func (t *Table) expand(p *Plan, line string, known func(string) bool, stack []string) error {
	where := ""
	if len(stack) > 0 {
		where = fmt.Sprintf(" (in macro %s)", strings.Join(stack, " → "))
	}
	cmd, err := Parse(line)
	if err != nil {
		return contract.Errorf(contract.CodeBadArguments, "%v%s", err, where)
	}
	e, ok := t.Lookup(cmd.Name)
	if !ok && cmd.Kind == KindName && cmd.Args == nil && known != nil && known(cmd.Name) {
		e, ok = t.Lookup("keysym")
		if ok {
			e = &Entry{Name: cmd.Name, Kind: EntryKeysym, Enabled: e.Enabled, Keys: []string{cmd.Name}, Source: e.Source}
		}
	}
	if !ok {
		return contract.Errorf(contract.CodeUnknownCommand, "%q is not a command%s; mcec:cmds lists them", cmd.Name, where)
	}
	if !e.Enabled {
		return contract.Errorf(contract.CodeCommandDisabled, "command %s is disabled%s (enable it in commands.toml)", e.Name, where)
	}
	if cmd.Args != nil && e.Kind != EntryTool {
		return contract.Errorf(contract.CodeBadArguments, "%s takes no arguments; only agent tools do%s", e.Name, where)
	}
	// The submitted macro itself is not counted: a macro of MaxTree steps fits.
	if e.Kind != EntryMacro || len(stack) > 0 {
		if p.nodes++; p.nodes > MaxTree {
			return ErrTooBig
		}
	}
	s := Step{Line: line, Cmd: cmd, Entry: e}
	switch {
	case cmd.Kind == KindKey || cmd.Kind == KindShiftDown || cmd.Kind == KindShiftUp:
		for _, k := range cmd.Keys {
			sym, ok := keyName(k, known)
			if !ok {
				return contract.Errorf(contract.CodeBadArguments, "%s: unknown key name %q%s", strings.TrimSuffix(cmd.Name, ":"), k, where)
			}
			s.Keys = append(s.Keys, sym)
		}
	case e.Kind == EntryChord || e.Kind == EntryKeysym:
		s.Keys = e.Keys
	case e.Kind == EntryMacro:
		if slices.Contains(stack, e.Name) {
			return contract.Errorf(contract.CodeBadArguments, "macro %s calls itself%s", e.Name, where)
		}
		for _, l := range e.Macro {
			if err := t.expand(p, l, known, append(stack, e.Name)); err != nil {
				return err
			}
		}
		return nil
	}
	p.Steps = append(p.Steps, s)
	return nil
}

// Acts reports whether the entry types, clicks or starts a program: what the consent freeze and
// the operator's policy judge. Meta commands and pause: only observe or wait; macros and tool
// calls are containers whose leaves are judged themselves.
func (e *Entry) Acts() bool {
	switch e.Kind {
	case EntryProgram, EntryChord, EntryKeysym:
		return true
	case EntryPrefix:
		return e.Name != "pause:"
	}
	return false
}
