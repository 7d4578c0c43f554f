import { Effect } from "effect"
import type { RawLogShape } from "../../services/RawLog.js"

/**
 * Copies every session of one raw log into another (`awhm migrate`, both ways): the messages with their
 * indices and each session's next index, so an index removed at the source is never handed out again.
 * Idempotent: what the target holds is left as it is. `onProgress` gets one line per session.
 */
export const copyLog = (from: RawLogShape, to: RawLogShape, onProgress: (line: string) => void) =>
  Effect.gen(function* () {
    const sessions = yield* from.sessions
    let messages = 0
    for (const [i, s] of sessions.entries()) {
      const entries = yield* from.read(s.sessionId)
      const nextIndex = yield* from.nextIndex(s.sessionId)
      yield* to.copyIn({ sessionId: s.sessionId, entries, nextIndex, modifiedAtMs: s.mtimeMs })
      messages += entries.length
      onProgress(`[${i + 1}/${sessions.length}] session ${s.sessionId}: ${entries.length} messages`)
    }
    return { sessions: sessions.length, messages }
  })
