import type { BufferEntry, BufferEntryType } from "../domain/BufferEntry.js"
import type { Role } from "../domain/Message.js"

// The session buffer's patterns, exactly as the reference (REFERENCE-BEHAVIOUR 4.1): case-insensitive,
// dot-all, tried family by family in this order; the first pattern of a family that matches wins.

/** Families in the order they are tried, each with its patterns in order. */
export const BUFFER_PATTERNS: ReadonlyArray<readonly [BufferEntryType, ReadonlyArray<RegExp>]> = [
  [
    "correction",
    [
      /\bactually[,:]?\s+(.+)/is,
      /\bno[,:]?\s+(it's|it is|that's|that is)\s+(.+)/is,
      /\bthat('s| is) (wrong|incorrect|not right)[,.]?\s*(.+)/is,
      /\bcorrection[:\s]+(.+)/is,
      /\bI meant\s+(.+)/is
    ]
  ],
  [
    "preference",
    [
      /\bI prefer\s+(.+)/is,
      /\balways (use|do|make|keep|write)\s+(.+)/is,
      /\bnever (use|do|make|keep|write)\s+(.+)/is,
      /\bdon'?t (ever )?(use|do|make|keep|write)\s+(.+)/is,
      /\bplease (always|never)\s+(.+)/is,
      /\bI (like|want|need) (to use |to have |)\s*(.+)/is
    ]
  ],
  [
    "fact",
    [
      /\bthe (api )?(endpoint|url|path|port|host|server|database|repo|repository) (is|runs? (on|at))\s+(.+)/is,
      /\b(the|my|our)\s+(\w+\s+){0,3}is\s+(.+)/is,
      /\b(it|this) (is|was) (called|named|located at)\s+(.+)/is,
      /\bI (am|work at|work on|use|live in)\s+(.+)/is
    ]
  ],
  [
    "outcome",
    [
      /\b(that|it) (worked|succeeded|passed|fixed it)/is,
      /\b(that|it) (failed|didn'?t work|broke|errored)/is,
      /\b(error|exception|traceback|failure)[:\s]+(.+)/is,
      /\bsuccess(fully)?[:\s]+(.+)/is
    ]
  ]
]

/** The roles whose messages the buffer watches: the user's own words and tool output. */
export const BUFFERED_ROLES: ReadonlySet<Role> = new Set<Role>(["user", "tool_result"])

export interface PatternMatch {
  readonly type: BufferEntryType
  /** The whole match, from the trigger word to the end of the message, trimmed. */
  readonly content: string
}

/** At most one match per family, in family order. */
export const matchMessage = (text: string): Array<PatternMatch> => {
  const out: Array<PatternMatch> = []
  for (const [type, patterns] of BUFFER_PATTERNS) {
    for (const pattern of patterns) {
      const m = pattern.exec(text)
      if (m !== null) {
        out.push({ type, content: m[0].trim() })
        break
      }
    }
  }
  return out
}

/** The buffer entries a logged message yields (none for assistant and tool_call messages). */
export const bufferEntriesFor = (message: {
  readonly role: Role
  readonly content: string
  readonly timestamp: string
  readonly index: number
  readonly session_id: string
}): Array<BufferEntry> =>
  BUFFERED_ROLES.has(message.role)
    ? matchMessage(message.content).map((m) => ({
        type: m.type,
        content: m.content,
        timestamp: message.timestamp,
        source_msg: message.index,
        session_id: message.session_id
      }))
    : []

/** Identity of a buffer entry across processes: one message yields at most one entry per family. */
export const bufferEntryKey = (e: BufferEntry): string => `${e.source_msg}\u0000${e.type}\u0000${e.content}`

const FAMILY_ORDER: Record<BufferEntryType, number> = { correction: 0, preference: 1, fact: 2, outcome: 3 }

/** Source order, then family order: the order observe() produces. */
export const compareBufferEntries = (a: BufferEntry, b: BufferEntry): number =>
  a.source_msg - b.source_msg || FAMILY_ORDER[a.type] - FAMILY_ORDER[b.type]
