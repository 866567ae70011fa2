package calldesc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDescribeNamesTargetsNeverText(t *testing.T) {
	for _, c := range []struct{ args, action, target string }{
		{`{"action":"setvalue","element":{"role":"entry","name":"Password"},"text":"hunter2","process":"app"}`, "setvalue", `entry "Password" in app`},
		{`{"element":{"ref":"1.4:~17"},"handle":4194310}`, "", "ref 1.4:~17 in window 0x400006"},
		{`{"command":"chars:secret","pid":42}`, "", "in pid 42"},
		{`not json`, "", ""},
	} {
		action, target := Describe(json.RawMessage(c.args))
		if action != c.action || target != c.target {
			t.Errorf("Describe(%s) = %q, %q; want %q, %q", c.args, action, target, c.action, c.target)
		}
		if strings.Contains(target, "hunter2") || strings.Contains(target, "secret") {
			t.Errorf("Describe(%s) leaks typed text: %q", c.args, target)
		}
	}
	if got := Clip(strings.Repeat("x", 100)); len([]rune(got)) != 60 || !strings.HasSuffix(got, "…") {
		t.Errorf("Clip: %q", got)
	}
}

func TestWhereFromValueAndRawJSON(t *testing.T) {
	raw := json.RawMessage(`{"at":[10,20],"element":{"x":1,"y":2,"width":30,"height":40}}`)
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, r := range []any{raw, decoded} {
		p, b := Where(r)
		if p == nil || *p != [2]int{10, 20} || b == nil || *b != [4]int{1, 2, 30, 40} {
			t.Errorf("Where(%T) = %v, %v", r, p, b)
		}
	}
	if p, b := Where(json.RawMessage(`{"to":[3,4],"element":{"x":1,"y":2,"width":0,"height":5}}`)); p == nil || *p != [2]int{3, 4} || b != nil {
		t.Errorf("a drag's end, a 0-wide element: %v, %v", p, b)
	}
}
