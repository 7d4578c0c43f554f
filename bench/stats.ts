// Small statistics and fixtures the bench sections share.

/** The median (the mean of the two middle values for an even count). */
export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** Deterministic pseudo-random unit vectors (xorshift from `seed`), so runs are comparable. */
export const unitVectors = (seed = 42) => {
  let state = seed
  const rand = () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return ((state >>> 0) / 0xffffffff) * 2 - 1
  }
  return (dim: number): Float32Array => {
    const v = new Float32Array(dim)
    let norm = 0
    for (let i = 0; i < dim; i++) norm += (v[i] = rand()) ** 2
    const k = 1 / Math.sqrt(norm)
    for (let i = 0; i < dim; i++) v[i]! *= k
    return v
  }
}

/** Children's user+sys milliseconds as bash's `times` prints them ("0m0.190s 0m0.030s" on its second line). */
export const childCpuMs = (timesOutput: string): number => {
  const line = timesOutput.trim().split("\n").pop() ?? ""
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60_000 + Number(m[2]) * 1000)
  return parts.length === 2 ? parts[0]! + parts[1]! : NaN
}
