package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// consoleLogin finds the one-time login link serve prints on stderr.
var consoleLogin = regexp.MustCompile(`(http://127\.0\.0\.1:\d+/login\?t=\S+)`)

// benchConsole measures the operator console's live view on the 1280x800 desktop: what it costs
// while nobody watches (nothing may be grabbed), its frame rate and mcec's CPU time per frame
// while a terminal scrolls without pause, and what a still screen sends.
func (s *suite) benchConsole() error {
	port, err := freePort()
	if err != nil {
		return err
	}
	serve := command(append(s.env[:len(s.env):len(s.env)], "MCEC_TOKEN=bench-console"), s.opt.Mcec, "serve", "--allow-all",
		"--port", strconv.Itoa(port), "--console", "--console-port", "0", "--log-level", "error")
	stderr, err := serve.StderrPipe()
	if err != nil {
		return err
	}
	p, err := startProc(serve)
	if err != nil {
		return err
	}
	defer p.stop()
	links := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := consoleLogin.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case links <- m[1]:
				default:
				}
			}
		}
	}()
	var login string
	select {
	case login = <-links:
	case <-time.After(30 * time.Second):
		return fmt.Errorf("mcec serve --console printed no login link")
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(login)
	if err != nil {
		return err
	}
	resp.Body.Close()
	base := strings.SplitN(login, "/login", 2)[0]
	stats := func() (grabs, frames int64, err error) {
		resp, err := browser.Get(base + "/api/state")
		if err != nil {
			return 0, 0, err
		}
		defer resp.Body.Close()
		var st struct {
			LiveStats *struct{ Grabs, Frames int64 } `json:"liveStats"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.LiveStats == nil {
			return 0, 0, fmt.Errorf("console state without liveStats: %v", err)
		}
		return st.LiveStats.Grabs, st.LiveStats.Frames, nil
	}

	// Nobody watches: 5 s with the console up and its operator logged in.
	cpu0, err := cpuTime(p.pid())
	if err != nil {
		return err
	}
	time.Sleep(5 * time.Second) // a fixed stretch of nothing, measured as such
	grabs, _, err := stats()
	if err != nil {
		return err
	}
	cpu1, _ := cpuTime(p.pid())
	s.add(row{What: "live view, nobody watching: screen grabs in 5 s", Mcec: strconv.FormatInt(grabs, 10),
		Against: "target", Ref: "0", Target: "0", Met: ptr(grabs == 0),
		Comments: fmt.Sprintf("mcec serve used %s CPU in those 5 s", ms(cpu1-cpu0))})

	// A terminal that scrolls 20 lines a second: every grab differs.
	term, err := startProc(command(s.env, "xterm", "-geometry", "160x50+0+0", "-e", "sh", "-c", "i=0; while :; do i=$((i+1)); echo \"line $i\"; sleep 0.05; done"))
	if err != nil {
		return err
	}
	defer term.stop()
	if _, err := s.waitWindow(map[string]any{"process": "xterm"}); err != nil {
		return err
	}
	busy, err := s.watchLive(browser, base, p.pid(), 10*time.Second)
	if err != nil {
		return err
	}
	s.add(row{What: "live view of a 1280x800 screen that changes all the time: frames/s, 10 s", Mcec: fmt.Sprintf("%.1f /s", busy.fps),
		Against: "target", Ref: "4 /s", Ratio: busy.fps / 4, Target: "≥ 4 /s (it grabs at most 5 /s)", Met: ptr(busy.fps >= 4),
		Comments: fmt.Sprintf("%.0f KB a frame", busy.frameKB)})
	s.add(row{What: "live view: mcec's CPU time per frame sent (grab, compare, JPEG)", Mcec: ms(busy.cpuPerFrame),
		Against: "target", Ref: "100 ms", Ratio: float64(100*time.Millisecond) / float64(busy.cpuPerFrame), Target: "< 100 ms (half a core at 5 /s)",
		Met: ptr(busy.cpuPerFrame < 100*time.Millisecond), Comments: fmt.Sprintf("%.0f%% of one core while watched", busy.cpuShare*100)})
	term.stop()

	// A still screen: an idle terminal over the whole of it hides the widget factory's spinner.
	curtain, err := startProc(command(s.env, "xterm", "-geometry", "400x200+0+0", "-e", "sleep", "600"))
	if err != nil {
		return err
	}
	defer curtain.stop()
	if _, err := s.waitWindow(map[string]any{"process": "xterm"}); err != nil {
		return err
	}
	still, err := s.watchLive(browser, base, p.pid(), 10*time.Second)
	if err != nil {
		return err
	}
	s.add(row{What: "live view of a still screen: new frames sent in 10 s", Mcec: strconv.Itoa(still.frames), Against: "target", Ref: "≤ 3",
		Target: "≤ 3 (the first, one keep-alive, a straggling change)", Met: ptr(still.frames <= 3),
		Comments: fmt.Sprintf("a frame's one repeat not counted; %.0f%% of one core for the grabs and comparisons", still.cpuShare*100)})
	return nil
}

type liveWatch struct {
	frames      int
	fps         float64
	frameKB     float64
	cpuPerFrame time.Duration
	cpuShare    float64
}

// watchLive reads the live view as a page would for d and says what came and what it cost mcec.
func (s *suite) watchLive(browser *http.Client, base string, pid int, d time.Duration) (liveWatch, error) {
	var w liveWatch
	ctx, cancel := context.WithTimeout(s.ctx, d)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/live", nil)
	resp, err := browser.Do(req)
	if err != nil {
		return w, err
	}
	defer resp.Body.Close()
	_, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return w, err
	}
	cpu0, err := cpuTime(pid)
	if err != nil {
		return w, err
	}
	start := time.Now()
	mr := multipart.NewReader(resp.Body, params["boundary"])
	var bytes int64
	var last []byte
	for {
		part, err := mr.NextPart()
		if err != nil {
			break // the deadline ended the stream
		}
		b, err := io.ReadAll(part)
		if err != nil {
			break
		}
		if string(b) == string(last) {
			continue // the same frame once more (see console/live.go): not a new one
		}
		last = b
		w.frames++
		bytes += int64(len(b))
	}
	elapsed := time.Since(start)
	cpu1, err := cpuTime(pid)
	if err != nil {
		return w, err
	}
	w.fps = float64(w.frames) / elapsed.Seconds()
	if w.frames > 0 {
		w.frameKB = float64(bytes) / float64(w.frames) / 1024
		w.cpuPerFrame = (cpu1 - cpu0) / time.Duration(w.frames)
	}
	w.cpuShare = float64(cpu1-cpu0) / float64(elapsed)
	return w, nil
}

// cpuTime is the user and system CPU time a process has used (/proc/PID/stat, clock ticks of
// 1/100 s on Linux).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %v %v", pid, err1, err2)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}
