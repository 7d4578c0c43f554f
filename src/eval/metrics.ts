/**
 * Percentile with linear interpolation between closest ranks (numpy's default, as the reference):
 * rank = (n − 1)·p/100. Empty input gives 0.
 */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const rank = (sorted.length - 1) * (p / 100)
  const low = Math.floor(rank)
  const high = Math.min(low + 1, sorted.length - 1)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low)
}

/** p50 and p95 of latencies in milliseconds. */
export const latencySummary = (latencies: ReadonlyArray<number>) => ({
  p50: percentile(latencies, 50),
  p95: percentile(latencies, 95)
})

/**
 * The 1-based rank of the first content containing any needle (case-insensitive substring), or null.
 * No needles: null (the question cannot be hit).
 */
export const firstHit = (contents: ReadonlyArray<string>, needles: ReadonlyArray<string>): number | null => {
  const lowered = needles.map((n) => n.toLowerCase()).filter((n) => n !== "")
  if (lowered.length === 0) return null
  for (const [i, c] of contents.entries()) {
    const text = c.toLowerCase()
    if (lowered.some((n) => text.includes(n))) return i + 1
  }
  return null
}

/** Binary nDCG with one relevant item: 1/log2(rank + 1), 0 for a miss. */
export const ndcgAt = (rank: number | null): number => (rank === null ? 0 : 1 / Math.log2(rank + 1))

/** Mean of a list, 0 when empty. */
export const mean = (values: ReadonlyArray<number>): number =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length

export interface CategoryRecall {
  readonly questions: number
  readonly recall_at_k: number
}

/** Recall per category (missing category → "all"), names sorted as the reference. */
export const recallByCategory = (
  cases: ReadonlyArray<{ readonly category: string | null; readonly hit_rank: number | null }>
): Record<string, CategoryRecall> => {
  const tally = new Map<string, { n: number; hits: number }>()
  for (const c of cases) {
    const t = tally.get(c.category ?? "all") ?? { n: 0, hits: 0 }
    t.n += 1
    t.hits += c.hit_rank !== null ? 1 : 0
    tally.set(c.category ?? "all", t)
  }
  const out: Record<string, CategoryRecall> = {}
  for (const name of [...tally.keys()].sort()) {
    const t = tally.get(name)!
    out[name] = { questions: t.n, recall_at_k: t.n === 0 ? 0 : t.hits / t.n }
  }
  return out
}
