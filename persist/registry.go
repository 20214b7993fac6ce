package persist

import (
	"encoding/json"
	"sort"
	"time"
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
	ActivePatientID *string                 `json:"active_patient_id"`
	Patients        map[string]PatientEntry `json:"patients"`
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
