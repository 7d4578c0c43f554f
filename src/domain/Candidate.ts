import type { SourceRef } from "./Message.js"
import type { NodeType } from "./Node.js"

/**
 * A statement proposed for the graph by Stage 1 (NER, rules) or Stage 2 (LLM), before dedup,
 * supersession and commit. Shared by the consolidation steps and Stage 2 validation.
 */
export interface Candidate {
  readonly content: string
  readonly type: NodeType
  readonly confidence: number
  /** Carries a correction marker, or Stage 2 said supersedes_previous. */
  readonly isCorrection: boolean
  /** A slot given from outside the rules (Stage 2: `fact:<slot>`); null lets the rules decide. */
  readonly keyOverride: string | null
  readonly sessionId: string
  /** The (first) message it came from. */
  readonly messageIndex: number
  readonly sourceRefs: ReadonlyArray<SourceRef>
  /** Timestamp of the source message (canonical UTC ISO). */
  readonly timestamp: string
  readonly validFrom: string | null
  readonly validTo: string | null
  readonly mentionedDates: ReadonlyArray<string>
  /** For entity candidates (NER): the label, e.g. PERSON. */
  readonly entityType: string | null
  readonly origin: "ner" | "rule" | "stage2"
}
