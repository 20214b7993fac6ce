package records

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/scenario"
)

// WriteDump prints the latest shift's dump to w: the document Dump returns (ForTrainee's when
// forTrainee), as encoding/json's Encoder indenting by two spaces prints it, byte for byte. It
// reads and writes a message at a time, so its memory grows with the patients, not with what
// they said: a class's shift of a hundred patients × a thousand messages prints in a few MiB.
func WriteDump(w io.Writer, store *persist.Store, lib *scenario.Library, forTrainee bool) error {
	info, err := latest(store)
	if err != nil {
		return err
	}
	out := newJSONStream(w)
	err = store.ReadDump(info.ID, func(schema int, content persist.ContentReader, archives []persist.ArchiveReader) error {
		out.open('{')
		if forTrainee {
			out.field("masked", maskedInDump)
		}
		out.field("schema_version", schema)
		out.field("session_id", info.ID)
		reg, err := content.Registry()
		if err != nil {
			return err
		}
		lib.Prepare(casesOn(reg)) // parsed on the other core while the histories print
		sims, err := writeContent(out, content, reg, forTrainee, false)
		if err != nil {
			return err
		}
		if err := writeArchives(out, archives, forTrainee); err != nil {
			return err
		}
		summaries := map[string]SimSummary{}
		for _, id := range inOrder(sims) { // one engine at a time: each is dropped once summarised
			w, err := currentWard(lib, info, map[string]json.RawMessage{id: sims[id]})
			if err != nil {
				return err
			}
			s := summarise(w.Engine(id))
			if forTrainee {
				s = s.forTrainee()
			}
			summaries[id] = s
		}
		out.field("sim", summaries)
		out.close('}')
		return out.err
	})
	if err != nil {
		return err
	}
	out.write("\n")
	if out.err != nil {
		return out.err
	}
	return out.w.Flush()
}

func writeArchives(out *jsonStream, archives []persist.ArchiveReader, forTrainee bool) error {
	if forTrainee && len(archives) == 0 {
		out.field("archives", nil) // ForTrainee's copy of no archives is nil
		return nil
	}
	out.key("archives")
	out.open('[')
	for _, a := range archives {
		if err := writeArchive(out, a, forTrainee); err != nil {
			return err
		}
	}
	out.close(']')
	return nil
}

func writeArchive(out *jsonStream, a persist.ArchiveReader, forTrainee bool) error {
	out.next()
	out.open('{')
	out.field("id", a.ID)
	out.field("created_at", a.CreatedAt)
	reg, err := a.Registry()
	if err == nil {
		_, err = writeContent(out, a.ContentReader, reg, forTrainee, !forTrainee)
	}
	if err != nil {
		return fmt.Errorf("archive %s: %w", a.ID, err)
	}
	out.close('}')
	return nil
}

// writeContent writes the fields of persist.Content, in its order, the registry read from r,
// and returns its engines' documents: written too when withSim (an archive's, for the
// instructor), else only returned.
func writeContent(out *jsonStream, r persist.ContentReader, reg persist.Registry, forTrainee, withSim bool) (map[string]json.RawMessage, error) {
	if forTrainee {
		reg = maskRegistry(reg)
	}
	out.field("registry", reg)
	out.key("session_history")
	if err := writeHistory(out, r, ""); err != nil {
		return nil, err
	}
	ids, err := r.Patients()
	if err != nil {
		return nil, err
	}
	out.key("histories")
	out.open('{')
	for _, id := range ids {
		out.key(id)
		if err := writeHistory(out, r, id); err != nil {
			return nil, err
		}
	}
	out.close('}')
	docs := map[string]map[string]json.RawMessage{}
	for _, kind := range []string{persist.KindMemory, persist.KindEntities, persist.KindSim} {
		if docs[kind], err = r.Docs(kind); err != nil {
			return nil, err
		}
	}
	if forTrainee {
		docs[persist.KindMemory] = maskMemory(docs[persist.KindMemory])
	}
	for _, kind := range []string{persist.KindMemory, persist.KindEntities, persist.KindSim} {
		if len(docs[kind]) > 0 && (kind != persist.KindSim || withSim) { // omitempty
			out.field(kind, docs[kind])
		}
	}
	return docs[persist.KindSim], out.err
}

func writeHistory(out *jsonStream, r persist.ContentReader, patientID string) error {
	out.open('[')
	err := r.History(patientID, func(m persist.StoredMessage) error {
		out.next()
		return out.message(m)
	})
	out.close(']')
	return err
}

// jsonStream writes one JSON document a value at a time, laid out as encoding/json's
// MarshalIndent with no prefix and a two-space indent lays out the whole: each value is encoded
// straight to the writer by a json.Encoder indenting to its depth, and the containers around
// them are written here.
type jsonStream struct {
	w     *bufio.Writer
	enc   *json.Encoder // writes to w through lineless, reusing its buffers value after value
	empty []bool        // for each open container, innermost last: nothing written in it yet
	err   error
	msg   []byte // a stored message re-indented, reused message after message
}

func newJSONStream(w io.Writer) *jsonStream {
	bw := bufio.NewWriter(w)
	return &jsonStream{w: bw, enc: json.NewEncoder(lineless{bw})}
}

// lineless writes an Encoder's value without the newline the Encoder ends it with: what follows
// a value in a document (a comma, a bracket) is the stream's to write.
type lineless struct{ w *bufio.Writer }

func (l lineless) Write(p []byte) (int, error) {
	_, err := l.w.Write(bytes.TrimSuffix(p, []byte("\n")))
	return len(p), err
}

func (j *jsonStream) write(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

func (j *jsonStream) open(bracket byte) {
	j.writeByte(bracket)
	j.empty = append(j.empty, true)
}

func (j *jsonStream) writeByte(c byte) {
	if j.err == nil {
		j.err = j.w.WriteByte(c)
	}
}

// close ends the innermost container; an empty one stays on its line, as "[]" or "{}".
func (j *jsonStream) close(bracket byte) {
	n := len(j.empty) - 1
	if !j.empty[n] {
		j.newline(n)
	}
	j.empty = j.empty[:n]
	j.writeByte(bracket)
}

// next begins the innermost container's next member on a line of its own.
func (j *jsonStream) next() {
	n := len(j.empty) - 1
	if !j.empty[n] {
		j.writeByte(',')
	}
	j.empty[n] = false
	j.newline(n + 1)
}

func (j *jsonStream) newline(depth int) {
	j.writeByte('\n')
	j.write(indentOf(depth))
}

// indentOf is the indentation of a line at depth: two spaces a level.
func indentOf(depth int) string {
	const spaces = "                "
	if 2*depth <= len(spaces) {
		return spaces[:2*depth]
	}
	return strings.Repeat("  ", depth)
}

func (j *jsonStream) key(k string) {
	j.next()
	j.value(k)
	j.write(": ")
}

func (j *jsonStream) field(k string, v any) {
	j.key(k)
	j.value(v)
}

// message writes a stored message at the innermost container's depth: its stored bytes
// re-indented when they are what encoding/json writes for it (dumpmessage.go), else decoded and
// encoded.
func (j *jsonStream) message(m persist.StoredMessage) error {
	if j.err != nil {
		return j.err
	}
	var ok bool
	if j.msg, ok = appendMessage(j.msg[:0], m.JSON, indentOf(len(j.empty))); ok {
		_, j.err = j.w.Write(j.msg)
		return j.err
	}
	msg, err := m.Decode()
	if err != nil {
		return err
	}
	j.value(msg)
	return j.err
}

// value writes v at the innermost container's depth.
func (j *jsonStream) value(v any) {
	if j.err != nil {
		return
	}
	j.enc.SetIndent(indentOf(len(j.empty)), "  ")
	j.err = j.enc.Encode(v)
}

// casesOn are the cases the registry's patients run, each once.
func casesOn(reg persist.Registry) []string {
	var ids []string
	for _, p := range reg.Patients {
		if id, ok := p.Facts["scenario"].(string); ok && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}
