package records

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ward-sim/ward/persist"
)

// A class's statements reach a learning record store (xAPI 1.0.3) through an outbox in the
// database: every statement is put there first, posted in batches, and taken out only when the
// store has it (200 or 204, or 409: a statement of that id is already there, and ids are
// stable). A store that is down is tried again with back-off until the run's time is up; what
// it did not take waits for the next run.

// LRS is a learning record store: its xAPI endpoint and the account ward posts as.
type LRS struct {
	Statements     string // the endpoint's statements resource
	User, Password string // basic auth; none when both are empty
	Client         *http.Client
}

// lrsBatch is how many statements one POST carries: small enough for any store's body limit.
const lrsBatch = 50

// NewLRS checks an xAPI endpoint (http or https, with a host) and names its statements resource.
func NewLRS(endpoint, user, password string) (LRS, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return LRS{}, fmt.Errorf("the LRS %q must be an http or https xAPI endpoint with a host and no query, e.g. https://lrs.example.org/xapi/", endpoint)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/statements"
	return LRS{Statements: u.String(), User: user, Password: password, Client: &http.Client{}}, nil
}

// Posted is what a run did: statements waiting from an earlier run, put in the outbox now,
// taken by the store, and left waiting.
type Posted struct {
	Earlier, Added, Sent, Left int
}

// PostXAPI puts statements in the store's outbox and posts every statement waiting there to
// the LRS until ctx is done. The error says why some are left.
func PostXAPI(ctx context.Context, lrs LRS, store *persist.Store, statements []Statement) (Posted, error) {
	var p Posted
	earlier, err := store.OutboxWaiting()
	if err != nil {
		return p, err
	}
	p.Earlier = len(earlier)
	records := make([]persist.OutboxRecord, len(statements))
	for i, s := range statements {
		records[i] = persist.OutboxRecord{ID: s.ID, Trainee: s.Actor.Account.Name}
		if records[i].Doc, err = json.Marshal(s); err != nil {
			return p, err
		}
	}
	if p.Added, err = store.OutboxAdd(records); err != nil {
		return p, err
	}
	waiting, err := store.OutboxWaiting()
	if err != nil {
		return p, err
	}
	err = lrs.postAll(ctx, waiting, func(sent []persist.OutboxRecord) error {
		p.Sent += len(sent)
		return store.OutboxSent(sent, time.Now())
	})
	p.Left = len(waiting) - p.Sent
	return p, err
}

// postAll posts the records batch by batch; taken is told of each batch the store took.
func (l LRS) postAll(ctx context.Context, records []persist.OutboxRecord, taken func([]persist.OutboxRecord) error) error {
	for start := 0; start < len(records); start += lrsBatch {
		if err := l.postBatch(ctx, records[start:min(start+lrsBatch, len(records))], taken); err != nil {
			return err
		}
	}
	return nil
}

// postBatch posts one batch, again with back-off while the store fails or is unreachable. A
// 409 on a batch says only that one of them is already there, so each is then posted alone.
func (l LRS) postBatch(ctx context.Context, batch []persist.OutboxRecord, taken func([]persist.OutboxRecord) error) error {
	wait := 250 * time.Millisecond
	for {
		status, err := l.post(ctx, batch)
		switch {
		case err == nil && (status == http.StatusOK || status == http.StatusNoContent):
			return taken(batch)
		case err == nil && status == http.StatusConflict && len(batch) == 1:
			return taken(batch)
		case err == nil && status == http.StatusConflict:
			for i := range batch {
				if err := l.postBatch(ctx, batch[i:i+1], taken); err != nil {
					return err
				}
			}
			return nil
		case err == nil && (status == http.StatusUnauthorized || status == http.StatusForbidden):
			return fmt.Errorf("the LRS at %s refused ward's account (%d %s): set WARD_LRS_USER and WARD_LRS_PASSWORD", l.Statements, status, http.StatusText(status))
		case err == nil && status != http.StatusTooManyRequests && status < 500:
			return fmt.Errorf("the LRS at %s answered %d %s to statement %s and its batch", l.Statements, status, http.StatusText(status), batch[0].ID)
		case err == nil:
			err = fmt.Errorf("answered %d %s", status, http.StatusText(status))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the LRS at %s did not take the statements before the time was up (last: %v)", l.Statements, err)
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// post sends a JSON array of statements and gives the store's status.
func (l LRS) post(ctx context.Context, batch []persist.OutboxRecord) (int, error) {
	docs := make([][]byte, len(batch))
	for i, r := range batch {
		docs[i] = r.Doc
	}
	body := append([]byte("["), bytes.Join(docs, []byte(","))...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.Statements, bytes.NewReader(append(body, ']')))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Experience-API-Version", "1.0.3")
	if l.User != "" || l.Password != "" {
		req.SetBasicAuth(l.User, l.Password)
	}
	resp, err := l.Client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is said once, by the caller
		}
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // lets the connection be reused
	return resp.StatusCode, nil
}
