package safety

import "testing"

// [evidence] withhold_typed_text, MCEC_WITHHOLD_TYPED_TEXT and the override merge like every switch.
func TestWithholdTypedTextSetting(t *testing.T) {
	f, err := Parse("config.toml", []byte("[evidence]\nwithhold_typed_text = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if s, err := Resolve(File{}, getenv, Overrides{}); err != nil || s.WithholdTypedText {
		t.Fatalf("default: %v %v", s.WithholdTypedText, err)
	}
	if s, _ := Resolve(f, getenv, Overrides{}); !s.WithholdTypedText {
		t.Fatal("the file's withhold_typed_text = true was not taken")
	}
	env[EnvWithholdText] = "false"
	if s, _ := Resolve(f, getenv, Overrides{}); s.WithholdTypedText {
		t.Fatal("MCEC_WITHHOLD_TYPED_TEXT=false did not win over the file")
	}
	on := true
	if s, _ := Resolve(f, getenv, Overrides{WithholdTypedText: &on}); !s.WithholdTypedText {
		t.Fatal("the override did not win over the environment")
	}
	if _, err := Parse("config.toml", []byte("[evidence]\nwithhold_typed = true\n")); err == nil {
		t.Fatal("a misspelt setting was accepted")
	}
}

// [evidence] keep_frames, MCEC_KEEP_FRAMES and --keep-frames merge the same way.
func TestKeepFramesSetting(t *testing.T) {
	f, err := Parse("config.toml", []byte("[evidence]\nkeep_frames = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if s, _ := Resolve(File{}, getenv, Overrides{}); s.KeepFrames {
		t.Fatal("frames are kept by default")
	}
	if s, _ := Resolve(f, getenv, Overrides{}); !s.KeepFrames {
		t.Fatal("the file's keep_frames = true was not taken")
	}
	env[EnvKeepFrames] = "false"
	if s, _ := Resolve(f, getenv, Overrides{}); s.KeepFrames {
		t.Fatal("MCEC_KEEP_FRAMES=false did not win over the file")
	}
	on := true
	if s, _ := Resolve(f, getenv, Overrides{KeepFrames: &on}); !s.KeepFrames {
		t.Fatal("--keep-frames did not win over the environment")
	}
}

// [takeover] physical and MCEC_PHYSICAL_TAKEOVER: off unless asked for.
func TestPhysicalTakeoverSetting(t *testing.T) {
	f, err := Parse("config.toml", []byte("[takeover]\nphysical = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if s, _ := Resolve(File{}, getenv, Overrides{}); s.PhysicalTakeover {
		t.Fatal("physical take-over is on by default")
	}
	if s, _ := Resolve(f, getenv, Overrides{}); !s.PhysicalTakeover {
		t.Fatal("the file's physical = true was not taken")
	}
	env[EnvPhysicalTake] = "false"
	if s, _ := Resolve(f, getenv, Overrides{}); s.PhysicalTakeover {
		t.Fatal("MCEC_PHYSICAL_TAKEOVER=false did not win over the file")
	}
}
