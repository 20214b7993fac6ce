package agents

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
)

// fakeOllama is an httptest server that speaks Ollama's NDJSON /api/chat
// and /api/show. Each chat call takes the next scripted reply; the last one
// repeats.
type fakeOllama struct {
	srv     *httptest.Server
	release chan struct{} // closed at cleanup, so stalled handlers return

	mu       sync.Mutex
	replies  []fakeReply
	requests []api.ChatRequest
	show     api.ShowResponse
}

// fakeReply is one scripted answer to /api/chat.
type fakeReply struct {
	status int    // 0 means 200
	body   string // sent as is when status is an error
	chunks []api.ChatResponse
	stall  bool // after the chunks, send nothing until the client gives up
}

func newFakeOllama(t *testing.T, replies ...fakeReply) *fakeOllama {
	t.Helper()
	f := &fakeOllama{replies: replies, release: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", f.chat)
	mux.HandleFunc("POST /api/show", f.showModel)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(f.release)
		f.srv.Close()
	})
	return f
}

// client returns an api client for the fake server.
func (f *fakeOllama) client(t *testing.T) *api.Client {
	t.Helper()
	u, err := url.Parse(f.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, f.srv.Client())
}

// chatRequests returns the decoded requests received so far.
func (f *fakeOllama) chatRequests() []api.ChatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.ChatRequest(nil), f.requests...)
}

func (f *fakeOllama) next(req api.ChatRequest) fakeReply {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, req)
	reply := f.replies[min(len(f.requests), len(f.replies))-1]
	return reply
}

func (f *fakeOllama) chat(w http.ResponseWriter, r *http.Request) {
	var req api.ChatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	reply := f.next(req)
	if reply.status >= 400 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.status)
		_, _ = w.Write([]byte(reply.body))
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	for _, chunk := range reply.chunks {
		_ = enc.Encode(chunk)
		w.(http.Flusher).Flush()
	}
	if reply.stall {
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
	}
}

func (f *fakeOllama) showModel(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	show := f.show
	f.mu.Unlock()
	if req.Model != testModel {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"model '` + req.Model + `' not found"}`))
		return
	}
	_ = json.NewEncoder(w).Encode(show)
}

const testModel = "tiny"

// streamed is a reply that streams parts as content, then a done chunk.
func streamed(parts ...string) fakeReply {
	var chunks []api.ChatResponse
	for _, p := range parts {
		chunks = append(chunks, api.ChatResponse{Model: testModel, Message: api.Message{Role: "assistant", Content: p}})
	}
	return fakeReply{chunks: append(chunks, doneChunk("stop"))}
}

func doneChunk(reason string) api.ChatResponse {
	return api.ChatResponse{
		Model: testModel, Done: true, DoneReason: reason,
		Message: api.Message{Role: "assistant"},
		Metrics: api.Metrics{PromptEvalCount: 42, PromptEvalDuration: 1000, EvalCount: 7, EvalDuration: 2000, LoadDuration: 300},
	}
}

// notFound is what Ollama sends for a chat with a model it does not have.
func notFound(model string) fakeReply {
	return fakeReply{status: http.StatusNotFound, body: `{"error":"model \"` + model + `\" not found, try pulling it first"}`}
}

// refusedURL returns an address where nothing listens any more.
func refusedURL(t *testing.T) *url.URL {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	return u
}
