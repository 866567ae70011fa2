package tasks_test

import (
	"fmt"
	"strings"
	"time"
)

// The steps an agent takes, as small constructors so that each task reads as its list of calls.

// win targets a window by a substring of its title, as an agent would after `windows`.
func win(title string) obj { return obj{"window": title} }

// with copies target and adds kv.
func with(target obj, kv obj) obj {
	out := obj{}
	for k, v := range target {
		out[k] = v
	}
	for k, v := range kv {
		out[k] = v
	}
	return out
}

// launch starts a program through the launch tool (its window may come later: appears waits).
func launch(path string, args ...string) step {
	if args == nil {
		args = []string{}
	}
	return step{tool: "launch", args: obj{"path": path, "arguments": args, "timeout": 30000}}
}

// appears waits for a window whose title contains title.
func appears(title string) step {
	return step{tool: "windows", args: obj{"window": title, "condition": "appears", "timeout": 40000},
		want: wantSatisfied(true)}
}

// gone waits for a window whose title contains title to close.
func gone(title string) step {
	return step{tool: "windows", args: obj{"window": title, "condition": "disappears", "timeout": 10000},
		want: wantSatisfied(true)}
}

func wantSatisfied(want bool) func(any) error {
	return func(res any) error {
		s, _ := lookup(res, "satisfied")
		if s != want {
			return fmt.Errorf("satisfied is %v, want %v", s, want)
		}
		return nil
	}
}

// waitFor waits for an element of the target window.
func waitFor(target, el obj) step {
	return step{tool: "wait-for", args: with(target, obj{"element": el, "timeout": 20000}), want: wantFound}
}

// waitGone waits for an element of the target window to disappear.
func waitGone(target, el obj) step {
	return step{tool: "wait-for", args: with(target, obj{"element": el, "condition": "disappears", "timeout": 10000}),
		want: func(res any) error {
			if f, _ := lookup(res, "found"); f == true {
				return fmt.Errorf("found is %v", f)
			}
			return nil
		}}
}

// find looks an element up and saves it as the variable name.
func find(target, el obj, name string) step {
	return step{tool: "find", args: with(target, obj{"element": el}), want: wantFound, save: map[string]string{name: "element"}}
}

func wantFound(res any) error {
	if f, _ := lookup(res, "found"); f != true {
		return fmt.Errorf("found is %v", f)
	}
	return nil
}

// invoke acts on an element through the accessibility API.
func invoke(target, el obj, action string, text ...string) step {
	a := with(target, obj{"element": el, "action": action})
	if len(text) > 0 {
		a["text"] = text[0]
	}
	return step{tool: "invoke", args: a}
}

// click clicks an element's centre with real input.
func click(target, el obj) step {
	return step{tool: "click", args: with(target, obj{"at": el})}
}

// keys sends one raw command (keys, chords, chars:TEXT).
func keys(command string) step {
	return step{tool: "send_command", args: obj{"command": command}}
}

// focus brings a window to the foreground.
func focus(target obj) step { return step{tool: "focus", args: target} }

// getText reads a window's text by OCR and checks that the agent could read want in it.
func getText(target obj, want string) step {
	return step{tool: "get-text", args: target, retry: 5 * time.Second, want: func(res any) error {
		t, _ := lookup(res, "text")
		if s, _ := t.(string); !strings.Contains(s, want) {
			return fmt.Errorf("the text read does not contain %q", want)
		}
		return nil
	}}
}

// ocrWord finds a word in get-text's word boxes and saves it (its box) as name: the path an
// agent takes to click a control of an app without a tree.
func ocrWord(target obj, word, name string) step {
	return step{tool: "get-text", args: target, retry: 5 * time.Second, want: func(res any) error {
		words, err := lookup(res, "words")
		if err != nil {
			return fmt.Errorf("no word boxes in the result (%v)", err)
		}
		list, _ := words.([]any)
		for _, w := range list {
			if t, _ := lookup(w, "text"); t == word {
				return nil
			}
		}
		return fmt.Errorf("no word %q among %d word boxes", word, len(list))
	}, save: map[string]string{name: "words"}}
}

// clickWord clicks the centre of the word box saved by ocrWord (window-relative or absolute, as
// get-text reported it: the box's own coordinates are passed back unchanged).
func clickWord(target obj, words, word string) step {
	return step{tool: "click", argsFn: func(v vars) (obj, error) {
		list, _ := v[words].([]any)
		for _, w := range list {
			if t, _ := lookup(w, "text"); t != word {
				continue
			}
			m, _ := w.(map[string]any)
			x, xok := m["x"].(float64)
			y, yok := m["y"].(float64)
			wd, wok := m["width"].(float64)
			ht, hok := m["height"].(float64)
			if !xok || !yok || !wok || !hok {
				return nil, fmt.Errorf("word box %v has no x, y, width, height", m)
			}
			return obj{"at": obj{"x": int(x + wd/2), "y": int(y + ht/2)}}, nil
		}
		return nil, fmt.Errorf("no word %q saved", word)
	}}
}
