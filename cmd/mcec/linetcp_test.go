package main_test

import (
	"bufio"
	"errors"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/testdesk"
)

var lineListening = regexp.MustCompile(`line protocol .* on tcp://(\S+)`)

// TestLineProtocolExit serves the line protocol from the binary, beside HTTP and with HTTP
// switched off; mcec:exit answers, then the server exits cleanly (status 0, its private desktop
// stopped).
func TestLineProtocolExit(t *testing.T) {
	for _, httpOn := range []bool{true, false} {
		t.Run(map[bool]string{true: "with HTTP", false: "line protocol only"}[httpOn], func(t *testing.T) {
			testLineProtocolExit(t, httpOn)
		})
	}
}

func testLineProtocolExit(t *testing.T, httpOn bool) {
	cmd := mcecCmd(t, "serve", "--port", "0", "--tcp", "--tcp-port", "0")
	if !httpOn {
		cmd.Env = append(cmd.Env, "MCEC_HTTP=false")
	}
	stderr, _ := cmd.StderrPipe()
	httpServed := make(chan bool, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "serving MCP at") {
				httpServed <- true
			}
			if m := lineListening.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
			}
		}
		done <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(30 * time.Second):
		t.Fatal("mcec serve --tcp did not start")
	}
	children := testdesk.ChildPIDs(cmd.Process.Pid)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	rd := bufio.NewReader(c)
	for _, tc := range []struct{ send, want string }{
		{"mcec:ver\r\n", "mcec "},
		{"windows\n", `{"success":true,"command":"windows"`},
		{"mcec:exit\x00", "mcec exiting"},
	} {
		if _, err := c.Write([]byte(tc.send)); err != nil {
			t.Fatal(err)
		}
		line, err := rd.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, tc.want) {
			t.Fatalf("%q answered %q (%v), want %q…", tc.send, line, err, tc.want)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcec serve exited with %v after mcec:exit", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("mcec serve did not exit after mcec:exit")
	}
	assertGone(t, children)
	select {
	case <-httpServed:
		if !httpOn {
			t.Error("HTTP was served although MCEC_HTTP=false")
		}
	default:
		if httpOn {
			t.Error("HTTP was not served")
		}
	}
}

func TestLineProtocolLoopbackOnly(t *testing.T) {
	err := mcecCmd(t, "serve", "--tcp", "--tcp-bind", "0.0.0.0").Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("non-loopback --tcp-bind: %v, want exit status 2", err)
	}
}
