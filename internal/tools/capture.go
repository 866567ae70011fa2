package tools

import (
	"context"
	"encoding/base64"
	"path/filepath"
	"slices"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/framepool"
	"github.com/mcec/mcec/internal/imaging"
	"github.com/mcec/mcec/internal/platform"
)

// Region caps (PRODUCT.md §4): checked before anything is allocated.
const (
	maxRegionSide   = 16384
	maxRegionPixels = 64_000_000
)

// Region is a rectangle argument: absolute screen pixels, or window-relative with a window target.
type Region struct {
	X      int `json:"x" jsonschema:"Left edge in pixels."`
	Y      int `json:"y" jsonschema:"Top edge in pixels."`
	Width  int `json:"width" jsonschema:"Width in pixels (1 to 16384)."`
	Height int `json:"height" jsonschema:"Height in pixels (1 to 16384)."`
}

func (r Region) rect() platform.Rect { return platform.Rect(r) }

// check rejects empty and oversized regions before any pixel is touched.
func (r Region) check() error {
	if r.Width <= 0 || r.Height <= 0 {
		return contract.Errorf(contract.CodeBadArguments, "region width and height must be positive, got %dx%d", r.Width, r.Height)
	}
	if r.Width > maxRegionSide || r.Height > maxRegionSide || int64(r.Width)*int64(r.Height) > maxRegionPixels {
		return contract.Errorf(contract.CodeRegionTooLarge,
			"region %dx%d exceeds the caps (%d px a side, %d px in all); capture a smaller region",
			r.Width, r.Height, maxRegionSide, maxRegionPixels)
	}
	return nil
}

type captureArgs struct {
	WindowTarget
	Region      *Region  `json:"region,omitempty" jsonschema:"Rectangle to capture: absolute screen pixels, or relative to the window when a window target is given. Without region and target: the whole screen."`
	MaxWidth    int      `json:"maxWidth,omitempty" jsonschema:"Downscale so the image is at most this wide (never upscales)."`
	Scale       *float64 `json:"scale,omitempty" jsonschema:"Downscale factor in (0,1]."`
	ReturnImage *bool    `json:"returnImage,omitempty" jsonschema:"Return the PNG inline (default true). false is the same as pathOnly."`
	PathOnly    bool     `json:"pathOnly,omitempty" jsonschema:"Return metadata and the artifact path only: no base64, no image block."`
	Link        *bool    `json:"link,omitempty" jsonschema:"Over MCP: answer with a resource_link to the saved PNG (uri; read it with resources/read) instead of base64 and an image block. Default false unless the server runs with --capture-links."`
	File        string   `json:"file,omitempty" jsonschema:"Also write the PNG under this name in the session's artifact directory (a path elsewhere fails path-not-allowed)."`
	Overwrite   bool     `json:"overwrite,omitempty" jsonschema:"Replace file if it exists (otherwise file-exists)."`
	// RestoreMinimized is a pointer so that absent means true.
	RestoreMinimized *bool `json:"restoreMinimized,omitempty" jsonschema:"A minimized window is restored to be captured (warning minimized-window). true (default) leaves it restored; false minimizes it again after the capture, so the capture has no lasting side effect."`
}

type captureResult struct {
	Width         int    `json:"width"`
	Height        int    `json:"height"`
	Encoding      string `json:"encoding"`
	Bytes         int    `json:"bytes"`
	Base64        string `json:"base64,omitempty"`
	Artifact      string `json:"artifact,omitempty"`
	ArtifactError string `json:"artifactError,omitempty"`
	// URI is the artifact's MCP resource URI, when the answer links to it (link).
	URI        string             `json:"uri,omitempty"`
	File       string             `json:"file,omitempty"`
	FileError  string             `json:"fileError,omitempty"`
	BlankCheck imaging.BlankCheck `json:"blankCheck"`
	Window     *WindowInfo        `json:"window,omitempty"`
	Region     *platform.Rect     `json:"region,omitempty"`
}

// captureSummary is the contract's capture-summary: what a later failure's lastObservation shows
// of a capture. It never holds image bytes.
type captureSummary struct {
	Kind          string             `json:"kind"`
	Window        *WindowInfo        `json:"window,omitempty"`
	Region        *platform.Rect     `json:"region,omitempty"`
	Width         int                `json:"width"`
	Height        int                `json:"height"`
	Encoding      string             `json:"encoding"`
	Bytes         int                `json:"bytes"`
	BlankCheck    imaging.BlankCheck `json:"blankCheck"`
	Artifact      string             `json:"artifact,omitempty"`
	ArtifactError string             `json:"artifactError,omitempty"`
}

func captureTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[captureArgs, captureResult]{
		Name:  "capture",
		Title: "Capture pixels",
		Description: "Capture a window (its own pixels, even when covered) or a screen region as PNG, with a blank " +
			"check. The PNG is returned inline (base64 and an image block) unless pathOnly, or linked (link: an MCP " +
			"resource_link to read with resources/read); it is always saved in the session's artifact directory. " +
			"A blank window fails capture-blank with the PNG in partialResult; a blank region only warns. A minimized window is restored to be captured " +
			"(minimized-window); restoreMinimized:false minimizes it again. Use maxWidth/scale and small regions to save tokens.",
		Annotations: catalog.Annotations{ReadOnly: true, OpenWorld: true},
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeFrameAllBlack, contract.CodeFrameMostlyBlank,
			contract.CodeRegionTooLarge, contract.CodeRegionOutOfBounds, contract.CodeCaptureFailed, contract.CodePathNotAllowed,
			contract.CodeFileExists, contract.CodeCompositorUnsupported}),
		Warnings: []contract.Code{contract.WarnMinimizedWindow, contract.WarnRegionClamped, contract.WarnCaptureFallback,
			contract.WarnCaptureBlank},
		Run: func(ctx context.Context, call *catalog.Call, in *captureArgs, resp *catalog.Response) (*captureResult, error) {
			return runCapture(ctx, env, call, in, resp)
		},
	})
}

// runCapture fills out (the call's response) only once the capture is made or blank: a
// warning of an attempt that failed earlier (a region clamped, then the grab failed) is not
// reported.
func runCapture(ctx context.Context, env *Env, call *catalog.Call, in *captureArgs, out *catalog.Response) (*captureResult, error) {
	if in.MaxWidth < 0 {
		return nil, contract.Errorf(contract.CodeBadArguments, "maxWidth must be positive, got %d", in.MaxWidth)
	}
	scale := 1.0
	if in.Scale != nil {
		if *in.Scale <= 0 || *in.Scale > 1 {
			return nil, contract.Errorf(contract.CodeBadArguments, "scale must be in (0,1], got %v", *in.Scale)
		}
		scale = *in.Scale
	}
	var file string
	if in.File != "" {
		// Checked before anything is grabbed: a refused path costs nothing.
		f, err := outFile(call, in.File, in.Overwrite)
		if err != nil {
			return nil, err
		}
		file = f
	}
	resp := &catalog.Response{}
	src, err := newPixelSource(ctx, env, call, in.WindowTarget, in.Region, resp)
	if err != nil {
		return nil, err
	}
	img, wc, err := src.grab(ctx)
	if err != nil {
		return nil, err
	}
	if wc.Restored && in.RestoreMinimized != nil && !*in.RestoreMinimized {
		// The agent asked for no lasting side effect: minimize the window again. A failure
		// costs nothing but the window staying restored, which the warning then says.
		if err := env.Desktop.WindowOp(ctx, src.handle, platform.WindowOp{Kind: platform.OpMinimize}); err != nil {
			src.windowWarnings(ctx, wc, resp, "the window was minimized; it was restored to capture it and could not be minimized again: "+err.Error())
		} else {
			src.windowWarnings(ctx, wc, resp, "the window was minimized; it was restored to capture it and minimized again (restoreMinimized: false)")
		}
	} else {
		src.windowWarnings(ctx, wc, resp, "the window was minimized; it was restored to capture it and stays restored (pass restoreMinimized: false to minimize it again)")
	}
	window, region, isRegion := src.window, src.region, src.isRegion()

	blank := imaging.Blank(img)
	scaled := imaging.Downscale(img, in.MaxWidth, scale)
	// The frame and its PNG, base64 and JSON copies are garbage once the answer is sent: have
	// the runtime give them back to the system when a burst of captures ends.
	framepool.Note(len(img.Pix))
	png, err := imaging.EncodePNG(scaled)
	// Nothing refers to the frame's pixels any more (the PNG is a new buffer): the next capture
	// reuses them.
	framepool.Release(src.frame)
	if err != nil {
		return nil, contract.Errorf(contract.CodeCaptureFailed, "encode PNG: %v", err)
	}
	link := env.CaptureLinks
	if in.Link != nil {
		link = *in.Link
	}
	inline := !in.PathOnly && (in.ReturnImage == nil || *in.ReturnImage) && !link
	res := captureResult{Width: scaled.Bounds().Dx(), Height: scaled.Bounds().Dy(), Encoding: "png", Bytes: len(png),
		BlankCheck: blank, Window: window, Region: region}
	// The artifact is written while the base64 is encoded (png is not written to again); the
	// result waits for both.
	type saved struct {
		path string
		err  error
	}
	artifact := make(chan saved, 1)
	go func() {
		path, err := call.Session.SaveCapture(png)
		artifact <- saved{path, err}
	}()
	if inline {
		res.Base64 = base64.StdEncoding.EncodeToString(png)
	}
	if file != "" {
		res.File = file
		if err := writeOutFile(file, png, in.Overwrite); err != nil {
			res.FileError = err.Error()
		}
	}
	if a := <-artifact; a.err != nil {
		res.ArtifactError = a.err.Error() // no link then: never the bytes inline instead
	} else {
		res.Artifact = a.path
	}
	if link && res.Artifact != "" {
		if uri, err := call.Session.ArtifactURI(res.Artifact); err == nil {
			res.URI = uri
			resp.Link = &catalog.Link{URI: uri, Name: filepath.Base(res.Artifact), MIMEType: "image/png", Size: int64(len(png))}
		}
	}

	if blank.Blank {
		code, what := blankCode(blank)
		if !isRegion {
			cerr := contract.Errorf(code, "the window's capture is %s (%.2f%% one colour): it may not have painted yet, "+
				"be covered by nothing visible, or be off screen; the suspect PNG is in partialResult", what, blank.DominantFraction*100)
			cerr.PartialResult = res
			*out = *resp
			return nil, cerr
		}
		resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnCaptureBlank,
			"the region is %s (%.2f%% one colour); regions may legitimately be empty", what, blank.DominantFraction*100))
	}

	resp.Observation = captureSummary{Kind: "capture-summary", Window: window, Region: region, Width: res.Width,
		Height: res.Height, Encoding: "png", Bytes: len(png), BlankCheck: blank, Artifact: res.Artifact, ArtifactError: res.ArtifactError}
	if inline {
		resp.Image = &catalog.Image{Data: png, MIMEType: "image/png"}
	}
	*out = *resp
	return &res, nil
}

// clampRegion clips want to bounds, warning region-clamped when it had to, and failing
// region-out-of-bounds when nothing is left.
func clampRegion(want, bounds platform.Rect, what string, resp *catalog.Response) (platform.Rect, error) {
	got := want.Intersect(bounds)
	if got.Empty() {
		return platform.Rect{}, contract.Errorf(contract.CodeRegionOutOfBounds,
			"region %+v lies outside %s (%+v)", want, what, bounds)
	}
	if got != want {
		resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnRegionClamped,
			"region %+v was clipped to %s: %+v", want, what, got))
	}
	return got, nil
}
