package tasks_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/headless"
	_ "github.com/mcec/mcec/internal/xgbext" // xgb logs nothing to stderr
)

// The independent read-backs: what the task did, read without asking mcec.

// ocrWindow grabs the pixels of the top-level window whose title contains title straight from the
// X server (its own connection, GetImage of the screen area the window covers), scales them 2x
// and runs tesseract on them. It is the test's own eyes, sharing no code with get-text.
func (x *run) ocrWindow(title string) (string, error) {
	var img image.Image
	var err error
	if x.k.d.Private.Kind() == headless.Wayland {
		img, err = x.grabWayland(title)
	} else {
		img, err = x.grabX(title)
	}
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(x.dir, "ocr-*.png")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return "", err
	}
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tesseract", f.Name(), "-", "--psm", "6").Output()
	if err != nil {
		return "", fmt.Errorf("tesseract: %v", err)
	}
	if strings.TrimSpace(string(out)) == "" {
		// One uniform block reads nothing of a window of framed groups (gtk-demo's Button
		// Boxes); tesseract's own page segmentation does.
		if out, err = exec.CommandContext(ctx, "tesseract", f.Name(), "-", "--psm", "3").Output(); err != nil {
			return "", fmt.Errorf("tesseract: %v", err)
		}
	}
	return string(out), nil
}

// grabX grabs the window titled title through X, not through mcec.
func (x *run) grabX(title string) (image.Image, error) {
	c, err := xgb.NewConnDisplay(x.k.d.Private.Display())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	root := xproto.Setup(c).DefaultScreen(c).Root
	rect, err := windowRect(c, root, title)
	if err != nil {
		return nil, err
	}
	return grab(c, root, rect)
}

// grabWayland grabs the window titled title on a Wayland desktop with sway's own tools, not
// through mcec: swaymsg says where it is, grim reads its pixels.
func (x *run) grabWayland(title string) (image.Image, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "swaymsg", "-s", x.k.d.Private.SwaySocket(), "-t", "get_tree", "-r").Output()
	if err != nil {
		return nil, fmt.Errorf("swaymsg: %v", err)
	}
	type node struct {
		Name          string `json:"name"`
		PID           int    `json:"pid"`
		Rect          struct{ X, Y, Width, Height int }
		Nodes         []node `json:"nodes"`
		FloatingNodes []node `json:"floating_nodes"`
	}
	var root node
	if err := json.Unmarshal(out, &root); err != nil {
		return nil, err
	}
	var found *node
	var walk func(n *node)
	walk = func(n *node) {
		if found == nil && n.PID > 0 && strings.Contains(strings.ToLower(n.Name), strings.ToLower(title)) {
			found = n
		}
		for i := range n.Nodes {
			walk(&n.Nodes[i])
		}
		for i := range n.FloatingNodes {
			walk(&n.FloatingNodes[i])
		}
	}
	walk(&root)
	if found == nil {
		return nil, fmt.Errorf("no window titled %q in sway's tree", title)
	}
	r := found.Rect
	cmd := exec.CommandContext(ctx, "grim", "-g", fmt.Sprintf("%d,%d %dx%d", r.X, r.Y, r.Width, r.Height), "-t", "png", "-")
	cmd.Env = x.k.d.Private.Env()
	shot, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("grim: %v", err)
	}
	return png.Decode(bytes.NewReader(shot))
}

// windowRect finds a client window by title through the window manager's client list and
// returns its area on the screen.
func windowRect(c *xgb.Conn, root xproto.Window, title string) (image.Rectangle, error) {
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
		if err != nil {
			return 0
		}
		return r.Atom
	}
	list, err := xproto.GetProperty(c, false, root, atom("_NET_CLIENT_LIST"), xproto.AtomWindow, 0, 1024).Reply()
	if err != nil {
		return image.Rectangle{}, err
	}
	netName, utf8 := atom("_NET_WM_NAME"), atom("UTF8_STRING")
	var titles []string
	for i := 0; i+4 <= len(list.Value); i += 4 {
		w := xproto.Window(xgb.Get32(list.Value[i:]))
		p, err := xproto.GetProperty(c, false, w, netName, utf8, 0, 1024).Reply()
		if err != nil || len(p.Value) == 0 {
			p, err = xproto.GetProperty(c, false, w, xproto.AtomWmName, xproto.AtomString, 0, 1024).Reply()
			if err != nil {
				continue
			}
		}
		name := string(p.Value)
		titles = append(titles, name)
		if !strings.Contains(name, title) {
			continue
		}
		g, err := xproto.GetGeometry(c, xproto.Drawable(w)).Reply()
		if err != nil {
			return image.Rectangle{}, err
		}
		tr, err := xproto.TranslateCoordinates(c, w, root, 0, 0).Reply()
		if err != nil {
			return image.Rectangle{}, err
		}
		r := image.Rect(int(tr.DstX), int(tr.DstY), int(tr.DstX)+int(g.Width), int(tr.DstY)+int(g.Height))
		s := xproto.Setup(c).DefaultScreen(c)
		return r.Intersect(image.Rect(0, 0, int(s.WidthInPixels), int(s.HeightInPixels))), nil
	}
	return image.Rectangle{}, fmt.Errorf("no window titled like %q among %q", title, titles)
}

// grab reads r of the root window (24-bit TrueColor, 32 bits per pixel) scaled 2x.
func grab(c *xgb.Conn, root xproto.Window, r image.Rectangle) (image.Image, error) {
	if r.Empty() {
		return nil, errors.New("the window is off the screen")
	}
	rep, err := xproto.GetImage(c, xproto.ImageFormatZPixmap, xproto.Drawable(root), int16(r.Min.X), int16(r.Min.Y),
		uint16(r.Dx()), uint16(r.Dy()), 0xffffffff).Reply()
	if err != nil {
		return nil, err
	}
	w, h := r.Dx(), r.Dy()
	if len(rep.Data) < w*h*4 {
		return nil, fmt.Errorf("GetImage returned %d bytes for %dx%d", len(rep.Data), w, h)
	}
	img := image.NewRGBA(image.Rect(0, 0, 2*w, 2*h))
	for y := 0; y < 2*h; y++ {
		for x := 0; x < 2*w; x++ {
			s := ((y/2)*w + x/2) * 4
			d := img.PixOffset(x, y)
			img.Pix[d], img.Pix[d+1], img.Pix[d+2], img.Pix[d+3] = rep.Data[s+2], rep.Data[s+1], rep.Data[s], 0xff
		}
	}
	return img, nil
}

// ocrHas checks that the window's text, as the test's own OCR reads it, has a line holding want
// as a word of its own.
func (x *run) ocrHas(title, want string) error {
	text, err := x.ocrWindow(title)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(text, "\n") {
		for _, w := range strings.Fields(line) {
			if strings.Trim(w, ".,;:|[](){}'\"‘’“”") == want {
				return nil
			}
		}
	}
	return fmt.Errorf("the test's OCR of %q does not show %q: %q", title, want, text)
}

// fileHas checks that a file exists and contains every one of want.
func fileHas(path string, want ...string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for _, w := range want {
		if !strings.Contains(string(b), w) {
			return fmt.Errorf("%s does not contain %q: %q", filepath.Base(path), w, cut(string(b), 600))
		}
	}
	return nil
}

// zipEntry reads one member of a zip file (an OpenDocument file's content.xml).
func zipEntry(path, member string) (string, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return "", err
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name != member {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return "", err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return string(b), err
	}
	return "", fmt.Errorf("%s has no %s", path, member)
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// formServer serves the suite's web form on 127.0.0.1 and records every submission exactly as
// the browser sent it: the page reports what it got to the test, not to mcec.
type formServer struct {
	srv *http.Server
	url string

	mu   sync.Mutex
	got  []url.Values
	page []byte
}

func startFormServer(page []byte) (*formServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &formServer{url: "http://" + ln.Addr().String() + "/", page: page}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(s.page)
	})
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.got = append(s.got, r.URL.Query())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><title>Order received</title><h1>Order received</h1>`)
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *formServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
}

// submitted checks that exactly one submission arrived and holds want (a missing key is "").
func (s *formServer) submitted(want map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.got) != 1 {
		return fmt.Errorf("the form server got %d submissions, want 1: %v", len(s.got), s.got)
	}
	for k, w := range want {
		if g := s.got[0].Get(k); g != w {
			return fmt.Errorf("the form server got %s=%q, want %q (all: %v)", k, g, w, s.got[0])
		}
	}
	return nil
}
