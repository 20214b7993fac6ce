package offline

import (
	"strings"

	"github.com/ward-sim/ward/agents"
)

// entityDelta is what an offline agent reports as entities: facts its prompt gave it, in the
// keys a model is asked to use.
func entityDelta(agent string, f agents.Facts) delta {
	d := delta{Conversation: map[string]any{}, Derived: map[string]any{}}
	switch agent {
	case agents.AgentPatient:
		if f.Persona != nil {
			d.Conversation["chief_complaint"] = f.Persona.ChiefComplaint
		}
	case agents.AgentMonitor:
		if m := f.Turn.Measured; m != nil && len(*m) > 0 {
			r := (*m)[len(*m)-1]
			d.Derived["vitals_retrieved"] = r
			if r.NEWS2 != nil {
				d.Derived["news2_result"] = *r.NEWS2
			}
		}
	case agents.AgentPharmacist:
		var orders []string
		for _, o := range f.Turn.Orders {
			orders = append(orders, orderText(o))
		}
		if len(orders) > 0 {
			d.Derived["medication_check_result"] = strings.Join(orders, ", ")
		}
	}
	return d
}
