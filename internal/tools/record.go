package tools

import (
	"context"
	"errors"
	"image"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/progress"
	"github.com/mcec/mcec/internal/screencast"
)

// defaultOneShot is the length of a one-shot recording without durationMs.
const defaultOneShot = 3 * time.Second

type recordArgs struct {
	WindowTarget
	Region     *Region `json:"region,omitempty" jsonschema:"Rectangle to record: absolute screen pixels, or relative to the window when a window target is given. Without region and target: the whole screen."`
	Action     string  `json:"action,omitempty" jsonschema:"oneshot (default: record durationMs and return the GIF), start (begin recording and return at once), or stop (end the recording and return the GIF)."`
	FPS        int     `json:"fps,omitempty" jsonschema:"Frames per second (default 5, at most 30)."`
	DurationMs int     `json:"durationMs,omitempty" jsonschema:"oneshot: how long to record (default 3000). start: stop by itself after this long. At most 60000."`
	MaxWidth   int     `json:"maxWidth,omitempty" jsonschema:"Downscale frames to at most this width (default and at most 1280)."`
	File       string  `json:"file,omitempty" jsonschema:"Name the GIF: a file in the session's artifact directory (a path elsewhere fails path-not-allowed)."`
	Overwrite  bool    `json:"overwrite,omitempty" jsonschema:"Replace file if it exists (otherwise file-exists)."`
}

// recordTarget says what is being recorded.
type recordTarget struct {
	Window *WindowInfo    `json:"window,omitempty"`
	Region *platform.Rect `json:"region,omitempty"`
}

type recordResult struct {
	// State is "recording" after start, "stopped" once the GIF is written.
	State      string `json:"state"`
	File       string `json:"file"`
	Frames     int    `json:"frames"`
	DurationMs int64  `json:"durationMs"`
	FPS        int    `json:"fps"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Bytes      int    `json:"bytes"`
	// StopReason: stopped, duration, max-duration, max-frames, max-memory or grab-failed.
	StopReason   string       `json:"stopReason,omitempty"`
	StopDetail   string       `json:"stopDetail,omitempty"`
	SkippedTicks int          `json:"skippedTicks,omitempty"`
	Target       recordTarget `json:"target"`
	// MaxDurationMs (start) is when the recording stops by itself.
	MaxDurationMs int64 `json:"maxDurationMs,omitempty"`
}

// Recordings is the server's one recording slot (screencast.Manager).
type Recordings interface {
	Limits() screencast.Limits
	Begin(ctx context.Context, grab screencast.Grab, o screencast.Options) (rec, discarded *screencast.Recording, err error)
	Take() (screencast.Result, error)
	Release(rec *screencast.Recording)
}

func recordTool(env *Env) *catalog.Tool {
	if env.Recordings == nil {
		env.Recordings = screencast.NewManager(screencast.DefaultLimits)
	}
	return catalog.Define(catalog.Spec[recordArgs, recordResult]{
		Name:  "record",
		Title: "Record an animated GIF",
		Description: "Record a window (its own pixels) or a screen region as a looping animated GIF. oneshot records " +
			"durationMs (3000) and returns the file; start returns at once and stop returns the file. fps 5 by " +
			"default; clamped to 30 fps, 60 s, 600 frames and 1280 px wide (warning limits-clamped). One recording " +
			"at a time per server. A recording that stopped at a limit is returned by the next stop. The GIF is " +
			"written to the session's artifact directory (file names it there); no image bytes are returned.",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true}, // start takes the one slot and discards an unfetched recording
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeActionUnknown, contract.CodeRecordingInProgress,
			contract.CodeNoRecording, contract.CodeRegionTooLarge, contract.CodeRegionOutOfBounds, contract.CodeCaptureFailed,
			contract.CodeRecordNoFrames, contract.CodeRecordWriteFailed, contract.CodeEmergencyStopped, contract.CodePathNotAllowed,
			contract.CodeFileExists}),
		Warnings: []contract.Code{contract.WarnLimitsClamped, contract.WarnUnfetchedRecordingDiscarded, contract.WarnRegionClamped,
			contract.WarnMinimizedWindow, contract.WarnCaptureFallback},
		Run: func(ctx context.Context, call *catalog.Call, in *recordArgs, resp *catalog.Response) (*recordResult, error) {
			switch in.Action {
			case "", "oneshot", "start":
				return startRecording(ctx, env, call, in, resp)
			case "stop":
				if !in.WindowTarget.empty() || in.Region != nil {
					return nil, contract.Errorf(contract.CodeBadArguments, "stop takes no target or region: it stops the running recording")
				}
				res, err := env.Recordings.Take()
				if errors.Is(err, screencast.ErrNone) {
					return nil, contract.Errorf(contract.CodeNoRecording, "no recording is running or waiting to be fetched; start one with action start")
				}
				return recordResponse(res, resp)
			}
			return nil, contract.Errorf(contract.CodeActionUnknown, "action %q is not oneshot, start or stop", in.Action)
		},
	})
}

func startRecording(ctx context.Context, env *Env, call *catalog.Call, in *recordArgs, resp *catalog.Response) (*recordResult, error) {
	switch {
	case in.FPS < 0:
		return nil, contract.Errorf(contract.CodeBadArguments, "fps must be positive, got %d", in.FPS)
	case in.DurationMs < 0:
		return nil, contract.Errorf(contract.CodeBadArguments, "durationMs must be positive, got %d", in.DurationMs)
	case in.MaxWidth < 0:
		return nil, contract.Errorf(contract.CodeBadArguments, "maxWidth must be positive, got %d", in.MaxWidth)
	}
	oneShot := in.Action != "start"
	o := screencast.Options{FPS: in.FPS, Duration: time.Duration(in.DurationMs) * time.Millisecond, MaxWidth: in.MaxWidth}
	if oneShot && o.Duration == 0 {
		o.Duration = defaultOneShot
	}
	limits := env.Recordings.Limits()
	if changed := limits.Clamp(&o); len(changed) > 0 {
		resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnLimitsClamped,
			"clamped to the operator limits (%d fps, %v, %d frames, %d px wide): %s",
			limits.MaxFPS, limits.MaxDuration, limits.MaxFrames, limits.MaxWidth, strings.Join(changed, "; ")))
	}
	src, err := newPixelSource(ctx, env, call, in.WindowTarget, in.Region, resp)
	if err != nil {
		return nil, err
	}
	if o.Path, err = recordPath(call, in.File, in.Overwrite); err != nil {
		return nil, err
	}
	target := recordTarget{Window: src.window, Region: src.region}
	o.Meta = target

	var first platform.WindowCapture
	firstDone := false
	grab := func(ctx context.Context) (*image.RGBA, error) {
		img, wc, err := src.grab(ctx)
		if !firstDone {
			first, firstDone = wc, true // Start grabs the first frame on this goroutine
		}
		return img, err
	}
	rec, discarded, err := env.Recordings.Begin(ctx, grab, o)
	switch {
	case errors.Is(err, screencast.ErrInProgress):
		return nil, contract.Errorf(contract.CodeRecordingInProgress,
			"a recording is already running; stop it first (action stop) — only one recording runs at a time")
	case errors.Is(err, screencast.ErrNoFrames):
		var ce *contract.Error
		if errors.As(err, &ce) && ce.Category != contract.Internal {
			return nil, ce // window-closed, region-out-of-bounds…: more useful than record-no-frames
		}
		return nil, contract.Errorf(contract.CodeRecordNoFrames, "the recording got no frame: %v", err)
	case err != nil:
		return nil, contract.Errorf(contract.CodeRecordNoFrames, "the recording could not start: %v", err)
	}
	src.windowWarnings(ctx, first, resp, "the window was minimized; it was restored to record it")
	target.Window = src.window
	if discarded != nil {
		resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnUnfetchedRecordingDiscarded,
			"an earlier recording stopped at a limit and was never fetched with stop; its result is discarded (its file stays on disk)"))
	}

	if !oneShot {
		w, h := rec.Size()
		limit := o.Duration
		if limit == 0 {
			limit = limits.MaxDuration
		}
		return &recordResult{State: "recording", File: o.Path, Frames: 1, FPS: o.FPS, Width: w, Height: h,
			Target: target, MaxDurationMs: limit.Milliseconds()}, nil
	}
	_, stop := progress.Track(ctx, "recording", o.Duration)
	select {
	case <-rec.Done():
	case <-ctx.Done(): // the caller gave up: stop early, the GIF is still written
	}
	stop()
	res := rec.Stop()
	env.Recordings.Release(rec)
	return recordResponse(res, resp)
}

// recordPath is where the GIF goes: file inside the session's artifact directory (outFile), or
// a fresh artifact there.
func recordPath(call *catalog.Call, file string, overwrite bool) (string, error) {
	if file != "" {
		return outFile(call, file, overwrite)
	}
	path, err := call.Session.ArtifactPath("record", "gif")
	if err != nil {
		return "", contract.Errorf(contract.CodeRecordWriteFailed, "no place for the GIF (give file): %v", err)
	}
	return path, nil
}

// recordResponse makes the result of a finished recording (its observation in resp).
func recordResponse(r screencast.Result, resp *catalog.Response) (*recordResult, error) {
	target, _ := r.Meta.(recordTarget)
	if errors.Is(r.WriteErr, screencast.ErrDiscarded) {
		return nil, contract.Errorf(contract.CodeEmergencyStopped,
			"the operator's emergency stop discarded the recording (nothing was written); do not retry — tell the user")
	}
	if r.WriteErr != nil {
		return nil, contract.Errorf(contract.CodeRecordWriteFailed, "the recording of %d frames could not be written to %s: %v",
			r.Frames, r.File, r.WriteErr)
	}
	res := recordResult{State: "stopped", File: r.File, Frames: r.Frames, DurationMs: r.Duration.Milliseconds(), FPS: r.FPS,
		Width: r.Width, Height: r.Height, Bytes: r.Bytes, StopReason: r.StopReason, StopDetail: r.StopDetail,
		SkippedTicks: r.SkippedTicks, Target: target}
	resp.Observation = observation("record", res)
	return &res, nil
}
