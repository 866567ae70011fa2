package contract_test

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/mcec/mcec/contract"
)

// counted is a result that counts its encodings.
type counted struct{ n *atomic.Int32 }

func (c counted) MarshalJSON() ([]byte, error) {
	c.n.Add(1)
	return []byte(`{"big":true}`), nil
}

// A query's envelope is ≈ 50 KB of JSON that the evidence recorder and the transport both need:
// it is encoded once, for the envelope and its copies, and again only for another session.
func TestMarshalJSONEncodesOnce(t *testing.T) {
	var n atomic.Int32
	env := contract.Success("s-1", counted{&n})
	a, err := env.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	cp := env
	b, _ := cp.MarshalJSON()
	c, _ := json.Marshal(env)
	if n.Load() != 1 || string(a) != string(b) || string(c) != string(a) {
		t.Fatalf("%d encodings: %s / %s / %s", n.Load(), a, b, c)
	}
	if cap(a) != len(a) {
		t.Error("the shared bytes have spare capacity: a caller's append would write into them")
	}
	other, _ := env.WithSession("s-2").MarshalJSON()
	if n.Load() != 2 || string(other) != `{"sessionId":"s-2","ok":true,"result":{"big":true}}` {
		t.Errorf("WithSession: %d encodings, %s", n.Load(), other)
	}
	var decoded contract.Envelope
	if err := json.Unmarshal(a, &decoded); err != nil {
		t.Fatal(err)
	}
	if d, _ := decoded.MarshalJSON(); string(d) != string(a) {
		t.Errorf("decoded envelope re-encodes as %s", d)
	}
}
