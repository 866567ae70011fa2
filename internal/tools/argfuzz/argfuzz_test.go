package argfuzz

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/tools"
)

// FuzzToolArgs feeds random JSON to every registered tool's argument check and decoding, the
// part of each handler that runs before the desktop is touched: it must never panic, and every
// refusal must be a contract error of category invalid-argument that makes a valid envelope.
func FuzzToolArgs(f *testing.F) {
	cat := catalog.New()
	tools.Register(cat, &tools.Env{})
	all := cat.Tools()
	for _, seed := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"window":"Factory"}`, `{"handle":12345678901234567890}`, `{"pid":-1}`,
		`{"region":{"x":0,"y":0,"width":1e309,"height":2}}`, `{"element":{"ref":"x","index":-3}}`,
		`{"maxDepth":"3"}`, `{"unknownArg":1}`, `{"text":"\u0000\ud800"}`, `{"action":"setvalue","text":null}`,
		`{"command":"chars:hi"}`, `{"argv":["xterm",1]}`, `{"timeout":1.5e3}`, `{"a":` + "\xff" + `}`,
	} {
		for i := range all {
			f.Add(uint8(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		tool := all[int(which)%len(all)]
		err := catalog.DecodeForTest(tool, json.RawMessage(args))
		if err == nil {
			return
		}
		var ce *contract.Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s(%q): a plain error %v, want a contract error", tool.Name, args, err)
		}
		if cat, _ := contract.CategoryOf(ce.Code); cat != contract.InvalidArgument {
			t.Fatalf("%s(%q): %s (%s), want invalid-argument", tool.Name, args, ce.Code, cat)
		}
		contracttest.CheckEnvelope(t, contract.Failure("s-fuzz", ce))
	})
}
