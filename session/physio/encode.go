package physio

import (
	"encoding/json"
	"strconv"

	"github.com/ward-sim/ward/persist/jsonappend"
	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// The store keeps every engine a turn changed, and encoding/json's reflection over a snapshot
// cost more the longer the shift ran (its readings, actions and alerts grow all shift): the
// largest part of a turn late in a shift. So the snapshot is written here by hand, byte for byte
// as encoding/json writes it (TestEncodeJSONIsTheSnapshots, TestHandEncodingIsEncodingJSONs):
// field order and names as the tags say, omitempty and omitzero as encoding/json reads them, nil
// slices as null, floats and strings by its rules (jsonappend). The parts a shift rarely holds or
// never grows (the patient drawn, diagnoses, disposition, reflections, an arrest, injected
// events) are left to encoding/json itself.
//
// Each writer appends to the buffer it is given and returns it, as append does: a buffer kept
// in a struct and grown through a pointer paid a GC write barrier on every append.

// snapshotJSON appends s as json.Marshal writes it. ok is false when it met a value
// encoding/json refuses (NaN, an infinity), so that the caller reports encoding/json's error.
func snapshotJSON(b []byte, s *Snapshot) (_ []byte, ok bool) {
	var w jsonWriter
	b = jsonappend.String(append(b, `{"patient_id":`...), s.PatientID)
	b = str(b, `,"scenario":`, s.Scenario)
	if s.Patient != nil {
		b = w.marshal(b, `,"patient":`, s.Patient)
	}
	b = append(strconv.AppendUint(append(b, `,"rng":"`...), s.RNG, 10), '"')
	b = num(b, `,"admitted":`, s.Admitted)
	b = num(b, `,"t":`, s.T)
	b = str(b, `,"state":`, s.State)
	b = num(b, `,"state_since":`, s.StateSince)
	b = w.reals(b, `,"trend":`, s.Trend[:])
	b = w.reals(b, `,"jitter":`, s.Jitter[:])
	b = boolean(b, `,"on_oxygen":`, s.OnOxygen)
	b = boolean(b, `,"monitored":`, s.Monitored)
	b = num(b, `,"next_reading":`, s.NextReading)
	b = num(b, `,"allergies_asked_at":`, s.AllergiesAskedAt)
	b = w.optReal(b, `,"last_glucose":`, s.LastGlucose)
	b = num(b, `,"news2_at_arrival":`, s.NEWS2AtArrival)
	b = array(b, `,"effects":`, s.Effects, w.effect)
	b = array(b, `,"seen":`, s.Seen, func(b []byte, v *bool) []byte { return strconv.AppendBool(b, *v) })
	b = array(b, `,"held_since":`, s.HeldSince, func(b []byte, v *int64) []byte { return strconv.AppendInt(b, *v, 10) })
	b = array(b, `,"actions":`, s.Actions, w.actionRecord)
	b = array(b, `,"readings":`, s.Readings, w.reading)
	b = array(b, `,"states":`, s.States, w.stateChange)
	b = array(b, `,"safety":`, s.Safety, w.safetyRecord)
	b = array(b, `,"critical_errors":`, s.Errors, w.errorRecord)
	b = optArray(b, `,"told":`, s.Told, quoted)
	b = optArray(b, `,"orders":`, s.Orders, w.orderRecord)
	b = num(b, `,"next_obs":`, s.NextObs)
	b = num(b, `,"attended":`, s.Attended)
	b = optArray(b, `,"alarm_limits":`, s.Limits, func(b []byte, l *sc.AlarmLimit) []byte {
		return jsonappend.String(b, l.String()) // its MarshalText
	})
	b = optArray(b, `,"latched":`, s.Latched, quoted)
	b = optStr(b, `,"escalated":`, s.Escalated)
	b = optArray(b, `,"alerts":`, s.Alerts, w.alertRecord)
	b = num(b, `,"access_at":`, s.AccessAt)
	b = optFlag(b, `,"scale2":`, s.Scale2)
	b = w.reals(b, `,"entered":`, s.Entered[:])
	b = optArray(b, `,"pending":`, s.Pending, func(b []byte, p *Pending) []byte {
		b = num(b, `{"at":`, p.At)
		return append(w.action(b, `,"action":{`, &p.Action), "}}"...)
	})
	if len(s.Diagnoses) > 0 {
		b = w.marshal(b, `,"diagnoses":`, s.Diagnoses)
	}
	if s.Disposition != nil {
		b = w.marshal(b, `,"disposition":`, s.Disposition)
	}
	if len(s.Reflections) > 0 {
		b = w.marshal(b, `,"reflections":`, s.Reflections)
	}
	if s.Arrest != nil {
		b = w.marshal(b, `,"arrest":`, s.Arrest)
	}
	b = w.optReal(b, `,"beat":`, s.Beat)
	if len(s.Injected) > 0 {
		b = w.marshal(b, `,"injected":`, s.Injected)
	}
	return append(b, '}'), !w.refused
}

// jsonWriter remembers whether a value encoding/json refuses was met; the writers that may meet
// one are its methods.
type jsonWriter struct{ refused bool }

// Each field writer appends key (the field's quoted name, with the comma or brace before it)
// then the value; the opt ones write nothing for a value omitempty leaves out: false, 0 (-0 too),
// "", an empty slice.

func str(b []byte, key, s string) []byte { return jsonappend.String(append(b, key...), s) }

func num[T int | int64](b []byte, key string, v T) []byte {
	return strconv.AppendInt(append(b, key...), int64(v), 10)
}

func boolean(b []byte, key string, v bool) []byte { return strconv.AppendBool(append(b, key...), v) }

func (w *jsonWriter) real(b []byte, key string, f float64) []byte {
	b, ok := jsonappend.Float(append(b, key...), f)
	w.refused = w.refused || !ok
	return b
}

func optStr(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return str(b, key, s)
}

func optNum(b []byte, key string, v int) []byte {
	if v == 0 {
		return b
	}
	return num(b, key, v)
}

func optFlag(b []byte, key string, v bool) []byte {
	if !v {
		return b
	}
	return boolean(b, key, v)
}

func (w *jsonWriter) optReal(b []byte, key string, f float64) []byte {
	if f == 0 {
		return b
	}
	return w.real(b, key, f)
}

func (w *jsonWriter) reals(b []byte, key string, fs []float64) []byte {
	b = append(b, key...)
	b = append(b, '[')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = w.real(b, "", f)
	}
	return append(b, ']')
}

// marshal appends the field by encoding/json itself.
func (w *jsonWriter) marshal(b []byte, key string, v any) []byte {
	data, err := json.Marshal(v)
	w.refused = w.refused || err != nil
	return append(append(b, key...), data...)
}

// array appends a slice as encoding/json writes one: null when nil, each element by each.
func array[T any](b []byte, key string, xs []T, each func([]byte, *T) []byte) []byte {
	b = append(b, key...)
	if xs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, &xs[i])
	}
	return append(b, ']')
}

// optArray is array of a field tagged omitempty.
func optArray[T any](b []byte, key string, xs []T, each func([]byte, *T) []byte) []byte {
	if len(xs) == 0 {
		return b
	}
	return array(b, key, xs, each)
}

func quoted(b []byte, s *string) []byte { return jsonappend.String(b, *s) }

func (w *jsonWriter) effect(b []byte, e *ActiveEffect) []byte {
	b = num(b, `{"vital":`, int(e.Vital))
	b = w.real(b, `,"delta":`, e.Delta)
	b = w.real(b, `,"cap":`, e.Cap)
	b = boolean(b, `,"has_cap":`, e.HasCap)
	b = num(b, `,"from":`, e.From)
	if e.Full != 0 {
		b = num(b, `,"full":`, e.Full)
	}
	b = num(b, `,"until":`, e.Until)
	b = str(b, `,"source":`, e.Source)
	return append(b, '}')
}

func (w *jsonWriter) actionRecord(b []byte, a *ActionRecord) []byte {
	b = w.real(b, `{"t":`, a.T)
	b = w.action(b, `,`, &a.Action)
	b = optFlag(b, `,"allergies_asked":`, a.AllergiesAsked)
	b = w.optReal(b, `,"glucose":`, a.Glucose)
	b = optNum(b, `,"gcs":`, a.GCS)
	b = w.optReal(b, `,"access_in":`, a.AccessIn)
	b = w.optReal(b, `,"in_at":`, a.InAt)
	b = optStr(b, `,"found":`, a.Found)
	b = optNum(b, `,"scale":`, a.Scale)
	b = optFlag(b, `,"wrong_side":`, a.WrongSide)
	return append(b, '}')
}

// action appends an action's fields after lead: `,` where a record embeds it, `…:{` where it
// is an object of its own (the caller closes it).
func (w *jsonWriter) action(b []byte, lead string, a *action.Action) []byte {
	b = str(append(b, lead...), `"action":`, string(a.Kind))
	b = optStr(b, `,"drug":`, a.Drug)
	if !a.Dose.IsZero() { // omitzero, by its IsZero
		b = str(b, `,"dose":`, a.Dose.String()) // its MarshalText
	}
	b = w.optReal(b, `,"dose_mg":`, a.DoseMg)
	b = optStr(b, `,"route":`, a.Route)
	b = w.optReal(b, `,"volume_ml":`, a.VolumeML)
	b = optFlag(b, `,"override":`, a.Override)
	b = optStr(b, `,"device":`, a.Device)
	b = w.optReal(b, `,"flow_l_min":`, a.FlowLPM)
	b = w.optReal(b, `,"fio2":`, a.FiO2)
	b = optStr(b, `,"topic":`, a.Topic)
	b = optStr(b, `,"test":`, a.Test)
	b = optStr(b, `,"position":`, a.Position)
	b = optStr(b, `,"region":`, a.Region)
	b = optStr(b, `,"gas":`, a.Gas)
	b = optStr(b, `,"team":`, a.Team)
	if a.Target != [2]float64{} { // omitzero compares an array of floats as == does: -0 is zero
		b = w.reals(b, `,"target":`, a.Target[:])
	}
	b = w.optReal(b, `,"energy_j":`, a.EnergyJ)
	b = optStr(b, `,"rhythm":`, a.Rhythm)
	b = optNum(b, `,"rate":`, a.Rate)
	b = optStr(b, `,"quality":`, a.Quality)
	b = optStr(b, `,"cause":`, a.Cause)
	b = optStr(b, `,"side":`, a.Side)
	return optStr(b, `,"limb":`, a.Limb)
}

func (w *jsonWriter) reading(b []byte, r *Reading) []byte {
	v, p := &r.Vitals, &r.Parts
	b = w.real(b, `{"t":`, r.T)
	b = num(b, `,"hr":`, v.HR)
	b = num(b, `,"rr":`, v.RR)
	b = num(b, `,"spo2":`, v.SpO2)
	b = num(b, `,"sbp":`, v.SBP)
	b = num(b, `,"dbp":`, v.DBP)
	b = w.real(b, `,"temp_c":`, v.TempC)
	b = num(b, `,"gcs":`, v.GCS)
	b = str(b, `,"avpu":`, v.AVPU)
	b = boolean(b, `,"on_oxygen":`, v.OnOxygen)
	b = optNum(b, `,"etco2":`, v.EtCO2)
	b = w.optReal(b, `,"glucose":`, v.Glucose)
	b = optNum(b, `,"wheeze":`, v.Wheeze)
	b = optNum(b, `,"pain":`, v.Pain)
	b = optStr(b, `,"rhythm":`, v.Rhythm)
	b = optFlag(b, `,"no_output":`, v.NoOutput)
	b = num(b, `,"news2":`, r.NEWS2)
	b = num(b, `,"news2_parts":{"respiration_rate":`, p.RR)
	b = num(b, `,"spo2":`, p.SpO2)
	b = num(b, `,"air_or_oxygen":`, p.Oxygen)
	b = num(b, `,"systolic_bp":`, p.SBP)
	b = num(b, `,"pulse":`, p.Pulse)
	b = num(b, `,"consciousness":`, p.Consciousness)
	b = num(b, `,"temperature":`, p.Temperature)
	b = str(b, `},"news2_band":`, r.Band)
	b = optNum(b, `,"news2_scale":`, r.Scale)
	b = str(b, `,"source":`, r.Source)
	return append(b, '}')
}

func (w *jsonWriter) stateChange(b []byte, c *StateChange) []byte {
	b = w.real(b, `{"t":`, c.T)
	b = str(b, `,"from":`, c.From)
	b = str(b, `,"to":`, c.To)
	b = str(b, `,"reason":`, c.Reason)
	b = optStr(b, `,"cause":`, c.Cause)
	return append(b, '}')
}

func (w *jsonWriter) safetyRecord(b []byte, r *SafetyRecord) []byte {
	b = w.real(b, `{"t":`, r.T)
	b = str(b, `,"level":`, r.Level)
	b = str(b, `,"drug":`, r.Drug)
	b = str(b, `,"rule":`, r.Rule)
	b = str(b, `,"reason":`, r.Reason)
	b = optStr(b, `,"suggest":`, r.Suggest)
	b = boolean(b, `,"allergies_asked":`, r.AllergiesAsked)
	b = boolean(b, `,"known":`, r.Known)
	return append(b, '}')
}

func (w *jsonWriter) errorRecord(b []byte, r *ErrorRecord) []byte {
	b = w.real(b, `{"t":`, r.T)
	b = str(b, `,"id":`, r.ID)
	b = str(b, `,"description":`, r.Description)
	return append(b, '}')
}

func (w *jsonWriter) orderRecord(b []byte, o *OrderRecord) []byte {
	b = w.real(b, `{"t":`, o.T)
	b = str(b, `,"drug":`, o.Drug)
	b = optStr(b, `,"route":`, o.Route)
	if !o.Dose.IsZero() { // omitzero, by its IsZero
		b = str(b, `,"dose":`, o.Dose.String()) // its MarshalText
	}
	b = str(b, `,"verdict":`, string(o.Verdict))
	b = optStr(b, `,"rule":`, o.Rule)
	b = w.optReal(b, `,"amount":`, o.Amount)
	b = optStr(b, `,"unit":`, string(o.Unit))
	b = w.optReal(b, `,"fraction":`, o.Fraction)
	b = w.optReal(b, `,"excess":`, o.Excess)
	b = optStr(b, `,"say":`, o.Say)
	b = boolean(b, `,"given":`, o.Given)
	b = optFlag(b, `,"override":`, o.Override)
	b = optFlag(b, `,"refused":`, o.Refused)
	return append(b, '}')
}

func (w *jsonWriter) alertRecord(b []byte, a *AlertRecord) []byte {
	b = w.real(b, `{"t":`, a.T)
	b = w.real(b, `,"raised":`, a.Raised)
	b = str(b, `,"kind":`, a.Kind)
	b = str(b, `,"level":`, a.Level)
	b = num(b, `,"news2":`, a.NEWS2)
	b = optArray(b, `,"crossed":`, a.Crossed, quoted)
	b = str(b, `,"text":`, a.Text)
	b = optNum(b, `,"repeats":`, a.Repeats)
	b = optFlag(b, `,"arrest":`, a.Arrest)
	if a.Acknowledged != nil {
		b = w.real(b, `,"acknowledged":`, *a.Acknowledged)
	}
	if a.Reviewed != nil {
		b = w.real(b, `,"reviewed":`, *a.Reviewed)
	}
	return append(b, '}')
}
