package ollamatest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/memory"
)

// ChatRequest is a chat request as the fake server received it, for tests that check what was
// sent on the wire without naming Ollama's types.
type ChatRequest = api.ChatRequest

// Fake is an httptest server that speaks Ollama's NDJSON /api/chat
// and /api/show. Each chat call takes the next scripted reply; the last one
// repeats.
type Fake struct {
	srv     *httptest.Server
	release chan struct{} // closed at cleanup, so stalled handlers return

	mu       sync.Mutex
	replies  []Reply
	requests []api.ChatRequest
	show     api.ShowResponse
	slots    chan struct{} // one token per call running; nil for no limit
	asked    int           // chat calls the server holds now, running or waiting for a slot
	most     int           // the most it held at once
}

// Reply is one scripted answer to /api/chat.
type Reply struct {
	Status int    // 0 means 200
	Body   string // sent as is when Status is an error
	Chunks []api.ChatResponse
	Stall  bool   // after the chunks, send nothing until the client gives up
	Raw    string // sent as the whole body instead of chunks, as a broken server might
	// Delay is how long the reply takes, spread evenly before its chunks, as a model takes time
	// to evaluate the prompt and then to write.
	Delay time.Duration
}

// Slow is r taking d to answer.
func Slow(r Reply, d time.Duration) Reply {
	r.Delay = d
	return r
}

// Limit lets at most slots chat calls run at once, as a server with that many parallel slots
// (OLLAMA_NUM_PARALLEL) does: the calls beyond them wait for one to end.
func (f *Fake) Limit(slots int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slots = make(chan struct{}, slots)
}

// MostAtOnce is the most chat calls the server held at once, running or waiting for a slot.
func (f *Fake) MostAtOnce() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.most
}

// arrive counts a chat call in, and returns the slots it must take one of (nil for no limit).
func (f *Fake) arrive() chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	f.most = max(f.most, f.asked)
	return f.slots
}

func (f *Fake) depart() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked--
}

// pause waits d, or until the client or the test gives up; false when they did.
func (f *Fake) pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-f.release:
	}
	return false
}

func NewFake(t testing.TB, replies ...Reply) *Fake {
	t.Helper()
	f := &Fake{replies: replies, release: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", f.chat)
	mux.HandleFunc("POST /api/show", f.showModel)
	mux.HandleFunc("POST /api/embed", f.embed)
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"version":"0.6.5"}`))
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(f.release)
		f.srv.Close()
	})
	return f
}

// Client returns an api client for the fake server.
func (f *Fake) Client() *api.Client {
	u, err := url.Parse(f.srv.URL)
	if err != nil {
		panic(err) // httptest gives a valid URL
	}
	return api.NewClient(u, f.srv.Client())
}

// URL is the fake server's address, for OLLAMA_HOST.
func (f *Fake) URL() string { return f.srv.URL }

// SetShow sets what /api/show answers for TestModel.
func (f *Fake) SetShow(show api.ShowResponse) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.show = show
}

// CanCallTools makes /api/show answer as a model that can call tools does (the tiny model's
// Template, which renders .Tools), so ward offers the model its tools.
func (f *Fake) CanCallTools() { f.SetShow(api.ShowResponse{Template: Template}) }

// Answer is a reply that streams content in one chunk, then a done chunk.
func Answer(content string) Reply { return Streamed(content) }

// Requests returns the decoded requests received so far.
func (f *Fake) Requests() []api.ChatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.ChatRequest(nil), f.requests...)
}

func (f *Fake) next(req api.ChatRequest) Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	reply := f.replies[min(len(f.requests), len(f.replies))-1]
	return reply
}

func (f *Fake) chat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	slots := f.arrive()
	defer f.depart()
	if slots != nil {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		case <-r.Context().Done():
			return
		case <-f.release:
			return
		}
	}
	reply := f.next(req)
	if reply.Status >= 400 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		_, _ = w.Write([]byte(reply.Body))
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	if reply.Raw != "" {
		_, _ = w.Write([]byte(reply.Raw))
		return
	}
	enc := json.NewEncoder(w)
	for _, chunk := range reply.Chunks {
		if !f.pause(r, reply.Delay/time.Duration(len(reply.Chunks))) {
			return
		}
		_ = enc.Encode(chunk)
		w.(http.Flusher).Flush()
	}
	if reply.Stall {
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
	}
}

// embed answers /api/embed for TestModel with one small vector per input, the input's length
// and its count of the letter e, so tests can tell the vectors apart.
func (f *Fake) embed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != TestModel {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"model '` + req.Model + `' not found"}`))
		return
	}
	var resp api.EmbedResponse
	for _, in := range req.Input {
		resp.Embeddings = append(resp.Embeddings, []float32{float32(len(in)), float32(strings.Count(in, "e"))})
	}
	_ = json.NewEncoder(w).Encode(resp)
}

func (f *Fake) showModel(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	show := f.show
	f.mu.Unlock()
	if req.Model != TestModel {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"model '` + req.Model + `' not found"}`))
		return
	}
	_ = json.NewEncoder(w).Encode(show)
}

const TestModel = "tiny"

// streamed is a reply that streams parts as content, then a done chunk.
func Streamed(parts ...string) Reply {
	var chunks []api.ChatResponse
	for _, p := range parts {
		chunks = append(chunks, api.ChatResponse{Model: TestModel, Message: api.Message{Role: "assistant", Content: p}})
	}
	return Reply{Chunks: append(chunks, DoneChunk("stop"))}
}

func DoneChunk(reason string) api.ChatResponse {
	return api.ChatResponse{
		Model: TestModel, Done: true, DoneReason: reason,
		Message: api.Message{Role: "assistant"},
		Metrics: api.Metrics{PromptEvalCount: 42, PromptEvalDuration: 1000, EvalCount: 7, EvalDuration: 2000, LoadDuration: 300},
	}
}

// notFound is what Ollama sends for a chat with a model it does not have.
func NotFound(model string) Reply {
	return Reply{Status: http.StatusNotFound, Body: `{"error":"model \"` + model + `\" not found, try pulling it first"}`}
}

// RefusedURL returns an address where nothing listens any more.
func RefusedURL(t testing.TB) *url.URL {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	return u
}

// RefusedClient is an api client for an address where nothing listens.
func RefusedClient(t testing.TB) *api.Client {
	return api.NewClient(RefusedURL(t), http.DefaultClient)
}

// Stopped is a reply whose stream ends at once, for reason, with no text.
func Stopped(reason string) Reply { return Reply{Chunks: []api.ChatResponse{DoneChunk(reason)}} }

// CallsTool is a reply that asks for one call of the named tool, then a done chunk.
func CallsTool(name string, args map[string]any) Reply {
	return CallsTools(memory.ToolCall{Name: name, Args: args})
}

// CallsTools is a reply that asks for the calls, in order, in one message, then a done chunk.
// Ollama's calls carry no ID: only the name and arguments of each are sent.
func CallsTools(calls ...memory.ToolCall) Reply {
	msg := api.Message{Role: "assistant"}
	for i, c := range calls {
		msg.ToolCalls = append(msg.ToolCalls, api.ToolCall{Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: c.Args}})
	}
	return Reply{Chunks: []api.ChatResponse{{Model: TestModel, Message: msg}, DoneChunk("stop")}}
}
