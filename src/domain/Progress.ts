/** Where consolidation stands in one session. */
export interface SessionProgress {
  /** Index of the last consolidated message; null = "all of it" (a v1 list entry, resolved against the log). */
  readonly lastMsgIndex: number | null
  readonly updatedAt: string
}

/** Consolidation progress per session id. */
export type Progress = ReadonlyMap<string, SessionProgress>
