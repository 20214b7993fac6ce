package persist

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/ward-sim/ward/persist/jsonappend"
)

// PatientEntry is one patient in the registry.
type PatientEntry struct {
	PatientID string         `json:"patient_id"`
	Facts     map[string]any `json:"facts"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
}

// Registry is the single source of truth for the active patient and the roster.
type Registry struct {
	ActivePatientID string // "" when no patient is active; stored as null
	Patients        map[string]PatientEntry
}

// IDs are the IDs of the patients on the roster, sorted.
func (r Registry) IDs() []string {
	ids := make([]string, 0, len(r.Patients))
	for id := range r.Patients {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// registryJSON is the stored shape: active_patient_id is null, not "", when none is active.
type registryJSON struct {
	ActivePatientID *string        `json:"active_patient_id"`
	Patients        storedPatients `json:"patients"`
}

// storedPatients are the registry's entries as stored. Every switch of patient writes the whole
// registry, and encoding/json's reflection spent four allocations a patient on it, so the entries
// are written by hand, byte for byte as encoding/json writes them (TestRegistryEncodesAsReflection).
type storedPatients map[string]PatientEntry

func (ps storedPatients) MarshalJSON() ([]byte, error) {
	ids := make([]string, 0, len(ps))
	for id := range ps {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := append(make([]byte, 0, 160*len(ps)+2), '{')
	for i, id := range ids {
		e := ps[id]
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonappend.String(out, id)
		out = jsonappend.String(append(out, `:{"patient_id":`...), e.PatientID)
		var err error
		if out, err = appendFacts(append(out, `,"facts":`...), e.Facts); err != nil {
			return nil, err
		}
		if out, err = jsonappend.Time(append(out, `,"created_at":`...), e.CreatedAt); err != nil {
			return nil, err
		}
		if out, err = jsonappend.Time(append(out, `,"updated_at":`...), e.UpdatedAt); err != nil {
			return nil, err
		}
		out = append(out, '}')
	}
	return append(out, '}'), nil
}

// appendFacts appends a patient's facts as encoding/json writes a map[string]any: keys sorted,
// and the values a registry holds (strings, whole and decimal numbers, flags) by hand, so a
// commit that rewrites the registry for one patient's summary spends no allocation on the others
// (every other value by encoding/json itself).
func appendFacts(out []byte, facts map[string]any) ([]byte, error) {
	if facts == nil {
		return append(out, "null"...), nil
	}
	var held [24]string // a registry entry has about a dozen facts: no allocation to sort them
	keys := held[:0]
	for k := range facts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		if out, err = appendFact(append(jsonappend.String(out, k), ':'), facts[k]); err != nil {
			return nil, err
		}
	}
	return append(out, '}'), nil
}

func appendFact(out []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return jsonappend.String(out, v), nil
	case bool:
		return strconv.AppendBool(out, v), nil
	case nil:
		return append(out, "null"...), nil
	case int:
		return strconv.AppendInt(out, int64(v), 10), nil
	case float64:
		if out, ok := jsonappend.Float(out, v); ok {
			return out, nil
		}
	}
	b, err := json.Marshal(v)
	return append(out, b...), err
}

// MarshalJSON writes active_patient_id as null when no patient is active.
func (r Registry) MarshalJSON() ([]byte, error) { return json.Marshal(r.stored()) }

// UnmarshalJSON reads a null active_patient_id as "".
func (r *Registry) UnmarshalJSON(data []byte) error {
	var in registryJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*r = in.registry()
	return nil
}

func (r Registry) stored() registryJSON {
	out := registryJSON{Patients: r.Patients}
	if r.ActivePatientID != "" {
		out.ActivePatientID = &r.ActivePatientID
	}
	if out.Patients == nil {
		out.Patients = map[string]PatientEntry{}
	}
	return out
}

func (in registryJSON) registry() Registry {
	r := Registry{Patients: in.Patients}
	if in.ActivePatientID != nil {
		r.ActivePatientID = *in.ActivePatientID
	}
	if r.Patients == nil {
		r.Patients = map[string]PatientEntry{}
	}
	return r
}

// decodeRegistry reads a stored registry; a missing one is empty. The store encodes and decodes
// registryJSON directly: going through the Marshaler methods would validate and compact the
// document a second time, which doubles the cost of a registry round trip.
func decodeRegistry(v []byte) (Registry, error) {
	var in registryJSON
	if v != nil {
		if err := decodeStored(v, &in); err != nil {
			return Registry{}, err
		}
	}
	return in.registry(), nil
}
