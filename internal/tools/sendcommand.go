package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/rawcmd"
	"github.com/mcec/mcec/internal/rawcmd/queue"
)

type sendCommandArgs struct {
	Command string `json:"command" jsonschema:"One raw command line, e.g. chars:hello, ctrl-a, key:ctrl+shift+t, shiftdown:ctrl, mouse:lbc, mouse:drag,10,10,200,10, pause:200, mcec:cmds, a commands.toml macro, or an agent tool with JSON arguments: query {\"pid\":123}."`
	settleArg
}

type sendCommandResult struct {
	Command string `json:"command"`
	// Seq is the command's place in the run order.
	Seq   uint64 `json:"seq"`
	Steps int    `json:"steps"`
	// Output is what the command printed: mcec:ver/time/cmds text, program starts, and for agent
	// tools their envelopes as JSON text.
	Output string `json:"output"`
	// Result is the tool's own result when the command was one agent tool call.
	Result json.RawMessage `json:"result,omitempty"`
	// Effect is what typing, keys or mouse input changed in the foreground window.
	Effect *Effect `json:"effect,omitempty"`
	// withhold marks typed text for the evidence (typedText); never on the wire.
	withhold catalog.Withhold
}

// Withheld implements catalog.Withholder.
func (r sendCommandResult) Withheld() catalog.Withhold { return r.withhold }

// CommandRunner is the raw command engine (rawcmd.Engine): its current table and its queue.
type CommandRunner interface {
	Table() *rawcmd.Table
	Run(ctx context.Context, line string, origin queue.Origin) (queue.Result, error)
}

func sendCommandTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[sendCommandArgs, sendCommandResult]{
		Name:  "send_command",
		Title: "Send a raw command",
		Description: "Run one raw command line (docs/raw-commands.md) through the server's command queue and return its " +
			"output once it has run (at most 30 s; after that it fails send-command-timeout while the command goes on). " +
			"The escape hatch: literal typing in any script (chars:), keys by X keysym, VK_ or plain names, chords, " +
			"held modifiers (shiftdown:/shiftup:), raw mouse (mouse:), pauses, the operator's macros, and the other tools " +
			"by name. Unknown and disabled commands are refused before anything runs; a macro is all-or-nothing.",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true},
		Warnings:    []contract.Code{contract.WarnNoObservedEffect, contract.WarnEffectUnobservable},
		Errors: []contract.Code{contract.CodeUnknownCommand, contract.CodeCommandDisabled, contract.CodeCommandDropped,
			contract.CodeSendCommandTimeout, contract.CodeDisplayUnavailable, contract.CodeLaunchFailed},
		Run: func(ctx context.Context, call *catalog.Call, in *sendCommandArgs, resp *catalog.Response) (*sendCommandResult, error) {
			if env.Commands == nil {
				return nil, contract.Errorf(contract.CodeCommandDisabled, "raw commands are not available on this server")
			}
			typed := typedText(ctx, env, in.Command)
			settle, err := in.duration()
			if err != nil {
				return nil, withholdFailure(err, in.Command, typed)
			}
			var obs *observer
			if synthesizesInput(env.Commands.Table(), in.Command) {
				// Keys and text go to the focused element of the active window: watch those.
				if ws, err := env.Desktop.Windows(ctx); err == nil {
					obs = watchAction(ctx, env.Desktop, foregroundWindow(ws), targetFocus)
				}
			}
			res, err := env.Commands.Run(ctx, in.Command, queue.OriginAgent)
			if err != nil {
				if obs != nil {
					obs.stop()
				}
				return nil, withholdFailure(platformError(err), in.Command, typed)
			}
			out := sendCommandResult{Command: res.Command, Seq: res.Seq, Steps: res.Steps, Output: res.Output, withhold: typed}
			var warnings []contract.Warning
			if obs != nil {
				out.Effect, warnings = settled(ctx, obs, settle, fmt.Sprintf("send_command %q", clipCommand(in.Command)))
			}
			if res.Tool != nil && res.Tool.OK() {
				b, err := json.Marshal(res.Tool.Result())
				if err != nil {
					return nil, err
				}
				out.Result = b
				warnings = append(warnings, res.Tool.Warnings()...)
			}
			resp.Warnings = warnings
			return &out, nil
		},
	})
}

// synthesizesInput reports a command line that types, presses keys or moves the mouse: its
// effect is observed. Held modifiers (shiftdown:/shiftup:), pauses, meta commands, programs and
// tool calls change nothing on their own. Nor does a mouse button pressed and held (mouse:down),
// and waiting for its effect would make it a long press: GTK 3's scale then drags in fine steps
// (the separate down, move, up of a drag did not move a slider once the wait grew to 1 s).
func synthesizesInput(t *rawcmd.Table, line string) bool {
	cmd, err := rawcmd.Parse(line)
	if err != nil {
		return false
	}
	switch cmd.Kind {
	case rawcmd.KindChars, rawcmd.KindKey:
		return true
	case rawcmd.KindMouse:
		return cmd.Mouse.Op != rawcmd.MouseDown
	case rawcmd.KindName:
		e, ok := t.Lookup(cmd.Name)
		return ok && (e.Kind == rawcmd.EntryChord || e.Kind == rawcmd.EntryKeysym || e.Kind == rawcmd.EntryMacro)
	}
	return false
}

// clipCommand shortens a command line for a warning. Typed text is never repeated: it may be a
// password.
func clipCommand(line string) string {
	if text, ok := strings.CutPrefix(line, "chars:"); ok {
		return fmt.Sprintf("chars:(%d characters)", utf8.RuneCountInString(text))
	}
	if r := []rune(line); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return line
}

// passwordRole is the AT-SPI role of a password entry.
const passwordRole = "password text"

// typedText is the evidence note of a chars: command: its text is withheld always when the
// focused element of the foreground window is a password field (read before typing, bounded,
// so a hung application costs at most a second), else where the operator withholds all typed
// text. Other commands carry no text in their arguments.
func typedText(ctx context.Context, env *Env, line string) catalog.Withhold {
	cmd, err := rawcmd.Parse(line)
	if err != nil || cmd.Kind != rawcmd.KindChars {
		return catalog.Withhold{}
	}
	// The command and its echo, and the focused field read back after typing.
	w := catalog.Withhold{Fields: []string{"command", "effect.target.value", "effect.target.was.value"}}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if ws, err := env.Desktop.Windows(ctx); err == nil {
		if fg := foregroundWindow(ws); fg.ProcessID > 0 {
			if el, err := env.Desktop.Focused(ctx, fg.ProcessID); err == nil && strings.EqualFold(el.Node.Role, passwordRole) {
				w.Reason = "password field"
			}
		}
	}
	return w
}

// withholdFailure keeps the note of a failed chars: command, whose arguments are recorded
// too: the error carries the command, its text shown only by its length (the session keeps the
// error as lastError), as its partial result for the recorder to find the note on.
func withholdFailure(err error, line string, w catalog.Withhold) error {
	var ce *contract.Error
	if len(w.Fields) == 0 || !errors.As(err, &ce) || ce.PartialResult != nil {
		return err
	}
	c := *ce
	c.PartialResult = sendCommandResult{Command: clipCommand(line), withhold: w}
	return &c
}
