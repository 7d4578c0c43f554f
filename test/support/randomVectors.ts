/** A deterministic PRNG (mulberry32), so a failing vector test reproduces. */
export const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** A random unit vector of `dim` components drawn from `rand`. */
export const unit = (rand: () => number, dim: number) => {
  const v = Float32Array.from({ length: dim }, () => rand() - 0.5)
  const n = Math.hypot(...v)
  return v.map((x) => x / n)
}
