/** Current time as a UTC ISO string (the one timestamp format used everywhere). */
export const nowIso = (): string => new Date().toISOString()

/**
 * Parses an ISO timestamp or date ("2026-03-01", "2026-03-01T10:00:00Z", naive = UTC) into the
 * canonical UTC ISO form, or null when it is not a date.
 */
export const parseTimestamp = (input: string): string | null => {
  const s = input.trim()
  if (!/^\d{4}-\d{2}-\d{2}/.test(s)) return null
  const naive = /^\d{4}-\d{2}-\d{2}$/.test(s)
    ? s + "T00:00:00Z"
    : /[zZ]|[+-]\d{2}:?\d{2}$/.test(s)
      ? s
      : s + "Z"
  const d = new Date(naive)
  return Number.isNaN(d.getTime()) ? null : d.toISOString()
}

/** Half-open validity window test: from <= t < to, null meaning open. All arguments canonical ISO. */
export const validAt = (from: string | null, to: string | null, t: string): boolean =>
  (from === null || from <= t) && (to === null || t < to)
