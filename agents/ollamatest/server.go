package ollamatest

import (
	"context"
	"errors"
	"fmt"
	"go/build"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Server is an `ollama serve` process on a free loopback port, with its models, keys and logs
// in a temporary directory that Stop removes.
type Server struct {
	URL    *url.URL
	Client *api.Client

	cmd  *exec.Cmd
	dir  string
	log  *os.File
	done chan error // receives the process's exit once
}

const readyTimeout = 60 * time.Second

// LiveEnv turns on the tests that need a real server; .ci/run sets it to 1.
const LiveEnv = "WARD_LIVE_OLLAMA"

// Live reports whether the live tests run.
func Live() bool { return os.Getenv(LiveEnv) == "1" }

// FullEnv turns the live measurements from CI's short form (enough to hold their assertions) to
// the long form BENCHMARKS.md reports: every history strategy, every server setting.
const FullEnv = "WARD_LIVE_FULL"

// Full reports whether the live measurements run in their long form.
func Full() bool { return os.Getenv(FullEnv) == "1" }

// StartTiny starts a server with parallel sequences (OLLAMA_NUM_PARALLEL) and creates the tiny
// model in it as ModelName.
func StartTiny(ctx context.Context, parallel int) (*Server, error) {
	s, err := Start(ctx, parallel)
	if err != nil {
		return nil, err
	}
	if err := CreateTinyModel(ctx, s.Client, ModelName); err != nil {
		err = fmt.Errorf("%w\n%s", err, s.LogTail(4000))
		s.Stop()
		return nil, err
	}
	return s, nil
}

// StartForTest gives one test its own server with the tiny model, or skips the test when live
// tests are off. The server stops when the test ends; a failed test logs the server's log tail.
func StartForTest(t testing.TB, parallel int) *Server {
	t.Helper()
	if !Live() {
		t.Skip("set " + LiveEnv + "=1 to run against a real ollama serve")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	s, err := StartTiny(ctx, parallel)
	if err != nil {
		t.Fatal("live ollama: ", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("ollama serve log (tail):\n" + s.LogTail(4000))
		}
		s.Stop()
	})
	return s
}

// Start starts `ollama serve` and waits until it answers. The binary is $WARD_OLLAMA_BIN, else
// `ollama` on PATH, else $GOPATH/bin/ollama (where `go install` puts it).
//
// The server runs one model with parallel sequences (OLLAMA_NUM_PARALLEL). With one, each request
// can reuse only the KV cache of the request before it; with more, and the multi-user cache that
// spreads requests over them (OLLAMA_MULTIUSER_CACHE), each sequence keeps its own.
func Start(ctx context.Context, parallel int) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ward-ollama-*")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, done: make(chan error, 1)}
	if err := s.start(ctx, bin, parallel); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, bin string, parallel int) error {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return err
	}
	s.URL = &url.URL{Scheme: "http", Host: addr}
	s.Client = api.NewClient(s.URL, http.DefaultClient)

	s.log, err = os.Create(filepath.Join(s.dir, "server.log"))
	if err != nil {
		return err
	}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = append(os.Environ(),
		"OLLAMA_HOST="+addr,
		"OLLAMA_MODELS="+filepath.Join(s.dir, "models"),
		"HOME="+s.dir, // serve writes its key pair under $HOME/.ollama
		"OLLAMA_NUM_PARALLEL="+strconv.Itoa(max(parallel, 1)),
		"OLLAMA_MULTIUSER_CACHE="+strconv.FormatBool(parallel > 1),
		"OLLAMA_MAX_LOADED_MODELS=1",
	)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Stop also ends its runners
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start %s serve: %w", bin, err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	return s.waitReady(ctx)
}

func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := s.Client.Heartbeat(ctx); err == nil {
			return nil
		}
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("ollama serve exited (%v):\n%s", err, s.LogTail(2000))
		case <-ctx.Done():
			return fmt.Errorf("ollama serve not ready at %s after %s:\n%s", s.URL, readyTimeout, s.LogTail(2000))
		case <-tick.C:
		}
	}
}

// Stop interrupts the server, kills its process group if it lingers, and removes its directory.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		var status error
		select {
		case status = <-s.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			status = <-s.done
		}
		_ = status // the exit status of a server told to stop says nothing
		// Runners are children in the same group; make sure none outlives the test.
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	if s.log != nil {
		s.log.Close()
	}
	os.RemoveAll(s.dir)
}

// Running returns model's entry in /api/ps, if the model is loaded.
func (s *Server) Running(ctx context.Context, model string) (api.ProcessModelResponse, bool, error) {
	ps, err := s.Client.ListRunning(ctx)
	if err != nil {
		return api.ProcessModelResponse{}, false, err
	}
	for _, m := range ps.Models {
		if m.Model == model || m.Model == model+":latest" {
			return m, true, nil
		}
	}
	return api.ProcessModelResponse{}, false, nil
}

// Unload asks the server to unload model now (a chat with no messages and keep_alive 0, as the
// Ollama API documents) and waits until it has.
func (s *Server) Unload(ctx context.Context, model string) error {
	req := &api.ChatRequest{Model: model, KeepAlive: &api.Duration{Duration: 0}}
	if err := s.Client.Chat(ctx, req, func(api.ChatResponse) error { return nil }); err != nil {
		return err
	}
	return s.WaitUnloaded(ctx, model)
}

// WaitUnloaded waits until /api/ps no longer lists model. The scheduler unloads a model whose
// keep_alive ran out shortly after its last reply, not at once.
func (s *Server) WaitUnloaded(ctx context.Context, model string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		_, loaded, err := s.Running(ctx, model)
		switch {
		case err != nil:
			return fmt.Errorf("waiting for %s to unload: %w", model, err)
		case !loaded:
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s still loaded after 30s", model)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// LogTail returns the last n bytes of the server's log, for failure messages.
func (s *Server) LogTail(n int) string {
	b, err := os.ReadFile(filepath.Join(s.dir, "server.log"))
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// Binary finds the ollama executable: $WARD_OLLAMA_BIN, PATH, then $GOPATH/bin.
func Binary() (string, error) {
	if bin := os.Getenv("WARD_OLLAMA_BIN"); bin != "" {
		return bin, nil
	}
	if bin, err := exec.LookPath("ollama"); err == nil {
		return bin, nil
	}
	for _, gopath := range filepath.SplitList(build.Default.GOPATH) {
		bin := filepath.Join(gopath, "bin", "ollama")
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}
	return "", errors.New("ollama not found: go install github.com/ollama/ollama@v0.6.5, or set WARD_OLLAMA_BIN")
}

func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
