package cli

import (
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mcec/mcec/internal/safety"
)

// optBool is a boolean flag that remembers whether it was given, so an absent flag leaves the
// configuration file's and the environment's value in force.
type optBool struct{ v *bool }

func (o *optBool) String() string {
	if o.v == nil {
		return "false"
	}
	return strconv.FormatBool(*o.v)
}

func (o *optBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	o.v = &b
	return nil
}

func (o *optBool) Type() string     { return "bool" }
func (o *optBool) IsBoolFlag() bool { return true }

// safetyFlags are the gate switches every command that starts a desktop shares.
type safetyFlags struct {
	config               string
	allowAgent, allowAll optBool
	allowProvisioning    optBool
	http, tcp            optBool // serve's --tcp (and MCEC_HTTP/[http] for the listener)
	keepFrames           optBool
	physicalTakeover     optBool
	resolved             *safety.Settings
}

func (f *safetyFlags) register(pf *pflag.FlagSet) {
	pf.StringVar(&f.config, "config", "", "configuration file (default $XDG_CONFIG_HOME/mcec/config.toml; env MCEC_CONFIG); flags and MCEC_* variables override it")
	boolVar(pf, &f.allowAgent, "allow-agent", "enable the standard tool set on an attached desktop (env MCEC_ALLOW_AGENT; docs/safety.md)")
	boolVar(pf, &f.allowAll, "allow-all", "enable every tool and raw command, launch and raw input included (env MCEC_ALLOW_ALL)")
	boolVar(pf, &f.allowProvisioning, "allow-provisioning", "allow isolated instances to be provisioned (env MCEC_PROVISIONING)")
	boolVar(pf, &f.physicalTakeover, "physical-takeover", "a person's own key or button press on the desktop takes control from the agents until they idle 10 s (env MCEC_PHYSICAL_TAKEOVER; [takeover] physical)")
	boolVar(pf, &f.keepFrames, "keep-frames", "keep a small frame of the screen before and after every acting call in the session's evidence, for mcec view (env MCEC_KEEP_FRAMES; [evidence] keep_frames)")
}

// boolVar registers an optBool that, like a plain bool flag, needs no value ("--allow-all").
func boolVar(fs *pflag.FlagSet, v *optBool, name, usage string) {
	fs.VarPF(v, name, "", usage).NoOptDefVal = "true"
}

// settings loads the configuration file and merges it with the environment and the flags
// (default < file < environment < flags); the result is computed once.
func (f *safetyFlags) settings() (safety.Settings, error) {
	if f.resolved != nil {
		return *f.resolved, nil
	}
	path, required := f.config, f.config != ""
	if path == "" {
		if env := os.Getenv(safety.EnvConfig); env != "" {
			path, required = env, true
		} else {
			path = safety.DefaultPath()
		}
	}
	file, err := safety.Load(path, required)
	if err != nil {
		return safety.Settings{}, usageError{err}
	}
	s, err := safety.Resolve(file, os.Getenv, safety.Overrides{AllowAgent: f.allowAgent.v, AllowAll: f.allowAll.v,
		Provisioning: f.allowProvisioning.v, HTTP: f.http.v, TCP: f.tcp.v, KeepFrames: f.keepFrames.v, PhysicalTakeover: f.physicalTakeover.v})
	if err != nil {
		return safety.Settings{}, usageError{err}
	}
	f.resolved = &s
	return s, nil
}
