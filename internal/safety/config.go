// Package safety holds mcec's gates and audit: which tools and raw commands the agent may use
// (configuration file, flags and MCEC_* variables, merged in one place), the check the
// dispatcher and the raw command engine ask before anything runs, and the AGENT-AUDIT log line
// written for every agent action and every refusal.
package safety

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"github.com/BurntSushi/toml"

	"github.com/mcec/mcec/internal/paths"
)

// File is config.toml. Every field is optional: an absent switch keeps its default.
type File struct {
	Agent struct {
		// Enabled is the agent surface as a whole.
		Enabled *bool `toml:"enabled"`
		// AllowAll grants the gated tools (launch) and raw input and program commands too.
		AllowAll *bool `toml:"allow_all"`
	} `toml:"agent"`
	// Tools switches single tools by name: enabled = true grants a gated one, false switches
	// a standard one off.
	Tools map[string]Switch `toml:"tools"`
	// RawCommands does the same for raw commands by table name ("chars:", "ctrl-a", a macro's
	// leaves, "keysym" for bare X keysym names).
	RawCommands  map[string]Switch `toml:"raw_commands"`
	HTTP         Switch            `toml:"http"`
	TCP          Switch            `toml:"tcp"`
	Provisioning Switch            `toml:"provisioning"`
	// EmergencyStop configures the stop's hotkey (internal/estop).
	EmergencyStop struct {
		Enabled *bool   `toml:"enabled"`
		Hotkey  *string `toml:"hotkey"`
	} `toml:"emergency_stop"`
	// Consent configures who may answer request-command-access besides the operator.
	Consent struct {
		// ViaClient lets the agent's MCP client ask its human (elicitation, form mode), of
		// lower trust than the operator's own consent. Off by default.
		ViaClient *bool `toml:"via_client"`
	} `toml:"consent"`
	// Takeover configures the operator's take-over (internal/takeover).
	Takeover struct {
		// Physical lets a person's own key or button press on the desktop take control from the
		// agents until they idle. Off by default.
		Physical *bool `toml:"physical"`
	} `toml:"takeover"`
	// Evidence configures what session evidence keeps (internal/evidence).
	Evidence struct {
		// WithholdTypedText leaves all typed and clipboard text out of the evidence, not only
		// what went into password fields.
		WithholdTypedText *bool `toml:"withhold_typed_text"`
		// KeepFrames keeps a small frame of the screen before and after every acting call.
		KeepFrames *bool `toml:"keep_frames"`
	} `toml:"evidence"`
}

// Switch is one table with an enabled flag.
type Switch struct {
	Enabled *bool `toml:"enabled"`
}

// DefaultPath is $XDG_CONFIG_HOME/mcec/config.toml, or ~/.config/mcec/config.toml.
func DefaultPath() string { return paths.Config("config.toml") }

// Load reads a configuration file. A missing file is an empty configuration unless required
// (the operator named it with --config or MCEC_CONFIG). Unknown settings are errors: a typo
// such as allow_al must not silently leave a switch at its default.
func Load(path string, required bool) (File, error) {
	var f File
	if path == "" {
		return f, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	return Parse(path, data)
}

// Parse decodes config.toml's bytes; path only names the file in errors.
func Parse(path string, data []byte) (File, error) {
	var f File
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&f)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return File{}, fmt.Errorf("%s line %d: %s", path, pe.Position.Line, pe.Message)
		}
		return File{}, fmt.Errorf("%s: %v", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return File{}, fmt.Errorf("%s: unknown setting %q", path, und[0].String())
	}
	return f, nil
}

// Overrides are the command line's switches; nil means the flag was not given.
type Overrides struct {
	AllowAgent, AllowAll, HTTP, TCP, Provisioning *bool
	WithholdTypedText, KeepFrames                 *bool
	PhysicalTakeover                              *bool
}

// Settings are the merged switches. Agent is nil when neither file, environment nor flag said
// anything: the desktop mode decides (Policy).
type Settings struct {
	Agent        *bool
	AllowAll     bool
	Tools        map[string]bool
	RawCommands  map[string]bool
	HTTP         bool
	TCP          bool
	Provisioning bool
	// EmergencyStop is the stop's hotkey. The zero value is the default: on, ctrl+alt+shift+s.
	EmergencyStop EmergencyStop
	// WithholdTypedText: the evidence keeps no typed or clipboard text at all (default off:
	// only text typed into password fields is withheld).
	WithholdTypedText bool
	// KeepFrames: the evidence keeps a small JPEG of the screen before and after every acting
	// call, for the trace viewer (default off: it costs two grabs a call).
	KeepFrames bool
	// PhysicalTakeover: a person's key or button press on the desktop (not XTEST) takes control
	// from the agents, as the console's Take control does, until they idle.
	PhysicalTakeover bool
	// ConsentViaClient: request-command-access may ask the human at the agent's MCP client
	// (elicitation) when the operator's prompter is not there or has not answered yet.
	ConsentViaClient bool
}

// EmergencyStop configures the emergency stop's hotkey. Disabling it only stops reading the
// hotkey: the latch, `mcec emergency-stop` and `mcec rearm` keep working.
type EmergencyStop struct {
	HotkeyDisabled bool
	// Hotkey is the chord ("ctrl+alt+shift+s"); "" is the default. internal/estop parses it.
	Hotkey string
}

// Environment variables that override the file (and are overridden by flags).
const (
	EnvConfig       = "MCEC_CONFIG"
	EnvAllowAgent   = "MCEC_ALLOW_AGENT"
	EnvAllowAll     = "MCEC_ALLOW_ALL"
	EnvHTTP         = "MCEC_HTTP"
	EnvTCP          = "MCEC_TCP"
	EnvProvisioning = "MCEC_PROVISIONING"
	EnvWithholdText = "MCEC_WITHHOLD_TYPED_TEXT"
	EnvKeepFrames   = "MCEC_KEEP_FRAMES"
	EnvPhysicalTake = "MCEC_PHYSICAL_TAKEOVER"
	EnvConsentVia   = "MCEC_CONSENT_VIA_CLIENT"
)

// Resolve merges default < file < environment < flags, the one place where that precedence
// lives. getenv is os.Getenv in production; a malformed boolean variable is an error.
func Resolve(f File, getenv func(string) string, o Overrides) (Settings, error) {
	s := Settings{HTTP: true, Tools: map[string]bool{}, RawCommands: map[string]bool{}}
	var errs []error
	pick := func(file *bool, env string, flag *bool, def bool) (bool, bool) {
		v, set := def, false
		if file != nil {
			v, set = *file, true
		}
		if raw := getenv(env); raw != "" {
			b, err := strconv.ParseBool(raw)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: want true or false", env, raw))
			} else {
				v, set = b, true
			}
		}
		if flag != nil {
			v, set = *flag, true
		}
		return v, set
	}
	if v, set := pick(f.Agent.Enabled, EnvAllowAgent, o.AllowAgent, false); set {
		s.Agent = &v
	}
	s.AllowAll, _ = pick(f.Agent.AllowAll, EnvAllowAll, o.AllowAll, false)
	if s.AllowAll && s.Agent == nil {
		// Granting everything implies the surface itself; an explicit "off" still wins.
		on := true
		s.Agent = &on
	}
	s.HTTP, _ = pick(f.HTTP.Enabled, EnvHTTP, o.HTTP, true)
	s.TCP, _ = pick(f.TCP.Enabled, EnvTCP, o.TCP, false)
	s.Provisioning, _ = pick(f.Provisioning.Enabled, EnvProvisioning, o.Provisioning, false)
	s.WithholdTypedText, _ = pick(f.Evidence.WithholdTypedText, EnvWithholdText, o.WithholdTypedText, false)
	s.KeepFrames, _ = pick(f.Evidence.KeepFrames, EnvKeepFrames, o.KeepFrames, false)
	s.PhysicalTakeover, _ = pick(f.Takeover.Physical, EnvPhysicalTake, o.PhysicalTakeover, false)
	s.ConsentViaClient, _ = pick(f.Consent.ViaClient, EnvConsentVia, nil, false)
	if e := f.EmergencyStop.Enabled; e != nil {
		s.EmergencyStop.HotkeyDisabled = !*e
	}
	if h := f.EmergencyStop.Hotkey; h != nil {
		s.EmergencyStop.Hotkey = *h
	}
	for n, sw := range f.Tools {
		if sw.Enabled != nil {
			s.Tools[n] = *sw.Enabled
		}
	}
	for n, sw := range f.RawCommands {
		if sw.Enabled != nil {
			s.RawCommands[n] = *sw.Enabled
		}
	}
	return s, errors.Join(errs...)
}
