// Package memory keeps what a simulated patient must remember and chooses what goes into each
// prompt. It is pure and deterministic: no LLM calls, no I/O, no clocks except the sim time the
// caller passes in (merge latency in the entity counters is the one wall-clock measurement).
//
// The parts, one concern per file:
//   - structured memory per patient (memory.go, record.go, llm_additions.go, prune.go), fed by
//     engine events, with validated additions from the model's tools;
//   - selective recall with the five rules, each selected item tagged with its rule (turn.go,
//     recall.go, render.go);
//   - the interaction log mapped to ollama/api messages (interactions.go);
//   - the message window, sliding or cache-aware blocks (window.go);
//   - compound-action checklists, the output budget and the coverage check (compound.go,
//     compound_check.go);
//   - token estimates, calibration and fitting a prompt under num_ctx (tokens.go, budget.go);
//   - conversation and agent-scoped derived entities, their key conventions, the agent-output
//     parser and the counters (entities.go, entity_keys.go, entity_parse.go, entity_stats.go).
//
// Nothing here is safe for concurrent use; the session runs one turn at a time per patient.
package memory
