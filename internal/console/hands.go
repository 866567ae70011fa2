package console

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcec/mcec/internal/takeover"
)

// Hands is the operator's input from the page while they have control: it reaches the desktop
// through the input gate the take-over holds for them, under the emergency stop.
type Hands interface {
	Click(ctx context.Context, x, y int, right bool, count int) error
	Chord(ctx context.Context, keys ...string) error
	Type(ctx context.Context, text string) error
}

// inputRequest is POST /api/input's body: one click (screen coordinates), one key chord (X
// keysym names, modifiers first) or one piece of text.
type inputRequest struct {
	Kind  string   `json:"kind"` // click, keys, text
	X     int      `json:"x"`
	Y     int      `json:"y"`
	Right bool     `json:"right"`
	Count int      `json:"count"`
	Keys  []string `json:"keys"`
	Text  string   `json:"text"`
}

// Bounds of one operator input.
const (
	inputLimit   = 10 * time.Second
	maxInputText = 1000
	maxChordKeys = 6
)

// operatorInput sends the operator's input, only while they have control. What they type is
// never logged.
func (s *Server) operatorInput(w http.ResponseWriter, r *http.Request) {
	var in inputRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8192)).Decode(&in); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if s.opts.Control.Status().Holder != takeover.Operator {
		http.Error(w, "take control first: the agents have it", http.StatusConflict)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), inputLimit)
	defer cancel()
	var err error
	switch in.Kind {
	case "click":
		if in.Count != 2 {
			in.Count = 1
		}
		err = s.opts.Hands.Click(ctx, in.X, in.Y, in.Right, in.Count)
	case "keys":
		if len(in.Keys) == 0 || len(in.Keys) > maxChordKeys {
			http.Error(w, "keys: 1 to 6 X keysym names", http.StatusBadRequest)
			return
		}
		err = s.opts.Hands.Chord(ctx, in.Keys...)
	case "text":
		if in.Text == "" || len([]rune(in.Text)) > maxInputText {
			http.Error(w, "text: 1 to 1000 characters", http.StatusBadRequest)
			return
		}
		err = s.opts.Hands.Type(ctx, in.Text)
	default:
		http.Error(w, "kind: click, keys or text", http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, "input failed: "+err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
