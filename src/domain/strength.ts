import type { AwhmConfigShape } from "./Config.js"
import type { MemoryNode, Strength } from "./Node.js"

/** The strength model's parameters (reference defaults: alpha 0.3, beta 0.1, w_rec 0.4, w_freq 0.6). */
export interface StrengthParams {
  readonly alpha: number
  readonly beta: number
  readonly wRec: number
  readonly wFreq: number
}

export const DEFAULT_STRENGTH_PARAMS: StrengthParams = { alpha: 0.3, beta: 0.1, wRec: 0.4, wFreq: 0.6 }

export const strengthParams = (config: Pick<AwhmConfigShape, "alpha" | "beta" | "wRec" | "wFreq">): StrengthParams => ({
  alpha: config.alpha,
  beta: config.beta,
  wRec: config.wRec,
  wFreq: config.wFreq
})

/**
 * Power-law recency: (1 + beta·hours)^(−alpha). 0.693 after a day, 0.422 after a week, 0.276 after
 * 30 days with the defaults. A last access in the future (replayed timestamps) counts as now.
 */
export const recency = (hours: number, alpha = DEFAULT_STRENGTH_PARAMS.alpha, beta = DEFAULT_STRENGTH_PARAMS.beta): number =>
  Math.pow(1 + beta * Math.max(0, hours), -alpha)

/** The reference's 90th percentile of access counts: sorted[min(floor(0.9n), n−1)], at least 1. */
export const p90 = (accessCounts: ReadonlyArray<number>): number => {
  if (accessCounts.length === 0) return 1
  const sorted = Float64Array.from(accessCounts).sort()
  const n = sorted.length
  return Math.max(sorted[Math.min(Math.floor(0.9 * n), n - 1)]!, 1)
}

/** Percentile frequency: min(accessCount / p90, 1). */
export const frequency = (accessCount: number, p90Value: number): number =>
  Math.min(accessCount / Math.max(p90Value, 1), 1)

export const composite = (rec: number, freq: number, params: StrengthParams = DEFAULT_STRENGTH_PARAMS): number =>
  params.wRec * rec + params.wFreq * freq

/** Hours from one ISO timestamp to another (negative when `to` is earlier). */
export const hoursBetween = (fromIso: string, toIso: string): number =>
  (Date.parse(toIso) - Date.parse(fromIso)) / 3_600_000

/** A node's strength at `now`, given the p90 of all access counts. */
export const strengthOf = (
  node: Pick<MemoryNode, "lastAccessed" | "accessCount">,
  now: string,
  p90Value: number,
  params: StrengthParams = DEFAULT_STRENGTH_PARAMS
): Strength => {
  const hours = hoursBetween(node.lastAccessed, now)
  const rec = recency(Number.isFinite(hours) ? hours : 0, params.alpha, params.beta)
  const freq = frequency(node.accessCount, p90Value)
  return { recency: rec, frequency: freq, composite: composite(rec, freq, params) }
}

/**
 * Strength for a set of candidate nodes (query time: only the candidates are scored), with the
 * frequency percentile taken over every node's access count.
 */
export const recomputeStrength = (
  candidates: Iterable<Pick<MemoryNode, "id" | "lastAccessed" | "accessCount">>,
  allAccessCounts: ReadonlyArray<number>,
  now: string,
  params: StrengthParams = DEFAULT_STRENGTH_PARAMS
): Map<string, Strength> => {
  const p = p90(allAccessCounts)
  const out = new Map<string, Strength>()
  for (const node of candidates) out.set(node.id, strengthOf(node, now, p, params))
  return out
}

/** Reinforcement of a returned result: accessed now, one more access. */
export const reinforce = <N extends Pick<MemoryNode, "lastAccessed" | "accessCount">>(node: N, now: string): N => ({
  ...node,
  lastAccessed: now,
  accessCount: node.accessCount + 1
})
