package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/rawcmd"
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
}

func sendCommandTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[sendCommandArgs]{
		Name:  "send_command",
		Title: "Send a raw command",
		Description: "Run one raw command line (docs/raw-commands.md) through the server's command queue and return its " +
			"output once it has run (at most 30 s; after that it fails send-command-timeout while the command goes on). " +
			"The escape hatch: literal typing in any script (chars:), keys by X keysym, VK_ or plain names, chords, " +
			"held modifiers (shiftdown:/shiftup:), raw mouse (mouse:), pauses, the operator's macros, and the other tools " +
			"by name. Unknown and disabled commands are refused before anything runs; a macro is all-or-nothing.",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true},
		Result:      sendCommandResult{},
		Warnings:    []contract.Code{contract.WarnNoObservedEffect},
		Errors: []contract.Code{contract.CodeUnknownCommand, contract.CodeCommandDisabled, contract.CodeCommandDropped,
			contract.CodeSendCommandTimeout, contract.CodeDisplayUnavailable, contract.CodeLaunchFailed},
		Run: func(ctx context.Context, call *catalog.Call, in *sendCommandArgs) (*catalog.Response, error) {
			if env.Commands == nil {
				return nil, contract.Errorf(contract.CodeCommandDisabled, "raw commands are not available on this server")
			}
			settle, err := in.duration()
			if err != nil {
				return nil, err
			}
			var obs *observer
			if synthesizesInput(env.Commands.Table(), in.Command) {
				// Keys and text go to the focused element of the active window: watch those.
				if ws, err := env.Desktop.Windows(ctx); err == nil {
					obs = watchAction(ctx, env.Desktop, foregroundWindow(ws), targetFocus)
				}
			}
			res, err := env.Commands.Run(ctx, in.Command, rawcmd.OriginAgent)
			if err != nil {
				if obs != nil {
					obs.stop()
				}
				return nil, platformError(err)
			}
			out := sendCommandResult{Command: res.Command, Seq: res.Seq, Steps: res.Steps, Output: res.Output}
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
			return &catalog.Response{Result: out, Warnings: warnings}, nil
		},
	})
}

// synthesizesInput reports a command line that types, presses keys or moves the mouse: its
// effect is observed. Held modifiers (shiftdown:/shiftup:), pauses, meta commands, programs and
// tool calls change nothing on their own.
func synthesizesInput(t *rawcmd.Table, line string) bool {
	cmd, err := rawcmd.Parse(line)
	if err != nil {
		return false
	}
	switch cmd.Kind {
	case rawcmd.KindChars, rawcmd.KindKey, rawcmd.KindMouse:
		return true
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
