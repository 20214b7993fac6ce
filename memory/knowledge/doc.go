// Package knowledge is ward's knowledge base: protocol cards written from public guidance,
// the user's own cards (--knowledge DIR), and retrieval over their sections.
//
// The parts, one concern per file:
//   - cards: markdown with a YAML front matter naming the id, title, source, the built-in
//     scenarios a card supports and the doses it states (card.go, cards/*.md);
//   - the library: built-in cards plus a user directory, and its chunks, one per section
//     (library.go);
//   - retrieval: full-text search with an in-memory tf-idf index (fulltext.go), semantic search
//     over embeddings kept by content hash and model (semantic.go), fused by reciprocal rank
//     fusion, built on first use and rebuilt only when content changes (kb.go);
//   - use in a turn: numbered passages for the prompt, citation checking, the extractive
//     answer for offline use, and the protocol-question predicate (passage.go, extract.go,
//     question.go);
//   - the `ward kb` views and `ward eval knowledge` (cli.go, eval.go, evalset.yaml).
//
// Knowledge never changes vitals or safety checks: nothing here touches the engine.
package knowledge
