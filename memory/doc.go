// Package memory keeps what a simulated patient must remember and chooses what goes into each
// prompt. It is pure and deterministic: no LLM calls, no I/O, no clocks except the sim time the
// caller passes in (merge latency in the entity counters is the one wall-clock measurement).
//
// The parts, one per file:
//   - structured memory per patient (memory.go, record.go, prune.go), fed by engine events;
//   - selective recall with the five rules, each selected item tagged with its rule (recall.go,
//     render.go);
//   - the interaction log mapped to ollama/api messages (interactions.go);
//   - the message window, sliding or cache-aware blocks (window.go);
//   - compound-action checklists and the output budget (compound.go);
//   - token estimates, calibration and fitting a prompt under num_ctx (tokens.go, budget.go);
//   - conversation and agent-scoped derived entities with their parser (entities*.go).
//
// Nothing here is safe for concurrent use; the session runs one turn at a time per patient.
package memory
